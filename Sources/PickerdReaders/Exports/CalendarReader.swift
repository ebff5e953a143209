import CICal
import Foundation
import PickerdStore
import PickerdMoments
import PickerdImport

/// Reads iCalendar (.ics) files with libical (through CICal): VEVENTs with their summary, start and
/// end in their time zones (the file's VTIMEZONEs, TZIDs the system's zoneinfo knows, UTC, floating
/// times and all-day dates, both read in the person's zone), location and attendees (CN and
/// mailto), each recurrence (RRULE, RDATE less EXDATE, a RECURRENCE-ID replacing the occurrence it
/// names) expanded within a horizon: the library's years and the present, capped.
///
/// Before libical reads it, the text is checked line by line. A file whose structure is broken is
/// refused whole with the line that breaks it (an unfolded line outside an event that is not a
/// property, BEGIN and END that do not match); an event that cannot be read (a date, duration or
/// RRULE that cannot be read or repeats by the second or minute, a duration over a century, a TZID
/// nothing defines and no alias names,
/// no DTSTART, what libical refuses in it) is left out with its line and reason, and the rest kept.
/// Empty properties and properties libical does not know (RFC 9253's `LINK`) are read past.
enum CalendarReader {
    /// The largest calendar file read.
    static let maximumFile = 64 << 20
    /// The most occurrences one event expands to (a daily event over the horizon is capped here).
    static let maximumOccurrencesPerEvent = 2_000
    /// The most occurrences one file may give.
    static let maximumOccurrences = 250_000
    /// The longest horizon recurrences are expanded over.
    static let maximumHorizonMs: Int64 = 60 * 31_557_600_000

    /// The span recurrences are expanded over: the library's first item (or 20 years before `now`,
    /// whichever is earlier) to a year after its last (or `now`), at most ``maximumHorizonMs``
    /// (the earliest years go first).
    /// - Parameters:
    ///   - library: when the library's items start, if it has any.
    ///   - now: the present, ms since 1970.
    static func horizon(library: ClosedRange<Int64>?, now: Int64) -> ClosedRange<Int64> {
        let year: Int64 = 31_557_600_000
        let end = max(library?.upperBound ?? now, now) + year
        let start = max(min(library?.lowerBound ?? now, now - 20 * year), end - maximumHorizonMs)
        return start...end
    }

    /// Reads the .ics file at `path`.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    ///   - horizon: when recurrences are expanded (ms since 1970).
    ///   - timeZone: the zone floating times and dates are read in (the person's).
    /// - Throws: ``ImportError`` naming the line where the file is broken.
    static func read(path: String, name: String, horizon: ClosedRange<Int64>, timeZone: TimeZone = .current) throws(ImportError) -> ImportedData {
        let bytes = try ExportReaders.whole(path, name: name, limit: maximumFile, what: "a calendar")
        var imported = ImportedData()
        let read = try events(bytes, file: name, horizon: horizon, timeZone: timeZone)
        imported.events = read.events
        // Each event left out, with its line and why: a person reads these among the counts.
        for (line, reason) in read.skipped { imported.leftOut["events left out (the event at line \(line): \(reason))", default: 0] += 1 }
        // A calendar with no event says what it holds instead, rather than a bare "nothing to import".
        if read.events.isEmpty, read.skipped.isEmpty { imported.leftOut[noEvents(bytes), default: 0] += 1 }
        return imported
    }

    /// Why a calendar without a VEVENT gives nothing: what it holds instead (VTODO, VJOURNAL,
    /// VFREEBUSY, a VTIMEZONE only, or nothing at all), as one of the file's counts.
    static func noEvents(_ bytes: [UInt8]) -> String {
        let ignored: Set<String> = ["VCALENDAR", "VTIMEZONE", "STANDARD", "DAYLIGHT", "VALARM"]
        var held: [String] = []
        var zones = false
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard line.uppercased().hasPrefix("BEGIN:") else { continue }
            let name = line.dropFirst(6).trimmingCharacters(in: .whitespaces).uppercased()
            if name == "VTIMEZONE" { zones = true }
            if !ignored.contains(name), !held.contains(name), held.count < 4 { held.append(name) }
        }
        let what = !held.isEmpty ? "it holds " + held.joined(separator: ", ") + " only"
            : zones ? "it holds time zones only" : "the calendar is empty"
        return "calendar left out (no event, VEVENT, in it: \(what))"
    }

    /// Reads iCalendar text: the events kept.
    /// - Throws: ``ImportError`` naming the line where it is broken.
    static func read(_ bytes: [UInt8], file: String, horizon: ClosedRange<Int64>, timeZone: TimeZone = .current) throws(ImportError) -> [ImportedEvent] {
        try events(bytes, file: file, horizon: horizon, timeZone: timeZone).events
    }

    /// Reads iCalendar text.
    /// - Throws: ``ImportError`` naming the line where it is broken.
    /// Reads iCalendar text: the events kept, and those left out (an event that cannot be read
    /// costs that event only), each with the line of its BEGIN:VEVENT and why.
    /// - Throws: ``ImportError`` naming the line where the file's structure is broken.
    static func events(_ bytes: [UInt8], file: String, horizon: ClosedRange<Int64>,
                       timeZone: TimeZone = .current) throws(ImportError) -> (events: [ImportedEvent], skipped: [(line: Int, reason: String)]) {
        let checked = try check(bytes, file: file)
        var message = [CChar](repeating: 0, count: 512)
        guard let calendar = checked.text.withCString({ ci_parse($0, &message, message.count) }) else {
            let said = CText.error(message)
            throw ImportError(file: file, location: checked.line(naming: said).map { "line \($0)" }, "libical refused it: \(said)")
        }
        defer { ci_free(calendar) }
        let count = ci_event_count(calendar)
        guard count == checked.eventLines.count else {
            throw ImportError(file: file, "libical read \(count) events where the file has \(checked.eventLines.count)")
        }
        var skipped = checked.skipped
        var events: [ImportedEvent] = []
        var overrides: [String: Set<Int64>] = [:]  // uid → the occurrences replaced (moved or cancelled)
        var total = 0
        for index in 0..<count {
            let line = checked.eventLines[index]
            func fail(_ text: String) -> ImportError { ImportError(file: file, location: "line \(line)", text) }
            if let problem = text(ci_event_error(calendar, index)) {
                skipped.append((line, "libical refused it: \(problem)"))
                continue
            }
            do throws(ImportError) {
                var start = ci_time(), end = ci_time()
                guard ci_event_start(calendar, index, &start) != 0, ci_event_end(calendar, index, &end) != 0 else {
                    throw fail("an event (BEGIN:VEVENT) with no DTSTART")
                }
                let summary = text(ci_event_summary(calendar, index)) ?? ""
                let startMs = try milliseconds(start, timeZone, fail: fail)
                var endMs = try milliseconds(end, timeZone, fail: fail)
                let days = start.is_date != 0 ? max(1, Civil.days(year: Int(end.year), month: Int(end.month), day: Int(end.day))
                    - Civil.days(year: Int(start.year), month: Int(start.month), day: Int(start.day))) : 0
                if endMs < startMs { endMs = startMs }
                let uid = text(ci_event_uid(calendar, index))
                    ?? "nouid:" + SuggestionBuilder.stableID("\(summary)|\(startMs)").uuidString
                var event = ImportedEvent(uid: uid, summary: summary, location: text(ci_event_location(calendar, index)) ?? "",
                                          allDay: start.is_date != 0, timeZone: zoneName(start), attendees: attendees(calendar, index),
                                          occurrences: [], line: line)
                let cancelled = ci_event_cancelled(calendar, index) != 0
                var recurrence = ci_time()
                if ci_event_recurrence_id(calendar, index, &recurrence) != 0 {
                    // This one replaces an occurrence of the recurring event with its UID.
                    let key = try milliseconds(recurrence, timeZone, fail: fail)
                    overrides[uid, default: []].insert(key)
                    event.recurrenceID = key
                    if !cancelled { event.occurrences = [.init(startMs: startMs, endMs: endMs, key: key)] }
                } else if !cancelled {
                    var starts: [Int64] = [startMs]
                    if ci_event_recurs(calendar, index) != 0 {
                        var found = [ci_time](repeating: ci_time(), count: maximumOccurrencesPerEvent)
                        var truncated: Int32 = 0
                        // Within the horizon; a series that ended before it (a 1997 calendar) from its own
                        // start: never by what the library holds, so the same file imports the same
                        // whatever was imported before.
                        func expand(_ span: ClosedRange<Int64>) -> Int {
                            // Floating times and dates are compared as if UTC in C: a day's slack either side.
                            ci_event_occurrences(calendar, index, span.lowerBound / 1000 - 2 * 86_400, span.upperBound / 1000 + 2 * 86_400,
                                                 &found, found.count, &truncated)
                        }
                        func within(_ span: ClosedRange<Int64>) throws(ImportError) -> [Int64] {
                            let n = expand(span)
                            guard n >= 0 else { throw fail("its recurrence rule cannot be expanded") }
                            return try found.prefix(n).map { t throws(ImportError) in try milliseconds(t, timeZone, fail: fail) }
                                .filter { span.contains($0) }
                        }
                        starts = try within(horizon)
                        // None within the horizon (though one may fall in the day's slack either side:
                        // vobject's monthly series that ended in December 2006, read in November 2026):
                        // read from its own start.
                        if starts.isEmpty, startMs < horizon.lowerBound {
                            starts = try within(max(startMs, horizon.upperBound - maximumHorizonMs)...horizon.upperBound)
                        }
                    }
                    for occurrence in Set(starts).sorted() {
                        let occurrenceEnd: Int64
                        if start.is_date != 0 {
                            // Whole days, reckoned in the person's zone (a day across a clock change is still a day).
                            let local = occurrence + offsetMs(occurrence, timeZone)
                            let day = Int(local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000)
                            occurrenceEnd = utcMs(localMs: Int64(day + days) * 86_400_000, timeZone)
                        } else {
                            occurrenceEnd = occurrence + (endMs - startMs)
                        }
                        event.occurrences.append(.init(startMs: occurrence, endMs: max(occurrence, occurrenceEnd), key: occurrence))
                    }
                }
                guard total + event.occurrences.count <= maximumOccurrences else {
                    throw fail("the calendar gives more than \(maximumOccurrences) occurrences: the rest are left out")
                }
                total += event.occurrences.count
                events.append(event)
            } catch {
                skipped.append((line, error.message))
            }
        }
        // A moved or cancelled occurrence is no longer where its rule put it: the override stands for it.
        for index in events.indices where events[index].recurrenceID == nil {
            guard let replaced = overrides[events[index].uid] else { continue }
            events[index].occurrences.removeAll { replaced.contains($0.key) }
        }
        return (events, skipped.sorted { $0.line < $1.line })
    }

    // MARK: Times

    /// A libical time in ms since 1970: UTC and zoned times as libical placed them, a TZID libical
    /// does not know through the system's zone of that name, floating times and dates in `timeZone`.
    static func milliseconds(_ t: ci_time, _ timeZone: TimeZone, fail: (String) -> ImportError) throws(ImportError) -> Int64 {
        switch t.zone {
        case CI_UTC, CI_ZONED:
            return t.utc_seconds * 1000
        case CI_UNRESOLVED:
            let tzid = CText.field(t.tzid) ?? ""
            guard let zone = TimeZone(identifier: tzid) else { throw fail("the time zone \"\(tzid)\" is neither in the file nor known") }
            return utcMs(localMs: localMs(t), zone)
        default:
            return utcMs(localMs: localMs(t), timeZone)
        }
    }

    private static func localMs(_ t: ci_time) -> Int64 {
        Int64(Civil.days(year: Int(t.year), month: Int(t.month), day: Int(t.day))) * 86_400_000
            + Int64(t.hour) * 3_600_000 + Int64(t.minute) * 60_000 + Int64(t.second) * 1000
    }

    private static func offsetMs(_ utcMs: Int64, _ zone: TimeZone) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcMs) / 1000))) * 1000
    }

    /// A wall-clock time in `zone` as ms since 1970.
    static func utcMs(localMs: Int64, _ zone: TimeZone) -> Int64 {
        let guess = localMs - offsetMs(localMs, zone)
        return localMs - offsetMs(guess, zone)
    }

    /// A C string libical owns, copied; nil when NULL or empty.
    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer, pointer.pointee != 0 else { return nil }
        return String(cString: pointer)
    }

    private static func zoneName(_ t: ci_time) -> String {
        switch t.zone {
        case CI_UTC: "UTC"
        case CI_ZONED, CI_UNRESOLVED: CText.field(t.tzid) ?? ""
        default: ""
        }
    }

    private static func attendees(_ calendar: OpaquePointer, _ index: Int) -> [EventAttendee] {
        var found: [EventAttendee] = []
        for position in 0..<min(ci_event_attendee_count(calendar, index), 500) {
            var name: UnsafePointer<CChar>?, address: UnsafePointer<CChar>?
            var declined: Int32 = 0
            guard ci_event_attendee(calendar, index, position, &name, &address, &declined) != 0, declined == 0 else { continue }
            var email = text(address) ?? ""
            if email.lowercased().hasPrefix("mailto:") { email = String(email.dropFirst(7)) } else if !email.contains("@") { email = "" }
            let cn = ImportedContact.normalized(text(name) ?? "") ?? ""
            if !cn.isEmpty || !email.isEmpty { found.append(EventAttendee(name: cn, email: email.trimmingCharacters(in: .whitespaces))) }
        }
        return found
    }
}

// MARK: Checking the text, line by line

extension CalendarReader {
    /// A file that passed ``check(_:file:)``.
    struct Checked {
        /// The text (without a BOM), for libical.
        var text: String
        /// The unfolded lines: where each begins, and its text.
        var lines: [(number: Int, text: Substring)]
        /// The line of each BEGIN:VEVENT kept, in order (libical's events come in the same order).
        var eventLines: [Int]
        /// The events left out: the line of each one's BEGIN:VEVENT, and why.
        var skipped: [(line: Int, reason: String)] = []

        /// The line libical's message quotes (its messages end with the text they could not read).
        func line(naming message: String) -> Int? {
            guard let colon = message.range(of: ": ", options: .backwards) else { return nil }
            let quoted = message[colon.upperBound...].trimmingCharacters(in: .whitespaces)
            guard !quoted.isEmpty else { return nil }
            return lines.first { $0.text.contains(quoted) || quoted.contains($0.text) }?.number
        }
    }

    /// Checks the structure libical would read past or misread, naming the line: every unfolded
    /// line a property (`NAME[;PARAM=…]:value`), BEGIN and END matched, nothing outside a
    /// VCALENDAR (else the file is refused); and for each event its dates, durations (at most a
    /// century) and rules readable, each TZID defined (a VTIMEZONE in the file, a zone the system
    /// knows, or a Windows or Mozilla alias of one, rewritten to it), a DTSTART (else that event is
    /// left out with its reason, and the rest kept). Empty properties are dropped. The text handed
    /// to libical is the unfolded lines kept.
    /// How deep components may nest (``check(_:file:)``).
    static let maximumNesting = 16

    static func check(_ bytes: [UInt8], file: String) throws(ImportError) -> Checked {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let nul = body.firstIndex(of: 0) {
            throw ImportError(file: file, location: "line \(body[..<nul].count { $0 == 0x0A } + 1)", "a NUL byte: not a text file")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            let bad = body.split(separator: 0x0A, omittingEmptySubsequences: false).firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0
            throw ImportError(file: file, location: "line \(bad + 1)", "not UTF-8 text")
        }
        // Unfold (RFC 5545 3.1): a line that begins with a space or a tab continues the one before.
        var lines: [(number: Int, text: Substring)] = []
        var joined: [Int: String] = [:]
        // CRLF is one Character in Swift: split on it, on LF and on a lone CR alike.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).enumerated() {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if line.first == " " || line.first == "\t", let last = lines.indices.last {
                let whole = (joined[last] ?? String(lines[last].text)) + line.dropFirst()
                joined[last] = whole
            } else {
                lines.append((index + 1, line))
            }
        }
        for (index, whole) in joined { lines[index].text = whole[...] }

        // Nesting is counted before libical sees the text: its checks recurse once per level, and a
        // file of a few MB can nest deep enough to overflow a stack. A real calendar nests three deep
        // (VCALENDAR, VEVENT, VALARM; VTIMEZONE, STANDARD).
        var depth = 0
        for (number, line) in lines {
            if line.count >= 6, line.prefix(6).uppercased() == "BEGIN:" {
                depth += 1
                if depth > maximumNesting {
                    throw ImportError(file: file, location: "line \(number)", "components nested more than \(maximumNesting) deep: no calendar nests so")
                }
            } else if line.count >= 4, line.prefix(4).uppercased() == "END:" {
                depth -= 1
            }
        }

        // The TZIDs the file defines (VTIMEZONEs may come after the events that name them).
        var defined = Set<String>()
        for (_, line) in lines {
            if let property = CalendarProperty(line), property.name == "TZID" { defined.insert(property.value) }
        }
        // A TZID is the file's, one libical or the system knows, or a well-known alias (Windows,
        // Mozilla) rewritten to its Olson name; nil when none of these.
        var resolved: [String: String?] = [:]
        func resolve(_ tzid: String) -> String? {
            if let known = resolved[tzid] { return known }
            let answer: String? = defined.contains(tzid) || tzid.withCString({ ci_zone_known($0) }) != 0 || TimeZone(identifier: tzid) != nil
                ? tzid : CalendarTimeZones.olson(tzid)
            resolved[tzid] = answer
            return answer
        }

        var stack: [(name: String, line: Int)] = []
        var kept: [(number: Int, text: Substring)] = []
        var eventLines: [Int] = []
        var skipped: [(line: Int, reason: String)] = []
        // The event being read: its lines, whether it has a DTSTART, the first reason to leave it out.
        var event: [(number: Int, text: Substring)] = []
        var eventHasStart = false
        var eventProblem: String?
        var sawCalendar = false
        for (number, line) in lines {
            func fail(_ message: String) -> ImportError { ImportError(file: file, location: "line \(number)", message) }
            let inEvent = stack.contains { $0.name == "VEVENT" }
            // What pickerd never reads costs nothing when it is odd: a line after the calendar's END
            // (python-icalendar's issue 350: a cache's X-COMMENT), and a line of a component that is
            // neither an event nor a time zone (a VFREEBUSY's ORGANIZER;CN=… with no value).
            let after = sawCalendar && stack.isEmpty
            let unread = stack.contains { !["VCALENDAR", "VEVENT", "VTIMEZONE", "STANDARD", "DAYLIGHT", "VALARM"].contains($0.name) }
            guard var property = CalendarProperty(line) else {
                // An odd line of an experimental property costs nothing either: pickerd reads no X-
                // property (python-icalendar's issue 168: Apple's X-APPLE-RADIUS=49.9 cut from its
                // X-APPLE-STRUCTURED-LOCATION; vobject's badline.ics: X-BAD/SLASH:TRUE).
                if line.prefix(2).uppercased() == "X-" { continue }
                if inEvent {
                    eventProblem = eventProblem ?? "line \(number) is not an iCalendar property (NAME:value)"
                    continue
                }
                if after || unread { continue }
                throw fail("not an iCalendar property (NAME:value)")
            }
            if after, property.name != "BEGIN" { continue }
            let value = property.value
            switch property.name {
            case "BEGIN":
                let component = value.uppercased()
                if stack.isEmpty {
                    guard component == "VCALENDAR" else { throw fail("BEGIN:\(value) outside a VCALENDAR") }
                    sawCalendar = true
                }
                if component == "VEVENT", !inEvent {
                    event = []
                    eventHasStart = false
                    eventProblem = nil
                }
                stack.append((component, number))
                if inEvent || component == "VEVENT" { event.append((number, line)) } else { kept.append((number, line)) }
                continue
            case "END":
                let component = value.uppercased()
                guard let open = stack.popLast() else { throw fail("END:\(value) without a BEGIN") }
                guard open.name == component else { throw fail("END:\(value) where END:\(open.name) (begun at line \(open.line)) was expected") }
                guard inEvent else {
                    kept.append((number, line))
                    continue
                }
                event.append((number, line))
                if component == "VEVENT", !stack.contains(where: { $0.name == "VEVENT" }) {
                    if !eventHasStart, eventProblem == nil { eventProblem = "an event (BEGIN:VEVENT) with no DTSTART" }
                    if let eventProblem {
                        skipped.append((open.line, eventProblem))
                    } else {
                        eventLines.append(open.line)
                        kept += event
                    }
                    event = []
                }
                continue
            default:
                break
            }
            guard let component = stack.last?.name else { throw fail("text outside a VCALENDAR") }
            // An empty property is just empty (Google Calendar writes `DESCRIPTION:` and `LOCATION:`).
            if value.isEmpty { continue }
            var text = line
            // A recurrence rule with its separators escaped as if it were TEXT (Ruby's icalendar gem
            // writes `RRULE:FREQ=DAILY\;COUNT=10`, vobject's ruby_rrule.ics): a RECUR value has no
            // escapes, so each stands for the separator it escapes.
            if property.name == "RRULE" || property.name == "EXRULE", value.contains("\\"), line.hasSuffix(value) {
                let rule = value.replacingOccurrences(of: "\\;", with: ";").replacingOccurrences(of: "\\,", with: ",")
                text = line.dropLast(value.count) + rule
                property = CalendarProperty(text) ?? property
            }
            if let tzid = property.parameter("TZID") {
                if let olson = resolve(tzid) {
                    if olson != tzid {
                        text = Substring(CalendarProperty.replacing(parameter: "TZID", with: olson, in: line))
                        property = CalendarProperty(text) ?? property
                    }
                } else if inEvent {
                    eventProblem = eventProblem
                        ?? "line \(number): TZID \"\(tzid)\" has no VTIMEZONE in the file and is not a time zone the system knows"
                }
            }
            guard component == "VEVENT" || inEvent else {
                kept.append((number, text))
                continue
            }
            event.append((number, text))
            guard component == "VEVENT", eventProblem == nil else { continue }
            switch property.name {
            case "DTSTART", "DTEND", "RECURRENCE-ID":
                guard isDateOrDateTime(value) else {
                    eventProblem = "line \(number): \(property.name) \"\(value)\" is not a date (YYYYMMDD) or a date-time (YYYYMMDDTHHMMSS[Z])"
                    continue
                }
                if property.name == "DTSTART" { eventHasStart = true }
            case "EXDATE", "RDATE":
                for item in value.split(separator: ",") {
                    let parts = item.split(separator: "/", maxSplits: 1)
                    guard let first = parts.first, isDateOrDateTime(first),
                          parts.count == 1 || isDateOrDateTime(parts[1]) || isDuration(parts[1]) else {
                        eventProblem = "line \(number): \(property.name) \"\(item)\" is not a date, a date-time or a period"
                        break
                    }
                    if parts.count == 2, isDuration(parts[1]), !isBoundedDuration(parts[1]) {
                        eventProblem = "line \(number): \(property.name) \"\(item)\" lasts longer than a century"
                        break
                    }
                }
            case "DURATION":
                if !isDuration(value[...]) {
                    eventProblem = "line \(number): DURATION \"\(value)\" is not a duration (such as PT1H30M)"
                } else if !isBoundedDuration(value[...]) {
                    // libical adds a duration day by day: P999999999999999999W would never end.
                    eventProblem = "line \(number): DURATION \"\(value)\" is longer than a century"
                }
            case "RRULE":
                let value = property.value
                let upper = value.uppercased()
                if !upper.contains("FREQ=") || value.withCString({ ci_rrule_valid($0) }) == 0 {
                    eventProblem = "line \(number): RRULE \"\(value)\" is not a recurrence rule libical reads"
                } else if upper.contains("FREQ=SECONDLY") || upper.contains("FREQ=MINUTELY") {
                    // libical looks for a filtered rule's next match second by second (or minute by
                    // minute) inside one step, past any bound on steps: a rule that matches once in
                    // decades would hold the import for hours. No calendar's event recurs so.
                    eventProblem = "line \(number): RRULE \"\(value)\" repeats by the second or minute, which is not expanded"
                }
            default:
                break
            }
        }
        if let open = stack.last {
            throw ImportError(file: file, location: "line \(open.line)", "BEGIN:\(open.name) never ends (the file is cut short?)")
        }
        guard sawCalendar else { throw ImportError(file: file, "no BEGIN:VCALENDAR") }
        let rebuilt = kept.map { String($0.text) }.joined(separator: "\r\n") + "\r\n"
        return Checked(text: rebuilt, lines: kept, eventLines: eventLines, skipped: skipped)
    }

    /// Whether a duration (already ``isDuration(_:)``) is at most a century: the longest an event is
    /// taken to last (libical adds a duration to a date day by day).
    static func isBoundedDuration<S: StringProtocol>(_ value: S) -> Bool {
        var seconds: Double = 0
        var digits = ""
        for c in value {
            if c.isASCII, c.isNumber {
                digits.append(c)
                continue
            }
            let n = Double(digits) ?? 0
            digits = ""
            switch c {
            case "W": seconds += n * 604_800
            case "D": seconds += n * 86_400
            case "H": seconds += n * 3_600
            case "M": seconds += n * 60
            case "S": seconds += n
            default: continue
            }
        }
        return seconds <= 100 * 366 * 86_400
    }

    /// `YYYYMMDD` or `YYYYMMDDTHHMMSS` (with `Z` for UTC), each field in range.
    static func isDateOrDateTime<S: StringProtocol>(_ value: S) -> Bool {
        let b = Array(value.utf8)
        guard b.count == 8 || b.count == 15 || (b.count == 16 && b[15] == UInt8(ascii: "Z")) else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), (1...12).contains(month) else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        guard b.count > 8 else { return true }
        guard b[8] == UInt8(ascii: "T"), let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15) else { return false }
        return hour < 24 && minute < 60 && second <= 60
    }

    /// An RFC 5545 duration: `[+-]P` then weeks (`2W`) or days and a time (`1DT2H30M`, `PT15M`).
    static func isDuration<S: StringProtocol>(_ value: S) -> Bool {
        var s = Substring(value)
        if s.first == "+" || s.first == "-" { s = s.dropFirst() }
        guard s.first == "P" else { return false }
        s = s.dropFirst()
        var sawAny = false, inTime = false
        var digits = ""
        var order = ""  // the designators seen, in order
        for c in s {
            if c.isASCII, c.isNumber {
                digits.append(c)
            } else if c == "T", digits.isEmpty, !inTime {
                inTime = true
                order.append("T")
            } else if !digits.isEmpty, inTime ? "HMS".contains(c) : "WD".contains(c) {
                order.append(c)
                digits = ""
                sawAny = true
            } else {
                return false
            }
        }
        guard sawAny, digits.isEmpty, order.last != "T" else { return false }
        // Each designator once, in order; weeks alone.
        let allowed = "WDTHMS"
        var last = allowed.startIndex
        for c in order {
            guard let at = allowed[last...].firstIndex(of: c) else { return false }
            last = allowed.index(after: at)
        }
        return !(order.contains("W") && order.count > 1)
    }
}

/// One unfolded iCalendar line: `NAME[;PARAM=value…]:value`.
struct CalendarProperty {
    /// The name, upper case.
    var name: String
    /// The value (after the first colon outside a quoted parameter value).
    var value: String
    /// Parameters, names upper case, quotes removed.
    var parameters: [(name: String, value: String)]

    init?(_ line: Substring) {
        var quoted = false
        var colon: String.Index?
        var cuts: [String.Index] = []
        for index in line.indices {
            let c = line[index]
            if c == "\"" { quoted.toggle() }
            if quoted { continue }
            if c == ":" {
                colon = index
                break
            }
            if c == ";" { cuts.append(index) }
        }
        guard let colon else { return nil }
        var pieces: [Substring] = []
        var start = line.startIndex
        for cut in cuts + [colon] {
            pieces.append(line[start..<cut])
            start = line.index(after: cut)
        }
        guard let first = pieces.first, !first.isEmpty,
              first.unicodeScalars.allSatisfy({ $0 == "-" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else { return nil }
        name = first.uppercased()
        value = String(line[line.index(after: colon)...])
        parameters = pieces.dropFirst().compactMap { piece in
            guard let equals = piece.firstIndex(of: "=") else { return nil }
            var value = String(piece[piece.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return (piece[..<equals].uppercased(), value)
        }
    }

    /// The first parameter called `name`.
    func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }

    /// `line` with the value of its parameter `name` (before the property's value) set to `value`, quoted.
    static func replacing(parameter name: String, with value: String, in line: Substring) -> String {
        guard let property = CalendarProperty(line) else { return String(line) }
        let head = line.dropLast(property.value.count + 1)  // NAME;PARAM=…
        var pieces: [String] = []
        var quoted = false, piece = ""
        for c in head {
            if c == "\"" { quoted.toggle() }
            if c == ";", !quoted {
                pieces.append(piece)
                piece = ""
            } else {
                piece.append(c)
            }
        }
        pieces.append(piece)
        for index in pieces.indices.dropFirst() where pieces[index].uppercased().hasPrefix(name + "=") {
            pieces[index] = name + "=\"" + value + "\""
        }
        return pieces.joined(separator: ";") + ":" + property.value
    }
}

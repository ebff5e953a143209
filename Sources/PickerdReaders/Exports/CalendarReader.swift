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

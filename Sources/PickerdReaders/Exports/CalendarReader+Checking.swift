import CICal
import Foundation
import PickerdImport

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

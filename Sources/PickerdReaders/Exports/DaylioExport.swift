public import Foundation
public import PickerdWire
public import PickerdImport

/// Daylio's CSV export (More → Export entries → CSV): a header, then an entry per row, newest first,
/// as Daylio writes it:
/// ```
/// full_date,date,weekday,time,mood,activities,note_title,note
/// 2024-05-04,May 4,Saturday,21:15,rad,"friends | movies | good meal","",""
/// 2024-05-04,May 4,Saturday,8:05 am,meh,work,"Title","A note, perhaps
/// over several lines"
/// ```
/// (newer versions add a `scales` column, which is skipped; older ones wrote
/// `year,date,weekday,time,mood,activities,note` with the day as `May 4`, which is read too). Columns are found by their names in
/// the header; `full_date`, `time` and `mood` must be there, or the file is refused. The time is the
/// phone's local time, written 24-hour (`21:15`) or 12-hour (`9:15 pm`), and is read in the
/// person's time zone.
///
/// **Mood → valence** (Daylio's five-point scale, evenly spread over HealthKit's −1…1), and the
/// valence classification ``StateOfMindStyle/classification(valence:)`` gives it:
///
/// | mood | valence | classification |
/// |---|---|---|
/// | rad | 1.0 | veryPleasant |
/// | good | 0.5 | pleasant |
/// | meh | 0.0 | neutral |
/// | bad | −0.5 | unpleasant |
/// | awful | −1.0 | veryUnpleasant |
///
/// A custom mood (renamed or added in Daylio) is written by its name alone, without the level it
/// belongs to: it is left out and counted (`custom moods left out`), never guessed.
///
/// **Kind**: a day's only entry is how that day went (`dailyMood`, as Daylio's evening reminder
/// asks); when a day has several entries, each is how the moment felt (`momentaryEmotion`).
///
/// **Activities** (separated by ` | `, matched without regard to case) become HealthKit's
/// associations where one clearly fits (``associations``): family → family; friends → friends;
/// date → dating; partner → partner; work, office, meeting → work; sport, exercise, gym, workout,
/// running, walk, walking, yoga, swimming, cycling, hiking → fitness; movies, reading, gaming, music,
/// hobbies, drawing, painting, photography, gardening → hobbies; shopping, cleaning, cooking,
/// laundry, chores → tasks; travel, vacation, trip → travel; study, class, homework, exam, school →
/// education; meditation, relax, self-care → selfCare; doctor, medication, therapy, good sleep,
/// medium sleep, bad sleep, eat healthy, drink water → health; sunny, cloudy, rain, snow, heat, storm,
/// wind → weather; church, prayer → spirituality; news → currentEvents; volunteering → community;
/// money → money. An activity named exactly as one of HealthKit's 38 labels (Daylio's Emotions group:
/// happy, excited, grateful, stressed, sad, angry…) becomes that label. Every other activity is
/// dropped.
///
/// **The note is never imported**, nor its title: a journaling app gets what the person wrote there
/// from the person, not from a suggestion (less is more with private words).
public enum DaylioExport {
    /// Daylio's default moods and their valence.
    public static let valences: [String: Double] = ["rad": 1.0, "good": 0.5, "meh": 0, "bad": -0.5, "awful": -1.0]

    /// Daylio activities (lowercased) and the HealthKit association each clearly is.
    public static let associations: [String: StateOfMindAssociation] = {
        var table: [String: StateOfMindAssociation] = [:]
        let groups: [(StateOfMindAssociation, [String])] = [
            (.family, ["family"]),
            (.friends, ["friends"]),
            (.dating, ["date"]),
            (.partner, ["partner"]),
            (.work, ["work", "office", "meeting"]),
            (.fitness, ["sport", "exercise", "gym", "workout", "running", "walk", "walking", "yoga", "swimming", "cycling", "hiking"]),
            (.hobbies, ["movies", "reading", "gaming", "music", "hobbies", "drawing", "painting", "photography", "gardening"]),
            (.tasks, ["shopping", "cleaning", "cooking", "laundry", "chores"]),
            (.travel, ["travel", "vacation", "trip"]),
            (.education, ["study", "class", "homework", "exam", "school"]),
            (.selfCare, ["meditation", "relax", "self-care"]),
            (.health, ["doctor", "medication", "therapy", "good sleep", "medium sleep", "bad sleep", "eat healthy", "drink water"]),
            (.weather, ["sunny", "cloudy", "rain", "snow", "heat", "storm", "wind"]),
            (.spirituality, ["church", "prayer"]),
            (.currentEvents, ["news"]),
            (.community, ["volunteering"]),
            (.money, ["money"]),
        ]
        for (association, names) in groups {
            for name in names { table[name] = association }
        }
        return table
    }()

    /// The columns a Daylio export must have.
    static let required = ["full_date", "time", "mood"]
    /// The columns of Daylio's older layout (`year,date,weekday,time,mood,activities,note`): the
    /// year, and the day as `May 4` (or `4 May`), in place of `full_date`.
    static let olderRequired = ["year", "date", "time", "mood"]

    /// Reads a Daylio CSV export.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    ///   - timeZone: the zone its local times are read in (the person's).
    /// - Returns: its moods (custom moods counted in ``ImportedData/leftOut``), in file order.
    /// - Throws: ``ImportError`` naming the file and the line: a header without the columns above,
    ///   a row with a date or time that cannot be read, or fewer fields than the header.
    public static func read(path: String, name: String, timeZone: TimeZone = .current) throws(ImportError) -> ImportedData {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var data = ImportedData()
        var columns: [String: Int]?
        var days: [String] = []
        try CSVRecords.forEach(path: path, name: name) { fields, line throws(ImportError) in
            func fail(_ message: String) -> ImportError { ImportError(file: name, location: "line \(line)", message) }
            guard let columns else {
                let header = fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                let missing = required.filter { !header.contains($0) }
                guard missing.isEmpty || olderRequired.allSatisfy(header.contains) else {
                    throw fail("not a Daylio header this reader knows (full_date,date,weekday,time,mood,activities,note_title,note): "
                        + "no \(missing.map { "\"\($0)\"" }.joined(separator: ", ")) column")
                }
                columns = Dictionary(header.enumerated().map { ($0.element, $0.offset) }) { first, _ in first }
                return
            }
            func field(_ column: String) -> String {
                guard let index = columns[column], index < fields.count else { return "" }
                return fields[index].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let older = columns["full_date"] == nil
            let width = (older ? olderRequired : required).compactMap { columns[$0] }.max()! + 1
            guard fields.count >= width else { throw fail("\(fields.count) fields, fewer than the header's") }
            let time = field("time")
            let date: String
            let ymd: (year: Int, month: Int, day: Int)
            if older {
                date = field("year") + " " + field("date")
                guard let read = Self.day(year: field("year"), monthDay: field("date")) else {
                    throw fail("year \"\(field("year"))\" and date \"\(field("date"))\" are not a day (2018 and May 4)")
                }
                ymd = read
            } else {
                date = field("full_date")
                guard let read = Self.day(date) else { throw fail("full_date \"\(date)\" is not a date (YYYY-MM-DD)") }
                ymd = read
            }
            guard let (hour, minute) = clock(time) else { throw fail("the time \"\(time)\" is not a time of day (21:15 or 9:15 pm)") }
            let components = DateComponents(year: ymd.year, month: ymd.month, day: ymd.day, hour: hour, minute: minute)
            guard let when = calendar.date(from: components) else { throw fail("\(date) \(time) is not a time in \(timeZone.identifier)") }
            guard let valence = valences[field("mood").lowercased()] else {
                data.leftOut["custom moods left out", default: 0] += 1
                return
            }
            var labels: [StateOfMindLabel] = [], associations: [StateOfMindAssociation] = []
            for activity in field("activities").split(separator: "|").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                if let association = Self.associations[activity], !associations.contains(association) { associations.append(association) }
                if let label = StateOfMindLabel.byName[activity], !labels.contains(label) { labels.append(label) }
            }
            data.moods.append(ImportedMood(startMs: Int64((when.timeIntervalSince1970 * 1000).rounded()), kind: .dailyMood, valence: valence,
                                           labels: labels, associations: associations, format: "daylio"))
            days.append(date)
        }
        // Several entries on a day: each is how a moment felt, not how the day went.
        var perDay: [String: Int] = [:]
        for day in days { perDay[day, default: 0] += 1 }
        for index in data.moods.indices where perDay[days[index], default: 0] > 1 { data.moods[index].kind = .momentaryEmotion }
        return data
    }

    /// Year, month and day of `YYYY-MM-DD`.
    static func day(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2, parts.allSatisfy(digits),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (year, month, day)
    }

    /// Year, month and day of Daylio's older columns: `2018` and `May 4`, `4 May` or `4. May`
    /// (English month names, full or abbreviated).
    static func day(year: String, monthDay: String) -> (year: Int, month: Int, day: Int)? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard year.count == 4, let y = Int(year) else { return nil }
        let words = monthDay.lowercased().split { $0 == " " || $0 == "." || $0 == "," }
        guard words.count == 2 else { return nil }
        let (name, number) = Int(words[0]) == nil ? (words[0], words[1]) : (words[1], words[0])
        guard let d = Int(number), (1...31).contains(d), name.count >= 3,
              let m = months.firstIndex(where: { name.hasPrefix($0) }) else { return nil }
        return (y, m + 1, d)
    }

    private static func digits(_ s: Substring) -> Bool { s.allSatisfy { $0 >= "0" && $0 <= "9" } }

    /// Hour and minute of `21:15`, `9:15 pm`, `09:15 AM`, `9:15 p.m.`.
    static func clock(_ text: String) -> (Int, Int)? {
        var rest = Substring(text.lowercased())
        var meridiem: String?
        for (suffix, value) in [("a.m.", "am"), ("p.m.", "pm"), ("am", "am"), ("pm", "pm")] where rest.hasSuffix(suffix) {
            meridiem = value
            rest = rest.dropLast(suffix.count)
            break
        }
        let parts = rest.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy(digits), var hour = Int(parts[0]), let minute = Int(parts[1]), minute < 60 else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
        }
        guard hour < 24 else { return nil }
        return (hour, minute)
    }
}

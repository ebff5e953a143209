public import Foundation
import PickerdPlaces
public import PickerdStore
import PickerdWire

/// The places a person keeps going back to, found in their visits: home (where most nights are
/// spent, one entry per home when they moved house), work (weekday daytime) and frequent places
/// (many distinct days). `pickerctl places` lists them; the engine tells routine from a moment by
/// them.
///
/// How they are found (``find(in:timeZone:)``):
///
/// 1. **Places.** Visits (Location items with a coordinate) are clustered by distance: a visit joins
///    the nearest place whose centre is within ``clusterRadius`` (125 m), else it starts a new one;
///    a place's centre is the mean of its visits. Not a fixed grid cell, which would put the bar
///    round the corner into home's cell (or split a house on a cell's edge). Visits are taken in
///    time order, so the result is deterministic.
/// 2. **Nights.** A night is the hours 01:00–05:00 local time (the night of Sunday to Monday is
///    Sunday's); it is spent at the place whose visits cover most of it (a stay at about 03:00).
/// 3. **Home, per week** (Monday to Sunday): the place where most of the week's nights were spent.
///    Home changes (moving house) when another place is the week's home for at least two weeks in a
///    row; a single week elsewhere (a trip) does not move it, nor does a stay of up to four weeks
///    elsewhere between two stretches at the same home (a holiday). Each home has the dates it was home:
///    from the start of the visit of its first night there (`nil` for the first home) until the
///    end of the visit of its last night (`nil` for the current one).
/// 4. **Work**: a place that is not home, where the weekday hours 09:00–17:00 (Monday to Friday)
///    held at least ``workDayHours`` (3) hours on at least ``minimumWorkDays`` (3) days; the one
///    with the most such days, and any other with at least a quarter as many (a change of job).
///    A lunch café every weekday is not work: it is frequent.
/// 5. **Frequent**: any other place visited on at least ``minimumFrequentDays`` (4) distinct days.
///
/// What the data says wins: a place with a visit marked `isWorkLocation` is work (never home),
/// and a place with a visit named "Home" is home (never work or frequent; when no nights are
/// known, it is the home).
///
/// **The person's word** (``Correction``, `pickerctl places set-home|set-work`) wins over the
/// votes. A declared home holds from its day on (local midnight; without a day, from the start) until
/// the next declared home's day; what the nights found holds only before the first declared home,
/// cut off there. Its visits are those within ``correctionRadius`` of where the person said; it is
/// named as they named it, else as its visits are. Once the person says where work is, that is work
/// (a place found by weekday hours becomes frequent if visited often enough), and its nights are no
/// home's. A place the data names "Home" is no longer kept from being frequent once the person has
/// said where home is. Declared places are marked ``Place/isPersonsWord``.
///
/// A place's name is the most common name its visits give (the person's own, from the export),
/// else the gazetteer's (`Gazetteer.name(latitude:longitude:)`: "Porto", "near Buckow"); its city
/// likewise. Days are distinct calendar days on which a visit was there. Days, nights and weekday
/// hours are reckoned in `timeZone`, or in a visit's own offset from UTC where the data gives one
/// (``LibraryItem/utcOffsetSeconds``: a trip abroad is lived in local time, so a hotel's nights are
/// nights, not a working day at home's clock).
public struct KnownPlaces: Sendable, Hashable {
    /// What a place is to the person.
    public enum Role: String, Sendable, Hashable {
        /// Where most nights are spent.
        case home
        /// Where weekday daytime is spent.
        case work
        /// Visited on many distinct days.
        case frequent
        /// Only named by the person (`pickerctl places name`): none of the above, never routine.
        case named
    }

    /// One known place.
    public struct Place: Sendable, Hashable {
        /// What the place is to the person.
        public var role: Role
        /// The place's own name (from the person's data), else the gazetteer's, else "".
        public var name: String
        /// The city it is in (the data's, else the gazetteer's nearest city), else "".
        public var city: String
        /// Its centre: the mean of its visits' coordinates.
        public var coordinate: Coordinate
        /// For a home (or a work the person dated): since when, ms since 1970 (moving house); `nil`:
        /// since the start.
        public var from: Int64?
        /// For a home (or a work the person dated): until when, ms since 1970; `nil`: it still is.
        public var until: Int64?
        /// On how many distinct days it was visited (for a home, within its from–until).
        public var days: Int
        /// Whether the person said so (`pickerctl places set-home|set-work`), rather than pickerd
        /// finding it in the visits.
        public var isPersonsWord: Bool
        /// Whether its name is the person's (`pickerctl places name`, the pickers' Name this place),
        /// though pickerd found the place.
        public var isPersonsName = false

        /// Creates a place.
        /// - Parameters:
        ///   - role: home, work or frequent.
        ///   - name: its name.
        ///   - city: its city.
        ///   - coordinate: its centre.
        ///   - from: home since, ms since 1970, or `nil`.
        ///   - until: home until, ms since 1970, or `nil`.
        ///   - days: distinct days visited.
        ///   - isPersonsWord: whether the person said so.
        public init(role: Role, name: String, city: String, coordinate: Coordinate, from: Int64? = nil, until: Int64? = nil, days: Int,
                    isPersonsWord: Bool = false) {
            self.role = role
            self.name = name
            self.city = city
            self.coordinate = coordinate
            self.from = from
            self.until = until
            self.days = days
            self.isPersonsWord = isPersonsWord
        }
    }

    /// The person's word on where home or work is (`pickerctl places set-home|set-work`), which wins
    /// over the votes of the visits, or on what a place is called (`pickerctl places name`).
    public struct Correction: Sendable, Hashable {
        /// ``Role/home`` or ``Role/work`` (a frequent place is not the person's to declare), or
        /// ``Role/named`` for a name alone.
        public var role: Role
        /// Where the place is: its visits are those within ``correctionRadius``.
        public var coordinate: Coordinate
        /// What the person calls it, or "" (then the visits' name, else the gazetteer's).
        public var name: String
        /// From which local day on it holds (days since 1970-01-01 in the person's time zone: a
        /// move); `nil`: from the start.
        public var fromDay: Int?

        /// Creates a correction.
        /// - Parameters:
        ///   - role: home or work.
        ///   - coordinate: where the place is.
        ///   - name: what the person calls it, or "".
        ///   - fromDay: from which local day on, or `nil`.
        public init(role: Role, coordinate: Coordinate, name: String = "", fromDay: Int? = nil) {
            self.role = role
            self.coordinate = coordinate
            self.name = name
            self.fromDay = fromDay
        }
    }

    /// The places: homes in time order, then work, then frequent places (most days first).
    public var places: [Place]

    /// Creates a list of known places.
    /// - Parameter places: the places.
    public init(places: [Place] = []) {
        self.places = places
    }

    /// How close a visit must be to a place's centre to be at that place, in metres.
    public static let clusterRadius = 125.0
    /// How many weekdays with ``workDayHours`` make a place work.
    public static let minimumWorkDays = 3
    /// How many hours between 09:00 and 17:00 on a weekday make it a work day there.
    public static let workDayHours = 3.0
    /// On how many distinct days a place must be visited to be frequent.
    public static let minimumFrequentDays = 4
    /// How many nights a week must have known (a stay covering 01:00–05:00) to say where home is.
    public static let nightsPerWeek = 3
    /// How many weeks in a row another place must be the week's home for the person to have moved.
    public static let weeksToMove = 2
    /// How long a stay elsewhere between two stretches at the same home may last and still be a
    /// holiday, not two moves, in weeks.
    public static let holidayWeeks = 5

    /// Known places from a library's Location items (visits), days reckoned in `timeZone`.
    /// - Parameters:
    ///   - items: the library, or any part of it; items other than Location visits with a
    ///     coordinate are ignored.
    ///   - timeZone: the person's time zone, for nights, weekdays and days (a visit's own offset from
    ///     UTC, where the data gives one, wins).
    /// - Returns: the places, as the type's documentation says they are found.
    public static func find(in items: [LibraryItem], timeZone: TimeZone) -> KnownPlaces {
        find(in: items, timeZone: timeZone, gazetteer: { Gazetteer.shared })
    }

    /// How far from a corrected place's coordinate its visits lie, in metres (as the engine's
    /// "at a known place").
    public static let correctionRadius = 150.0

    /// Known places from a library's visits, with the person's corrections winning over the votes
    /// (see the type's documentation, "The person's word").
    /// - Parameters:
    ///   - items: the library, or any part of it.
    ///   - timeZone: the person's time zone (also the zone of a correction's day).
    ///   - corrections: the person's word on home and work, any order.
    /// - Returns: the places: each the person declared marked ``Place/isPersonsWord``.
    public static func find(in items: [LibraryItem], timeZone: TimeZone, corrections: [Correction]) -> KnownPlaces {
        find(in: items, timeZone: timeZone, corrections: corrections, gazetteer: { Gazetteer.shared })
    }

    static func find(in items: [LibraryItem], timeZone: TimeZone, corrections: [Correction] = [], gazetteer: () -> Gazetteer?) -> KnownPlaces {
        var visits: [Visit] = []
        for item in items {
            guard case .location(let location) = item.asset, item.externalID != SuggestionBuilder.workoutPlaceTag else { continue }
            let coordinate = location.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) } ?? item.coordinate
            guard let coordinate, coordinate.latitude.isFinite, coordinate.longitude.isFinite else { continue }
            visits.append(Visit(startMs: item.startMs, endMs: max(item.startMs, item.endMs), coordinate: coordinate,
                                place: location.place.trimmingCharacters(in: .whitespaces),
                                city: location.city.trimmingCharacters(in: .whitespaces),
                                isWork: location.isWorkLocation == true, offset: item.utcOffsetSeconds))
        }
        guard !visits.isEmpty || !corrections.isEmpty else { return KnownPlaces() }
        visits.sort { ($0.startMs, $0.endMs, $0.coordinate.latitude, $0.coordinate.longitude) < ($1.startMs, $1.endMs, $1.coordinate.latitude, $1.coordinate.longitude) }

        let clusters = cluster(visits)
        let clock = LocalTime(timeZone: timeZone)
        // The person's word: the places they declared, and the visits' places within reach of them.
        let homeWords = corrections.filter { $0.role == .home }
        let workWords = corrections.filter { $0.role == .work }
        func near(_ words: [Correction]) -> Set<Int> {
            Set(clusters.indices.filter { c in words.contains { $0.coordinate.distance(to: clusters[c].centre) <= Self.correctionRadius } })
        }
        let declaredHome = near(homeWords), declaredWork = near(workWords).subtracting(declaredHome)
        let labelledHome = Set(clusters.indices.filter { clusters[$0].members.contains { Self.isHomeName(visits[$0].place) } })
            .subtracting(declaredWork)
        // A place the person calls work spends no night as home.
        let labelledWork = Set(clusters.indices.filter { c in !labelledHome.contains(c) && clusters[c].members.contains { visits[$0].isWork } })
            .union(declaredWork)

        // What each cluster's visits covered: days, nights (01–05) and weekday work hours (09–17).
        var days = [Set<Int>](repeating: [], count: clusters.count)
        var nightCover: [Int: [Int: Int64]] = [:]          // night (its evening's day) → cluster → ms covered
        var nightVisit: [Int: [Int: Int]] = [:]            // night → cluster → the visit covering most
        var workCover = [[Int: Int64]](repeating: [:], count: clusters.count)  // cluster → weekday → ms
        for (c, cluster) in clusters.enumerated() {
            for v in cluster.members {
                let visit = visits[v]
                let first = clock.day(visit.startMs, offset: visit.offset), last = clock.day(max(visit.startMs, visit.endMs - 1), offset: visit.offset)
                for day in first...min(last, first + 3_660) {
                    days[c].insert(day)
                    let window = (clock.ms(day: day, hour: 1, offset: visit.offset), clock.ms(day: day, hour: 5, offset: visit.offset))
                    let night = overlap(visit, window.0, window.1)
                    if night > 0, !labelledWork.contains(c) {
                        // The night of Sunday to Monday is Sunday's: it is keyed by the evening's day.
                        nightCover[day - 1, default: [:]][c, default: 0] += night
                        if nightVisit[day - 1]?[c].map({ overlap(visits[$0], window.0, window.1) < night }) ?? true {
                            nightVisit[day - 1, default: [:]][c] = v
                        }
                    }
                    if Self.isWeekday(day) {
                        let work = overlap(visit, clock.ms(day: day, hour: 9, offset: visit.offset), clock.ms(day: day, hour: 17, offset: visit.offset))
                        if work > 0 { workCover[c][day, default: 0] += work }
                    }
                }
            }
        }

        // Each night's place, then each week's home.
        var nightPlace: [Int: Int] = [:]
        for (day, cover) in nightCover {
            nightPlace[day] = cover.max { ($0.value, labelledHome.contains($0.key) ? 1 : 0, -$0.key) < ($1.value, labelledHome.contains($1.key) ? 1 : 0, -$1.key) }?.key
        }
        var weekNights: [Int: [Int: Int]] = [:]
        for (day, c) in nightPlace { weekNights[Self.week(day), default: [:]][c, default: 0] += 1 }
        // A week says where home is only with a few nights known in it (a weekend in a hotel at the
        // end of a history that has no nights otherwise is not a home); where the data names a home,
        // it is home unless the nights say otherwise for weeks (``weeksToMove``).
        let voting = weekNights.filter { $0.value.values.reduce(0, +) >= Self.nightsPerWeek }
        let weeks = voting.keys.sorted().map { week -> (week: Int, home: Int) in
            let counts = voting[week]!
            let home = counts.max { ($0.value, labelledHome.contains($0.key) ? 1 : 0, -$0.key) < ($1.value, labelledHome.contains($1.key) ? 1 : 0, -$1.key) }!.key
            return (week, home)
        }
        var periods = homePeriods(weeks)
        if !labelledHome.isEmpty, periods.count == 1, !labelledHome.contains(periods[0].cluster),
           weeks.count < Self.weeksToMove {
            periods = []
        }

        var places: [Place] = []
        var homes = Set<Int>()
        var homeClusters: [Int] = []  // the found homes' places, as `places` holds them
        for (index, period) in periods.enumerated() {
            let c = period.cluster
            // The nights this period holds at its home: from the first to the last.
            let nights = nightPlace.filter { $0.value == c && Self.week($0.key) >= period.firstWeek && Self.week($0.key) <= period.lastWeek }.keys.sorted()
            let arrival = index == 0 ? nil : nights.first.flatMap { nightVisit[$0]?[c] }.map { visits[$0] }
            let leaving = index == periods.count - 1 ? nil : nights.last.flatMap { nightVisit[$0]?[c] }.map { visits[$0] }
            let from = arrival?.startMs, until = leaving?.endMs
            let lowDay = arrival.map { clock.day($0.startMs, offset: $0.offset) } ?? Int.min
            let highDay = leaving.map { clock.day(max($0.startMs, $0.endMs - 1), offset: $0.offset) } ?? Int.max
            homeClusters.append(c)
            places.append(place(.home, clusters[c], visits, days: days[c].filter { $0 >= lowDay && $0 <= highDay }.count,
                                from: from, until: until, gazetteer: gazetteer))
        }
        if periods.isEmpty, let c = labelledHome.max(by: { (days[$0].count, -$0) < (days[$1].count, -$1) }) {
            homeClusters.append(c)
            places.append(place(.home, clusters[c], visits, days: days[c].count, gazetteer: gazetteer))
        }
        /// Each correction with when it holds: from its day (local midnight) until the next one's.
        func spans(_ words: [Correction]) -> [(word: Correction, from: Int64?, until: Int64?)] {
            let sorted = Dictionary(words.map { ($0.fromDay, $0) }, uniquingKeysWith: { _, last in last })
                .values.sorted { ($0.fromDay ?? .min) < ($1.fromDay ?? .min) }
            let starts = sorted.map { $0.fromDay.map { clock.ms(day: $0, hour: 0) } }
            return sorted.indices.map { (sorted[$0], starts[$0], $0 + 1 < sorted.count ? starts[$0 + 1] : nil) }
        }
        /// A declared place: where the person said, named as they said (else as its visits are),
        /// with the days its visits saw within when it holds.
        func declared(_ role: Role, _ span: (word: Correction, from: Int64?, until: Int64?)) -> (Place, [Int]) {
            let matched = clusters.indices.filter { span.word.coordinate.distance(to: clusters[$0].centre) <= Self.correctionRadius }
            let lowDay = span.word.fromDay ?? .min, highDay = span.until.map { clock.day($0 - 1) } ?? .max
            let seen = matched.reduce(into: Set<Int>()) { $0.formUnion(days[$1].filter { $0 >= lowDay && $0 <= highDay }) }
            var found = place(role, matched.flatMap { clusters[$0].members }, centre: span.word.coordinate, visits, days: seen.count,
                              from: span.from, until: span.until, gazetteer: gazetteer)
            if !span.word.name.isEmpty { found.name = span.word.name }
            found.isPersonsWord = true
            return (found, matched)
        }
        if homeWords.isEmpty {
            homes = Set(homeClusters)
        } else {
            // The person's homes hold from their days on, each until the next; what was found holds
            // only before the first (none of it when one has no day).
            let declaredSpans = spans(homeWords)
            let cutoff = declaredSpans[0].from ?? .min
            var kept: [Place] = []
            for (index, found) in places.enumerated() where (found.from ?? .min) < cutoff {
                var found = found
                if (found.until ?? .max) > cutoff {
                    // Cut off at the person's first day: its days are those before it.
                    let lowDay = found.from.map { clock.day($0) } ?? .min, cutoffDay = clock.day(cutoff)
                    found.until = cutoff
                    found.days = days[homeClusters[index]].filter { $0 >= lowDay && $0 < cutoffDay }.count
                }
                kept.append(found)
                homes.insert(homeClusters[index])
            }
            places = kept
            for span in declaredSpans {
                let (home, matched) = declared(.home, span)
                homes.formUnion(matched)
                places.append(home)
            }
        }
        // A place the data names Home is never work or frequent, unless the person said where home is.
        let namedHome = homeWords.isEmpty ? labelledHome : []

        // Work: weekday daytime, or what the data calls work; what the person says, when they did.
        let workDays = clusters.indices.map { c in workCover[c].values.filter { Double($0) >= Self.workDayHours * Double(LocalTime.hourMs) }.count }
        var works = Set<Int>()
        if workWords.isEmpty {
            let candidates = clusters.indices.filter { !homes.contains($0) && !namedHome.contains($0) && workDays[$0] >= Self.minimumWorkDays }
            let most = candidates.map { workDays[$0] }.max() ?? 0
            works = Set(candidates.filter { workDays[$0] * 4 >= most }).union(labelledWork.subtracting(homes))
            works.subtract(namedHome)
            for c in works.sorted(by: { (workDays[$0], days[$0].count, -$0) > (workDays[$1], days[$1].count, -$1) }) {
                places.append(place(.work, clusters[c], visits, days: days[c].count, gazetteer: gazetteer))
            }
        } else {
            for span in spans(workWords) {
                let (work, matched) = declared(.work, span)
                works.formUnion(matched)
                places.append(work)
            }
        }

        // Frequent: many distinct days, neither home nor work.
        let frequent = clusters.indices.filter {
            !homes.contains($0) && !works.contains($0) && !namedHome.contains($0) && days[$0].count >= Self.minimumFrequentDays
        }
        places += frequent.map { place(.frequent, clusters[$0], visits, days: days[$0].count, gazetteer: gazetteer) }
            .sorted { ($0.days, $1.name, $1.coordinate.latitude) > ($1.days, $0.name, $0.coordinate.latitude) }
        return KnownPlaces(places: named(places, by: PersonsNames(corrections), clusters: clusters, days: days, gazetteer: gazetteer))
    }

    /// The places with the person's names (``PersonsNames``) winning: a listed place within reach
    /// of a name is called by it; a name no listed place is near is a place of its own
    /// (``Role/named``), after the others, with the days its visits were there.
    static func named(_ places: [Place], by names: PersonsNames, clusters: [Cluster], days: [Set<Int>], gazetteer: () -> Gazetteer?) -> [Place] {
        guard !names.isEmpty else { return places }
        var places = places
        var used = Set<Int>()
        for index in places.indices {
            guard let (n, name) = names.nearest(to: places[index].coordinate) else { continue }
            places[index].name = name.name
            places[index].isPersonsName = true
            used.insert(n)
        }
        for (n, name) in names.names.enumerated() where !used.contains(n) {
            let near = clusters.indices.filter { clusters[$0].centre.distance(to: name.coordinate) <= correctionRadius }
            let city = gazetteer()?.name(latitude: name.coordinate.latitude, longitude: name.coordinate.longitude)?.city.name ?? ""
            places.append(Place(role: .named, name: name.name, city: city, coordinate: name.coordinate,
                                days: near.reduce(into: Set<Int>()) { $0.formUnion(days[$1]) }.count, isPersonsWord: true))
        }
        return places
    }

    // MARK: Clustering

    struct Visit {
        var startMs: Int64
        var endMs: Int64
        var coordinate: Coordinate
        var place: String
        var city: String
        var isWork: Bool
        /// The visit's own offset from UTC, when the data gives it (a trip abroad).
        var offset: Int32?
    }

    struct Cluster {
        var seed: Coordinate
        var latitudeSum = 0.0
        var longitudeSum = 0.0
        var members: [Int] = []
        var centre: Coordinate { Coordinate(latitude: latitudeSum / Double(members.count), longitude: longitudeSum / Double(members.count)) }
    }

    /// Visits grouped into places: each joins the nearest place whose centre is within
    /// ``clusterRadius``, else starts one. Places are found through a grid of their seeds (the first
    /// visit's coordinate) in cells larger than a centre can drift, searched 3 × 3.
    static func cluster(_ visits: [Visit]) -> [Cluster] {
        var clusters: [Cluster] = []
        var grid: [Cell: [Int]] = [:]
        for (v, visit) in visits.enumerated() {
            let cell = Cell(visit.coordinate)
            var best: (index: Int, distance: Double)?
            for dr in -1...1 {
                for dc in -1...1 {
                    for c in grid[Cell(row: cell.row + dr, column: cell.column + dc)] ?? [] {
                        let d = clusters[c].centre.distance(to: visit.coordinate)
                        if d <= clusterRadius, best.map({ d < $0.distance }) ?? true { best = (c, d) }
                    }
                }
            }
            let c: Int
            if let best { c = best.index } else {
                c = clusters.count
                clusters.append(Cluster(seed: visit.coordinate))
                grid[cell, default: []].append(c)
            }
            clusters[c].members.append(v)
            clusters[c].latitudeSum += visit.coordinate.latitude
            clusters[c].longitudeSum += visit.coordinate.longitude
        }
        return clusters
    }

    /// A grid cell of about 440 m (1/250 of a degree of latitude; longitude scaled by the row's
    /// latitude): a centre stays within 2 × ``clusterRadius`` of its seed, so a visit within the
    /// radius of a centre lies in its seed's cell or a neighbour.
    struct Cell: Hashable {
        var row: Int
        var column: Int
        static let size = 1.0 / 250
        init(row: Int, column: Int) { self.row = row; self.column = column }
        init(_ c: Coordinate) {
            row = Int((c.latitude / Self.size).rounded(.down))
            let scale = max(0.05, cos((Double(row) + 0.5) * Self.size * .pi / 180))
            column = Int((c.longitude * scale / Self.size).rounded(.down))
        }
    }

    // MARK: Home periods

    struct Period: Equatable {
        var cluster: Int
        var firstWeek: Int
        var lastWeek: Int
    }

    /// Homes over time from each week's home (weeks in order): a run of at least ``weeksToMove``
    /// weeks with the same home establishes it; shorter runs (a week away) belong to the home around
    /// them. Without any established run, the week's home most often is the one home.
    static func homePeriods(_ weeks: [(week: Int, home: Int)]) -> [Period] {
        guard !weeks.isEmpty else { return [] }
        var runs: [(cluster: Int, first: Int, last: Int, count: Int)] = []
        for (week, home) in weeks {
            if let last = runs.last, last.cluster == home {
                runs[runs.count - 1].last = week
                runs[runs.count - 1].count += 1
            } else {
                runs.append((home, week, week, 1))
            }
        }
        var established = runs.filter { $0.count >= weeksToMove }
        // A holiday is not a move: a stay elsewhere shorter than ``holidayWeeks`` between two
        // stretches at the same home belongs to that home.
        var index = 1
        while index + 1 < established.count {
            if established[index - 1].cluster == established[index + 1].cluster && established[index].count < holidayWeeks {
                established.remove(at: index)
            } else {
                index += 1
            }
        }
        guard !established.isEmpty else {
            var counts: [Int: Int] = [:]
            for (_, home) in weeks { counts[home, default: 0] += 1 }
            let home = counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key
            return [Period(cluster: home, firstWeek: weeks.first!.week, lastWeek: weeks.last!.week)]
        }
        var periods: [Period] = []
        for run in established {
            if let last = periods.last, last.cluster == run.cluster {
                periods[periods.count - 1].lastWeek = run.last
            } else {
                periods.append(Period(cluster: run.cluster, firstWeek: run.first, lastWeek: run.last))
            }
        }
        // Short runs before the first home and after the last belong to them.
        periods[0].firstWeek = weeks.first!.week
        periods[periods.count - 1].lastWeek = weeks.last!.week
        return periods
    }

    // MARK: Naming

    static func isHomeName(_ name: String) -> Bool {
        name.compare("Home", options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
    }

    static func place(_ role: Role, _ cluster: Cluster, _ visits: [Visit], days: Int, from: Int64? = nil, until: Int64? = nil,
                      gazetteer: () -> Gazetteer?) -> Place {
        place(role, cluster.members, centre: cluster.centre, visits, days: days, from: from, until: until, gazetteer: gazetteer)
    }

    /// A place from its visits (`members`, indices into `visits`), at `centre`: named by its
    /// visits' most common name and city, else by the gazetteer.
    static func place(_ role: Role, _ members: [Int], centre: Coordinate, _ visits: [Visit], days: Int, from: Int64? = nil,
                      until: Int64? = nil, gazetteer: () -> Gazetteer?) -> Place {
        func mostCommon(_ names: [String]) -> String? {
            var counts: [String: Int] = [:]
            for name in names where !name.isEmpty { counts[name, default: 0] += 1 }
            return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        }
        var name = mostCommon(members.map { visits[$0].place })
        var city = mostCommon(members.map { visits[$0].city })
        if name == nil || city == nil, let named = gazetteer()?.name(latitude: centre.latitude, longitude: centre.longitude) {
            name = name ?? named.place
            city = city ?? named.city.name
        }
        return Place(role: role, name: name ?? "", city: city ?? "", coordinate: centre, from: from, until: until, days: days)
    }

    static func overlap(_ visit: Visit, _ from: Int64, _ to: Int64) -> Int64 {
        max(0, min(visit.endMs, to) - max(visit.startMs, from))
    }

    /// Monday to Friday (1970-01-01, day 0, was a Thursday).
    static func isWeekday(_ day: Int) -> Bool { ((day + 3) % 7 + 7) % 7 < 5 }

    /// The Monday-to-Sunday week a day is in (week 0 begins on Monday 1970-01-05).
    static func week(_ day: Int) -> Int { day - 4 >= 0 ? (day - 4) / 7 : (day - 4 - 6) / 7 }
}

extension KnownPlaces.Correction {
    /// The engine's form of a stored correction.
    /// - Parameter stored: a correction the person made.
    public init(_ stored: StoredPlaceCorrection) {
        let role: KnownPlaces.Role = switch stored.role {
        case .home: .home
        case .work: .work
        case .name: .named
        }
        self.init(role: role, coordinate: stored.coordinate, name: stored.name, fromDay: stored.role == .name ? nil : stored.fromDay)
    }
}

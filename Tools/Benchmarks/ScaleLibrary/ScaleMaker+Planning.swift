import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

extension ScaleMaker {
    // MARK: Random helpers

    mutating func chance(_ p: Double) -> Bool { g.double(0...1) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[g.int(0...items.count - 1)] }
    mutating func between(_ a: Double, _ b: Double) -> Double { g.double(a...b) }
    /// An hour between `from` and `to` when the person is up and about that day (or as near as it gets).
    mutating func awake(_ day: Day, _ from: Double, _ to: Double) -> Double {
        let low = min(max(from, day.awakeFrom), day.awakeTo)
        return between(low, max(low, min(to, day.awakeTo)))
    }

    // MARK: Planning

    mutating func plan() {
        let endDate = Int(Civil.floorDiv(Civil.floorDiv(endingAtMs, 1000)
                                             + Int64(ScaleCast.homeZone.offset(atUTC: Civil.floorDiv(endingAtMs, 1000))), 86_400))
        let lastDate = endDate - 1
        let end = Civil.date(endDate)
        let firstDate = Civil.days(year: end.year - years, month: end.month, day: end.day)
        planTrips(firstDate: firstDate, lastDate: lastDate)
        // The first twelve people are there from the start; the others come into the person's life over the years.
        introDates = ScaleCast.contacts.indices.map { i in
            i < 12 ? firstDate + g.int(0...40) : g.int(firstDate...max(firstDate, lastDate - 30))
        }
        // A scanning evening or two a year.
        var scanDates: [Int] = []
        for year in 0..<years {
            for _ in 0..<g.int(1...2) { scanDates.append(firstDate + year * 365 + g.int(20...340)) }
        }
        scanDates.sort()
        var scanCursor = 0

        var date = firstDate, tripIndex = 0
        var arrival: Double?
        while date <= lastDate {
            let week = Civil.floorDiv(Int64(date - 4), 7)  // weeks from Monday 5 January 1970
            if Int(week) != plannedWeek {
                plannedWeek = Int(week)
                planWeek(month: Civil.date(date).month)
            }
            if arrival == nil, tripIndex < trips.count, trips[tripIndex].depart == date {
                let back = planTrip(tripIndex)
                tripIndex += 1
                date = back.date
                arrival = back.hour
                continue
            }
            var day = planHome(date, arrival: arrival)
            arrival = nil
            if scanCursor < scanDates.count, scanDates[scanCursor] <= date, day.context == .home, (day.night?.start ?? 24) < 20.5 {
                day.scan = (between(20.5, 21.5), scanSessions.count)
                scanSessions.append(Cluster(weight: between(0.5, 1.5), gps: false))
                scanCursor += 1
            }
            finish(&day)
            date += 1
        }
        for i in days.indices.dropLast() where days[i + 1].date == days[i].date { days[i].lastOfDate = false }
        allocate()
    }

    /// Three or four trips abroad a year, spread over it.
    mutating func planTrips(firstDate: Int, lastDate: Int) {
        var order = Array(ScaleCast.destinations.indices).shuffled(using: &g.random)
        var next = 0
        for year in 0..<years {
            let from = firstDate + year * 365 + 12
            let to = min(firstDate + (year + 1) * 365 - 12, lastDate - 14)
            guard to - from > 60 else { continue }
            let count = g.int(3...4)
            let segment = (to - from) / count
            for k in 0..<count {
                let length = g.int(3...9)
                let low = from + k * segment, high = low + segment - length - 5
                guard high > low else { continue }
                if next == order.count {
                    order.shuffle(using: &g.random)
                    next = 0
                }
                trips.append(ScalePlan.Trip(depart: g.int(low...high), destination: order[next], length: length))
                next += 1
            }
        }
    }

    /// Which days of the coming week have a workout, and which.
    mutating func planWeek(month: Int) {
        let winter = month == 12 || month <= 2
        weekSports = Array(repeating: nil, count: 7)
        let sessions = chance(0.55) ? 3 : 4
        for weekday in Array(0..<7).shuffled(using: &g.random).prefix(sessions) {
            let r = g.double(0...1)
            if weekday == 0 || weekday == 6 {
                weekSports[weekday] = r < 0.4 ? (winter && r < 0.2 ? .walk : .hike) : r < 0.65 ? (winter ? .run : .ride) : r < 0.9 ? .run : .yoga
            } else {
                weekSports[weekday] = r < 0.55 ? .run : r < 0.8 ? .walk : r < 0.95 ? .yoga : (winter ? .yoga : .ride)
            }
        }
    }

    /// A camera cluster: more photos outdoors in summer, fewer in winter, and unevenly (some
    /// outings are photographed a lot).
    mutating func cluster(_ weight: Double, date: Int, outdoor: Bool = true) -> Int {
        let month = Civil.date(date).month
        let season = !outdoor ? 1.0 : (6...9).contains(month) ? 1.25 : (month == 12 || month <= 2) ? 0.8 : 1.0
        camera.append(Cluster(weight: weight * season * exp(g.double(-1...1) * 0.9), gps: chance(0.93)))
        return camera.count - 1
    }

    /// Up to three friends, close ones more often, among the people the person knows by `date`.
    mutating func friends(_ date: Int, max most: Int) -> [Int] {
        let known = introDates.indices.filter { introDates[$0] <= date }
        guard !known.isEmpty else { return [] }
        var chosen: [Int] = []
        for _ in 0..<g.int(1...most) {
            let total = known.reduce(0.0) { $0 + 1 / (1 + 0.35 * Double($1)) }
            var r = g.double(0...total)
            for i in known {
                r -= 1 / (1 + 0.35 * Double(i))
                if r <= 0 {
                    if !chosen.contains(i) { chosen.append(i) }
                    break
                }
            }
        }
        return chosen
    }

    /// Screenshots, introductions, and the day goes in the plan.
    mutating func finish(_ day: inout Day) {
        let r = g.double(0...1)
        let events = r < 0.4 ? 0 : r < 0.75 ? 1 : r < 0.95 ? 2 : 3
        for _ in 0..<events {
            day.screenshots.append((between(day.awakeFrom, max(day.awakeFrom, day.awakeTo - 0.1)), shotEvents.count))
            shotEvents.append(Cluster(weight: exp(g.double(-1...1) * 0.8), gps: false))
        }
        if days.last?.date != day.date {
            day.intros = introDates.indices.filter { introDates[$0] == day.date }
        }
        days.append(day)
    }

    /// A day in Portland, or the evening of one after a trip.
    mutating func planHome(_ date: Int, arrival: Double?) -> Day {
        let offset = ScaleCast.homeZone.offset(atNoonOf: date)
        let weekday = Civil.weekday(date)
        let month = Civil.date(date).month
        let summer = (5...9).contains(month)
        if let arrival {
            var day = Day(date: date, offset: offset, context: .arrival, morning: arrival, awakeFrom: arrival,
                          awakeTo: max(arrival + 0.5, 23.5))
            day.visits.append(Visit(place: ScaleCast.airport, start: arrival, end: min(arrival + 0.6, 23.8)))
            day.night = (ScaleCast.home, min(arrival + 1.3, 23.9))
            return day
        }
        let weekend = weekday == 0 || weekday == 6
        let dayOff = !weekend && chance(0.03)
        var day = Day(date: date, offset: offset, context: .home, workday: !weekend && !dayOff, weekend: weekend || dayOff,
                      morning: 7.5, awakeFrom: 7.0, awakeTo: 23.2)
        let sport = weekSports[weekday]
        var homeAt: Double

        func session(_ sport: ScalePlan.Sport, _ place: Place?, _ start: Double, _ minutes: Double, weight: Double, photos p: Double) {
            day.sessions.append(ScalePlan.Session(sport: sport, start: start, minutes: minutes, place: place))
            if let place {
                let photographed = chance(p)
                day.visits.append(Visit(place: place, start: start, end: start + minutes / 60,
                                        cluster: photographed ? cluster(weight, date: date) : nil))
            }
        }

        if day.workday {
            if sport == .run {
                let start = between(6.2, 6.7)
                session(.run, pick(ScaleCast.runs), start, Double(g.int(25...55)), weight: 0.15, photos: 0.4)
                day.morning = start - 0.05
                day.awakeFrom = start - 0.3
            } else {
                day.morning = between(8.1, 8.5)
                day.awakeFrom = 6.8
            }
            let officeStart = between(8.8, 9.3), officeEnd = between(17.2, 17.8)
            let officeCluster: Int? = chance(0.05) ? cluster(0.15, date: date, outdoor: false) : nil
            if chance(0.2) {
                let lunch = between(12.1, 12.5)
                day.visits.append(Visit(place: ScaleCast.office, start: officeStart, end: lunch - 0.1, cluster: officeCluster))
                day.visits.append(Visit(place: pick(ScaleCast.lunchSpots), start: lunch, end: lunch + between(0.6, 0.9),
                                        cluster: chance(0.3) ? cluster(0.2, date: date, outdoor: false) : nil,
                                        friends: chance(0.3) ? friends(date, max: 1) : []))
                day.visits.append(Visit(place: ScaleCast.office, start: lunch + 0.95, end: officeEnd))
            } else {
                day.visits.append(Visit(place: ScaleCast.office, start: officeStart, end: officeEnd, cluster: officeCluster))
            }
            homeAt = officeEnd + between(0.4, 0.6)
            switch sport {
            case .walk, .hike:
                let start = homeAt + 0.3
                session(.walk, pick(ScaleCast.walks), start, Double(g.int(35...70)), weight: 0.5, photos: 0.5)
                homeAt = day.visits.last!.end + 0.25
            case .ride:
                let start = homeAt + 0.2
                session(.ride, pick(ScaleCast.rides), start, Double(g.int(45...90)), weight: 0.4, photos: 0.4)
                homeAt = day.visits.last!.end + 0.3
            case .yoga:
                day.sessions.append(ScalePlan.Session(sport: .yoga, start: homeAt + 0.5, minutes: Double(g.int(30...60)), place: nil))
            case .run, nil:
                break
            }
            if homeAt < 18.9, chance(0.2) {
                let start = between(19.0, 19.4)
                day.visits.append(Visit(place: pick(ScaleCast.restaurants), start: start, end: start + between(1.4, 2.4),
                                        cluster: cluster(0.8, date: date, outdoor: false),
                                        friends: chance(0.8) ? friends(date, max: 3) : [], moodChance: 0.35))
                homeAt = day.visits.last!.end + 0.3
            } else if homeAt < 18.9, chance(summer ? 0.12 : 0.05) {
                let place = pick(ScaleCast.afternoons)
                day.visits.append(Visit(place: place, start: homeAt, end: homeAt + between(0.6, 1.3),
                                        cluster: cluster(place.scene == .indoor ? 0.3 : 0.9, date: date), moodChance: 0.2))
                homeAt = day.visits.last!.end + 0.3
            }
        } else {
            // A weekend (or a day off): out in the morning, an outing, maybe dinner.
            var t = between(9.0, 10.0)
            day.morning = t
            day.awakeFrom = t - 1.5
            if chance(summer ? 0.12 : 0.04) {
                let places = pick(ScaleCast.dayTrips)
                let first = Visit(place: places[0], start: t + 1.6, end: t + between(4.0, 5.0), cluster: cluster(2.5, date: date),
                                  friends: chance(0.4) ? friends(date, max: 2) : [], moodChance: 0.5)
                day.visits.append(first)
                if sport == .hike || sport == .walk || sport == .run {
                    day.sessions.append(ScalePlan.Session(sport: .hike, start: first.start + 0.2,
                                                          minutes: ((first.end - first.start - 0.4) * 60).rounded(), place: places[0]))
                }
                t = first.end + 0.4
                if places.count > 1 {
                    day.visits.append(Visit(place: places[1], start: t, end: t + between(1.5, 2.5), cluster: cluster(2.0, date: date),
                                            friends: first.friends))
                    t = day.visits.last!.end
                }
                homeAt = t + between(1.5, 2.5)
            } else {
                switch sport {
                case .hike:
                    session(.hike, pick(ScaleCast.trails), t, Double(g.int(120...240)), weight: 2.0, photos: 1)
                    t = day.visits.last!.end + 0.5
                case .ride:
                    session(.ride, pick(ScaleCast.rides), t, Double(g.int(60...150)), weight: 0.4, photos: 0.5)
                    t = day.visits.last!.end + 0.5
                case .run:
                    session(.run, pick(ScaleCast.runs), t, Double(g.int(40...75)), weight: 0.15, photos: 0.4)
                    t = day.visits.last!.end + 0.5
                case .walk, .yoga, nil:
                    break
                }
                if t < 11.5, chance(0.4) {
                    day.visits.append(Visit(place: pick(ScaleCast.cafes), start: t + 0.2, end: t + between(0.9, 1.4),
                                            cluster: chance(0.6) ? cluster(0.4, date: date, outdoor: false) : nil,
                                            friends: chance(0.4) ? friends(date, max: 2) : []))
                    t = day.visits.last!.end + 0.3
                }
                if sport == .walk {
                    let start = max(t, between(13.5, 15.0))
                    session(.walk, pick(ScaleCast.walks), start, Double(g.int(40...90)), weight: 1.2, photos: 0.8)
                    t = day.visits.last!.end + 0.3
                } else if chance(summer ? 0.75 : 0.5) {
                    let place = weekday == 6 && chance(0.3) ? ScaleCast.market : pick(ScaleCast.afternoons)  // Saturday: the market
                    let start = max(t, between(13.0, 14.5))
                    let weight = place.scene == .indoor ? 0.3 : place.scene == .city ? 1.0 : 1.5
                    day.visits.append(Visit(place: place, start: start, end: start + between(1.0, 2.5), cluster: cluster(weight, date: date),
                                            friends: chance(0.25) ? friends(date, max: 2) : [], moodChance: 0.2))
                    t = day.visits.last!.end + 0.3
                }
                if sport == .yoga {
                    day.sessions.append(ScalePlan.Session(sport: .yoga, start: max(t, 17.0), minutes: Double(g.int(45...75)), place: nil))
                    t = max(t, 17.0) + 1.3
                }
                homeAt = max(t, between(17.0, 18.5))
                if day.visits.isEmpty { day.morning = homeAt }  // a day at home
            }
            if homeAt < 18.9, chance(0.35) {
                let start = between(19.0, 19.5)
                day.visits.append(Visit(place: pick(ScaleCast.restaurants), start: start, end: start + between(1.5, 2.5),
                                        cluster: cluster(0.8, date: date, outdoor: false),
                                        friends: chance(0.7) ? friends(date, max: 3) : [], moodChance: 0.35))
                homeAt = day.visits.last!.end + 0.3
            }
        }
        homeAt = min(homeAt, 23.5)
        day.night = (ScaleCast.home, homeAt)
        if homeAt < 21.5, chance(0.3) {
            day.shoots.append(ScalePlan.Shoot(place: ScaleCast.home, start: homeAt + 0.3, end: min(23.4, homeAt + 2.5),
                                              cluster: cluster(0.35, date: date, outdoor: false)))
        }
        return day
    }

    /// The morning of a departure, every day abroad, and when the person is home again.
    mutating func planTrip(_ index: Int) -> (date: Int, hour: Double) {
        let trip = trips[index]
        let destination = ScaleCast.destinations[trip.destination]
        let homeOffset = ScaleCast.homeZone.offset(atNoonOf: trip.depart)
        var departure = Day(date: trip.depart, offset: homeOffset, context: .departure, morning: 4.6, awakeFrom: 4.4, awakeTo: 7.0)
        departure.visits.append(Visit(place: ScaleCast.airport, start: 5.2, end: 7.0))
        finish(&departure)

        let departUTC = Int64(trip.depart) * 86_400 - Int64(homeOffset) + 7 * 3600 + 900
        let arriveUTC = departUTC + Int64(destination.flightHours * 3600)
        let arriveLocal = arriveUTC + Int64(destination.zone.offset(atUTC: arriveUTC))
        let firstDate = max(trip.depart, Int(Civil.floorDiv(arriveLocal, 86_400)))
        let arrival = Double(arriveLocal - Int64(firstDate) * 86_400) / 3600
        var sights = destination.sights.shuffled(using: &g.random)
        let food = destination.food.shuffled(using: &g.random)
        var nextSight = 0, nextFood = 0
        func sight() -> Place {
            defer { nextSight += 1 }
            if nextSight % sights.count == 0 && nextSight > 0 { sights.shuffle(using: &g.random) }
            return sights[nextSight % sights.count]
        }
        func meal() -> Place {
            defer { nextFood += 1 }
            return food[nextFood % food.count]
        }

        var lastDate = firstDate, lastOffset = homeOffset
        for k in 0..<trip.length {
            let date = firstDate + k
            let offset = destination.zone.offset(atNoonOf: date)
            let last = k == trip.length - 1
            var day = Day(date: date, offset: offset, context: last ? .tripEnd(index) : .trip(index), weekend: true,
                          morning: 8.5, awakeFrom: 7.5, awakeTo: 23.0)
            var t: Double
            if k == 0 {
                day.morning = arrival
                day.awakeFrom = arrival
                day.awakeTo = max(23.0, arrival + 1)
                day.visits.append(Visit(place: destination.airport, start: arrival, end: arrival + 0.75))
                t = max(arrival + 1.5, 8.5)
                if t - arrival > 2.5 {  // an early arrival: a rest at the hotel first
                    day.visits.append(Visit(place: destination.hotel, start: arrival + 1.2, end: t - 0.25))
                }
            } else {
                day.morning = between(8.3, 9.5)
                day.awakeFrom = day.morning - 1
                t = day.morning + 0.3
                if !last, chance(0.2) {
                    let place = sights.first { $0.scene == .park || $0.scene == .river } ?? sights[0]
                    let start = between(6.8, 7.3)
                    day.sessions.append(ScalePlan.Session(sport: .run, start: start, minutes: Double(g.int(25...45)), place: place))
                    day.visits.append(Visit(place: place, start: start, end: start + day.sessions[0].minutes / 60,
                                            cluster: chance(0.5) ? cluster(0.2, date: date) : nil, stop: true))
                    day.morning = start - 0.1
                    day.awakeFrom = start - 0.4
                }
            }
            if last {
                let start = max(t, 9.0)
                if start < 10.5 {
                    let place = sight()
                    day.visits.append(Visit(place: place, start: start, end: start + between(1.3, 1.8),
                                            cluster: cluster(2.0, date: date), stop: true))
                }
                day.visits.append(Visit(place: destination.airport, start: 11.75, end: 13.6))
                day.awakeTo = 14.0
                lastDate = date
                lastOffset = offset
            } else {
                if t <= 10.5 {
                    let start = max(t, 9.2)
                    day.visits.append(Visit(place: sight(), start: start, end: start + between(2.0, 2.8),
                                            cluster: cluster(3.5, date: date), moodChance: 0.2, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                if t <= 12.8 {
                    let start = max(t, 12.3)
                    day.visits.append(Visit(place: meal(), start: start, end: start + between(1.0, 1.4),
                                            cluster: cluster(1.0, date: date, outdoor: false), stop: true))
                    t = day.visits.last!.end + 0.25
                }
                if t <= 16.0 {
                    let start = max(t, 14.0)
                    day.visits.append(Visit(place: sight(), start: start, end: start + between(2.0, 3.3),
                                            cluster: cluster(3.5, date: date), moodChance: 0.3, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                if t <= 20.0 {
                    let start = max(t + 0.5, between(19.3, 19.8))
                    day.visits.append(Visit(place: meal(), start: start, end: start + between(1.5, 2.0),
                                            cluster: cluster(1.0, date: date, outdoor: false), moodChance: 0.25, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                day.night = (destination.hotel, max(t, between(21.6, 22.3)))
            }
            finish(&day)
        }
        // The flight home leaves at two in the afternoon, local time.
        let leaveUTC = Int64(lastDate) * 86_400 - Int64(lastOffset) + 14 * 3600
        let homeUTC = leaveUTC + Int64(destination.flightHours * 3600)
        let homeLocal = homeUTC + Int64(ScaleCast.homeZone.offset(atUTC: homeUTC))
        let homeDate = max(lastDate, Int(Civil.floorDiv(homeLocal, 86_400)))
        let hour = max(0, Double(homeLocal - Int64(homeDate) * 86_400) / 3600)
        return (homeDate, min(hour, 23.0))
    }

    /// Spreads the photos: about 5 % screenshots, a few scans, the rest over the camera clusters by
    /// weight; then a burst in about 3 % of the clusters big enough for one.
    mutating func allocate() {
        let scans = photos >= 200 && !scanSessions.isEmpty ? max(2, photos / 250) : 0
        let shots = shotEvents.isEmpty ? 0 : Int((Double(photos) * 0.05).rounded())
        if camera.isEmpty, let day = days.indices.first(where: { days[$0].context == .home }) {
            days[day].shoots.append(ScalePlan.Shoot(place: ScaleCast.home, start: 20, end: 21, cluster: camera.count))
            camera.append(Cluster(weight: 1, gps: true))
        }
        Self.spread(photos - scans - shots, over: &camera)
        Self.spread(shots, over: &shotEvents)
        Self.spread(scans, over: &scanSessions)
        var bursts = 0
        for i in camera.indices where camera[i].count >= 3 && chance(0.03) {
            camera[i].burst = min(camera[i].count, g.int(3...8))
            bursts += 1
        }
        if bursts == 0, let i = camera.indices.max(by: { camera[$0].count < camera[$1].count }), camera[i].count >= 3 {
            camera[i].burst = min(camera[i].count, 5)
        }
    }

    /// Gives `total` to the clusters in proportion to their weights, exactly.
    static func spread(_ total: Int, over clusters: inout [Cluster]) {
        guard total > 0, !clusters.isEmpty else { return }
        let sum = clusters.reduce(0) { $0 + $1.weight }
        var running = 0.0, given = 0
        for i in clusters.indices {
            running += clusters[i].weight
            let upTo = i == clusters.count - 1 ? total : min(total, max(given, Int((Double(total) * running / sum).rounded(.down))))
            clusters[i].count = upTo - given
            given = upTo
        }
    }
}

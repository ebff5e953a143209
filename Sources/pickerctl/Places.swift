import ArgumentParser
import Foundation
import PickerdWire

/// `pickerctl places`: the person's known places, as pickerd finds them in their visits.
struct Places: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your known places: home (each, with its dates, if you moved), work and frequent places.",
        discussion: """
            pickerd finds them in your visits (imported location history): home is where most nights \
            are spent, week by week (a move counts after two weeks in the new place); work is where \
            weekday daytime is spent; a frequent place is visited on at least four distinct days. \
            Places your data names (Home, a work location) keep that role. Each shows its name (yours, \
            else the nearest city's), its city, where it is (to about 100 m) and on how many days you \
            were there. Apps never see this list.
            """)
    @OptionGroup var connection: Connection

    func run() throws {
        guard case .placesReply(let reply) = perform(try connection.open(), .places(PlacesRequest())) else {
            fail("unexpected reply", code: 1)
        }
        guard !reply.places.isEmpty else {
            print("no known places yet: they come from visits in location history (pickerctl import)")
            return
        }
        print(Self.table(reply))
    }

    /// The places as a table: role, name, city, coordinates to three decimals (about 100 m), days,
    /// and a home's dates (in `reply.timeZone`).
    static func table(_ reply: PlacesReply) -> String {
        let zone = TimeZone(identifier: reply.timeZone) ?? .current
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = zone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        func day(_ ms: Int64?) -> String? { ms.map { formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) } }
        let rows = reply.places.map { place -> [String] in
            let at = String(format: "%.3f° %@, %.3f° %@", abs(place.latitude), place.latitude < 0 ? "S" : "N",
                            abs(place.longitude), place.longitude < 0 ? "W" : "E")
            var when = ""
            switch (day(place.fromMs), day(place.untilMs)) {
            case (nil, nil): when = ""
            case (nil, let until?): when = "until \(until)"
            case (let from?, nil): when = "since \(from)"
            case (let from?, let until?): when = "\(from) – \(until)"
            }
            return [place.role, place.name.isEmpty ? "(unnamed)" : place.name, place.city, at, "\(place.days)", when]
        }
        let header = ["ROLE", "NAME", "CITY", "WHERE", "DAYS", "HOME"]
        let showHome = rows.contains { !$0[5].isEmpty }
        let columns = showHome ? 6 : 5
        let widths = (0..<columns).map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            (0..<columns).map { c in
                let cell = cells[c]
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 4 ? pad + cell : cell + pad  // days right-aligned
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

/// `pickerctl places`: the person's known places, as pickerd finds them in their visits, and the
/// person's word on where home and work are.
struct Places: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your known places: home (each, with its dates, if you moved), work, frequent places and places you named; correct home and work, name places.",
        discussion: """
            pickerd finds them in your visits (imported location history): home is where most nights \
            are spent, week by week (a move counts after two weeks in the new place); work is where \
            weekday daytime is spent; a frequent place is visited on at least four distinct days. \
            Places your data names (Home, a work location) keep that role. Each shows its number, \
            its name (yours, else the nearest city's), its city, where it is (to about 100 m), on how \
            many days you were there, and whether pickerd found it or you said so. \
            Where pickerd is wrong, say so: `places set-home 2` (a listed place's number or name, or \
            LAT,LON), `places set-home LAT,LON --from 2026-10-01` (you moved that day), `places \
            set-work …`; your word wins over what pickerd finds, and your moments are built again \
            (what is at home, what is away, trips). `places unset home|work` and `places reset` go \
            back to what pickerd found. \
            Name a place as you call it: `places name 3 "Nonna's"` or `places name LAT,LON "the Tan \
            track"` (the known place within 150 m of it, else that spot); your name wins over every \
            other (your data's, the gazetteer's) in suggestions' titles and places from then on, and \
            `places unname 3` takes it back. Apps never see this list; an app sees your name only \
            inside a place you keep in a suggestion.
            """,
        subcommands: [List.self, SetHome.self, SetWork.self, Name.self, Unname.self, Unset.self, Reset.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your known places, numbered (the default).")
        @OptionGroup var connection: Connection

        func run() throws {
            guard case .placesReply(let reply) = perform(try connection.open(), .places(PlacesRequest())) else {
                fail("unexpected reply", code: 1)
            }
            guard !reply.places.isEmpty else {
                print("no known places yet: they come from visits in location history (pickerctl import), or set one (pickerctl places set-home LAT,LON)")
                return
            }
            print(Places.table(reply))
        }
    }

    struct SetHome: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-home",
            abstract: "Say where home is: a listed place (its number or name) or LAT,LON; --from DATE if you moved that day.")
        @OptionGroup var options: SetOptions
        func run() throws { try options.set(role: "home") }
    }

    struct SetWork: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-work",
            abstract: "Say where work is: a listed place (its number or name) or LAT,LON; --from DATE if you changed jobs that day.")
        @OptionGroup var options: SetOptions
        func run() throws { try options.set(role: "work") }
    }

    struct SetOptions: ParsableArguments {
        @OptionGroup var connection: Connection
        @Argument(help: "A place's number or name in `pickerctl places`, or \"LAT,LON\" (degrees).") var place: String
        @Option(help: "From this day on (YYYY-MM-DD, your local day): you moved, or changed jobs. Default: always.") var from: String?
        @Option(help: "What to call it (default: the listed place's name, else the name your visits give it).") var name: String?

        func set(role: String) throws {
            let client = try connection.open()
            let target = try Places.resolve(place, client: client)
            let request = PlacesSetRequest(role: role, latitude: target.latitude, longitude: target.longitude,
                                           name: name ?? target.name, fromDay: from ?? "")
            guard case .placesReply(let reply) = perform(client, .placesSet(request)) else { fail("unexpected reply", code: 1) }
            let at = String(format: "%.4f,%.4f", target.latitude, target.longitude)
            let called = request.name.isEmpty ? at : "\(request.name) (\(at))"
            print("\(role) set: \(called)\(from.map { " from \($0)" } ?? ""); moments of \(reply.weeksRebuilt) weeks built again")
            print(Places.table(reply))
        }
    }

    struct Name: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name a place as you call it: a listed place (its number or name) or LAT,LON; your name wins in every suggestion.")
        @OptionGroup var connection: Connection
        @Argument(help: "A place's number or name in `pickerctl places`, or \"LAT,LON\" (degrees).") var place: String
        @Argument(help: "What you call it (\"Nonna's\", \"the Tan track\").") var name: String

        func run() throws {
            let called = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !called.isEmpty else { fail("give the place a name; `pickerctl places unname \(place)` takes one back", code: 2) }
            try Places.name(place, called, connection: connection)
        }
    }

    struct Unname: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back your name for a place (its number or name, or LAT,LON): your data's or the gazetteer's holds again.")
        @OptionGroup var connection: Connection
        @Argument(help: "A place's number or name in `pickerctl places`, or \"LAT,LON\" (degrees).") var place: String

        func run() throws { try Places.name(place, "", connection: connection) }
    }

    /// Names the place `text` points at (``resolve(_:client:)``) `name`, or takes its name back ("").
    static func name(_ text: String, _ name: String, connection: Connection) throws {
        let client = try connection.open()
        let target = try resolve(text, client: client)
        let request = PlacesSetRequest(role: "name", latitude: target.latitude, longitude: target.longitude, name: name)
        guard case .placesReply(let reply) = perform(client, .placesSet(request)) else { fail("unexpected reply", code: 1) }
        let at = String(format: "%.4f,%.4f", target.latitude, target.longitude)
        print(name.isEmpty ? "name taken back at \(at); moments of \(reply.weeksRebuilt) weeks built again"
                           : "named \(name) (\(at)); moments of \(reply.weeksRebuilt) weeks built again")
        if !reply.places.isEmpty { print(table(reply)) }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back what you said of home or work (every one, or the one --from DATE): what pickerd found holds again.")
        @OptionGroup var connection: Connection
        @Argument(help: "home or work.") var role: String
        @Option(help: "Only what you set from this day (YYYY-MM-DD).") var from: String?

        func run() throws {
            guard role == "home" || role == "work" else { fail("unset home or work, not '\(role)'", code: 2) }
            guard case .placesReply(let reply) = perform(try connection.open(), .placesUnset(PlacesUnsetRequest(role: role, fromDay: from ?? ""))) else {
                fail("unexpected reply", code: 1)
            }
            print("\(role) unset\(from.map { " from \($0)" } ?? ""): pickerd's finding holds; moments of \(reply.weeksRebuilt) weeks built again")
            if !reply.places.isEmpty { print(Places.table(reply)) }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take back everything you said of home and work, and your names for places: only what pickerd finds holds.")
        @OptionGroup var connection: Connection

        func run() throws {
            guard case .placesReply(let reply) = perform(try connection.open(), .placesUnset(PlacesUnsetRequest())) else {
                fail("unexpected reply", code: 1)
            }
            print("places reset: pickerd's findings hold; moments of \(reply.weeksRebuilt) weeks built again")
            if !reply.places.isEmpty { print(Places.table(reply)) }
        }
    }

    /// Where a place argument points: "LAT,LON", else a listed place by number (1…) or by name.
    static func resolve(_ text: String, client: ProtocolClient) throws -> (latitude: Double, longitude: Double, name: String) {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) {
            guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
                fail("\(text) is not a place on Earth (LAT,LON in degrees)", code: 2)
            }
            return (latitude, longitude, "")
        }
        guard case .placesReply(let places) = perform(client, .places(PlacesRequest())) else { fail("unexpected reply", code: 1) }
        if let number = Int(text) {
            guard number >= 1 && number <= places.places.count else {
                fail(places.places.isEmpty ? "no places are listed yet; give LAT,LON"
                                           : "no place \(number) in pickerctl places (1–\(places.places.count)); or give LAT,LON", code: 2)
            }
            let known = places.places[number - 1]
            return (known.latitude, known.longitude, known.name)
        }
        guard let known = places.places.first(where: { !$0.name.isEmpty && $0.name.caseInsensitiveCompare(text) == .orderedSame }) else {
            let names = Array(Set(places.places.map(\.name).filter { !$0.isEmpty })).sorted()
            fail("no known place is called \(text)\(names.isEmpty ? "" : " (known: \(names.joined(separator: ", ")))"); give its number or \"LAT,LON\"", code: 2)
        }
        return (known.latitude, known.longitude, known.name)
    }

    /// The places as a table: number, role, name, city, coordinates to three decimals (about 100
    /// m), days, a home's (or a dated work's) dates (in `reply.timeZone`), and whose word it is
    /// ("found" by pickerd, or "yours": declared or named by the person).
    static func table(_ reply: PlacesReply) -> String {
        let zone = TimeZone(identifier: reply.timeZone) ?? .current
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = zone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        func day(_ ms: Int64?) -> String? { ms.map { formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) } }
        let rows = reply.places.enumerated().map { index, place -> [String] in
            let at = String(format: "%.3f° %@, %.3f° %@", abs(place.latitude), place.latitude < 0 ? "S" : "N",
                            abs(place.longitude), place.longitude < 0 ? "W" : "E")
            var when = ""
            switch (day(place.fromMs), day(place.untilMs)) {
            case (nil, nil): when = ""
            case (nil, let until?): when = "until \(until)"
            case (let from?, nil): when = "since \(from)"
            case (let from?, let until?): when = "\(from) – \(until)"
            }
            return ["\(index + 1)", place.role, place.name.isEmpty ? "(unnamed)" : place.name, place.city, at, "\(place.days)", when,
                    place.personsWord ? "yours" : "found"]
        }
        let header = ["#", "ROLE", "NAME", "CITY", "WHERE", "DAYS", "WHEN", "BY"]
        let showWhen = rows.contains { !$0[6].isEmpty }
        let columns = (0..<header.count).filter { showWhen || $0 != 6 }
        let widths = header.indices.map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            columns.map { c in
                let cell = cells[c]
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 0 || c == 5 ? pad + cell : cell + pad  // numbers right-aligned
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}

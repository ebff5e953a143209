import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

/// `pickerctl hidden`: what the person chose not to see in suggestions.
struct Hidden: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What you chose not to see in suggestions: suggestions, people, places, days.",
        discussion: """
            A hidden suggestion is never shown. A hidden person's contact is in no suggestion, and a \
            moment only about them (titled by them, with no one else) is not shown. A hidden place's \
            visits, and the photos taken within 150 m of it, are left out. Hidden days give no \
            suggestions. Nothing is deleted: remove a rule and what it hid comes back. The pickers' \
            "Hide this suggestion" and "Show fewer like this" add the same rules. Apps never see them.
            """,
        subcommands: [List.self, Add.self, Remove.self])

    /// One rule as a line: its number, what it hides.
    static func line(_ rule: HiddenRule) -> String {
        let what: String
        switch rule.target {
        case .suggestion(let s)?: what = "suggestion  \(s.title.isEmpty ? s.suggestionId : "\"\(s.title)\" (\(s.suggestionId))")"
        case .person(let p)?: what = "person      \(p.name)"
        case .place(let p)?:
            let at = String(format: "%.4f,%.4f", p.latitude, p.longitude)
            what = "place       \(p.name.isEmpty ? at : "\(p.name) (\(at))")"
        case .days(let d)?: what = "days        \(d.from == d.to ? d.from : "\(d.from) to \(d.to)")"
        case nil: what = "(unknown)"
        }
        return "\(rule.id)  \(what)"
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your hidden rules, by number (oldest first).")
        @OptionGroup var connection: Connection
        func run() throws {
            guard case .hiddenReply(let reply) = perform(try connection.open(), .hiddenList(HiddenListRequest())) else {
                fail("unexpected reply", code: 1)
            }
            if reply.rules.isEmpty { print("nothing is hidden") }
            for rule in reply.rules { print(Hidden.line(rule)) }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hide a suggestion, a person, a place or days.",
            discussion: "Exactly one of: --suggestion ID, --person NAME, --place NAME-or-LAT,LON, --from DATE --to DATE (YYYY-MM-DD, your local days).")
        @OptionGroup var connection: Connection
        @Option(help: "A suggestion's id.") var suggestion: String?
        @Option(help: "A person, by their contact's name.") var person: String?
        @Option(help: "A known place's name (pickerctl places), or \"LAT,LON\".") var place: String?
        @Option(help: "The first day to hide, YYYY-MM-DD.") var from: String?
        @Option(help: "The last day to hide, YYYY-MM-DD (default: --from).") var to: String?

        func run() throws {
            let given = [suggestion != nil, person != nil, place != nil, from != nil].filter { $0 }.count
            guard given == 1 else { fail("give exactly one of --suggestion, --person, --place, --from", code: 2) }
            if to != nil && from == nil { fail("--to needs --from", code: 2) }
            let client = try connection.open()
            var rule = HiddenRule()
            if let suggestion {
                rule.target = .suggestion(HiddenSuggestion(suggestionId: suggestion))
            } else if let person {
                rule.target = .person(HiddenPerson(name: person))
            } else if let place {
                rule.target = .place(try Self.place(place, client: client))
            } else if let from {
                rule.target = .days(HiddenDays(from: from, to: to ?? from))
            }
            guard case .hiddenReply(let reply) = perform(client, .hiddenAdd(HiddenAddRequest(rule: rule))), let added = reply.changed else {
                fail("unexpected reply", code: 1)
            }
            print("hidden: \(Hidden.line(added))")
        }

        /// "LAT,LON", or a known place by name (as `pickerctl places` lists them).
        static func place(_ text: String, client: ProtocolClient) throws -> HiddenPlace {
            let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) {
                guard abs(latitude) <= 90, abs(longitude) <= 180 else { fail("\(text) is not a place on Earth", code: 2) }
                return HiddenPlace(latitude: latitude, longitude: longitude)
            }
            guard case .placesReply(let places) = perform(client, .places(PlacesRequest())) else { fail("unexpected reply", code: 1) }
            guard let known = places.places.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) else {
                let names = places.places.map(\.name).filter { !$0.isEmpty }
                fail("no known place is called \(text)\(names.isEmpty ? "" : " (known: \(names.joined(separator: ", ")))"); give \"LAT,LON\"", code: 2)
            }
            return HiddenPlace(name: known.name, latitude: known.latitude, longitude: known.longitude)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a rule by its number (hidden list): what it hid comes back.")
        @OptionGroup var connection: Connection
        @Argument(help: "The rule's number.") var number: UInt64
        func run() throws {
            guard case .hiddenReply(let reply) = perform(try connection.open(), .hiddenRemove(HiddenRemoveRequest(id: number))),
                  let removed = reply.changed else {
                fail("unexpected reply", code: 1)
            }
            print("shown again: \(Hidden.line(removed))")
        }
    }
}

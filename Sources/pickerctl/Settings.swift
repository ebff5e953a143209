import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

/// The categories by the names people type.
enum CategoryName {
    static let names: [(String, PickerdWire.Category)] = PickerdWire.Category.settable.map { ($0.settingName, $0) }
    static func name(_ category: PickerdWire.Category) -> String { category.settingName }
    static func parse(_ text: String) -> PickerdWire.Category? {
        let key = text.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: " ", with: "-")
        if key == "locations" { return .significantLocations }
        return names.first { $0.0 == key }?.1
    }
}

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Suggestion categories.", subcommands: [Get.self, Set.self])

    static func show(_ reply: Envelope.Body) {
        guard case .settingsReply(let s) = reply else { fail("unexpected reply", code: 1) }
        for setting in s.categories {
            print(CategoryName.name(setting.category).padding(toLength: 22, withPad: " ", startingAt: 0), setting.enabled ? "on" : "off")
        }
        print("consent".padding(toLength: 22, withPad: " ", startingAt: 0), s.consentGiven ? "given" : "not yet given")
        print("privacy banner".padding(toLength: 22, withPad: " ", startingAt: 0), s.privacyBannerDismissed ? "dismissed" : "shown")
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every category and whether it is on.")
        @OptionGroup var connection: Connection
        func run() throws {
            Settings.show(perform(try connection.open(), .settingsGet(SettingsGetRequest())))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a category on or off.",
            discussion: "CATEGORY: \(CategoryName.names.map(\.0).joined(separator: ", ")).")
        @OptionGroup var connection: Connection
        @Argument(help: "The category.") var category: String
        @Argument(help: "on or off.") var value: String

        func run() throws {
            guard let parsed = CategoryName.parse(category) else {
                fail("unknown category '\(category)' (one of: \(CategoryName.names.map(\.0).joined(separator: ", ")))", code: 2)
            }
            let enabled: Bool
            switch value.lowercased() {
            case "on", "true", "yes", "1": enabled = true
            case "off", "false", "no", "0": enabled = false
            default: fail("'\(value)' is neither on nor off", code: 2)
            }
            Settings.show(perform(try connection.open(),
                                  .settingsSet(SettingsSetRequest(categories: [CategorySetting(category: parsed, enabled: enabled)]))))
        }
    }
}

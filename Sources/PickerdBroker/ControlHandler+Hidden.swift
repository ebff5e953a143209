import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl hidden`: the person's hidden rules, listed, added and removed.
extension ControlHandler {
    func hiddenReply(changed: StoredHiddenRule?) throws -> Envelope.Body {
        let zone = TimeZone.current
        return .hiddenReply(HiddenReply(rules: try broker.store.hiddenRules().map { $0.wire(timeZone: zone) },
                                        changed: changed?.wire(timeZone: zone)))
    }

    func hiddenAdd(_ request: HiddenAddRequest) throws -> Envelope.Body {
        guard let rule = request.rule, let target = try StoredHiddenRule.Target(rule, store: broker.store) else {
            return .error(ErrorInfo(code: .invalidArgument, message: "say what to hide: a suggestion, a person, a place or days"))
        }
        let stored = try broker.store.addHiddenRule(StoredHiddenRule(target: target, createdMs: broker.configuration.clock.now().unixMs))
        logger.info("hidden rule added", metadata: ["rule": "\(stored.id)"])
        return try hiddenReply(changed: stored)
    }

    func hiddenRemove(_ request: HiddenRemoveRequest) throws -> Envelope.Body {
        let removed = try broker.store.removeHiddenRule(id: Int64(clamping: request.id))
        logger.info("hidden rule removed", metadata: ["rule": "\(removed.id)"])
        return try hiddenReply(changed: removed)
    }
}

extension StoredHiddenRule {
    /// The wire form (control and agent roles only: never an app's).
    /// - Parameter timeZone: the zone hidden days are written in (pickerd's).
    func wire(timeZone: TimeZone) -> HiddenRule {
        var rule = HiddenRule(id: UInt64(max(0, id)), createdMs: createdMs)
        switch target {
        case .suggestion(let id, let title):
            rule.target = .suggestion(HiddenSuggestion(suggestionId: id.uuidString, title: title))
        case .person(let name):
            rule.target = .person(HiddenPerson(name: name))
        case .place(let name, let c):
            rule.target = .place(HiddenPlace(name: name, latitude: c.latitude, longitude: c.longitude))
        case .days(let from, let to):
            rule.target = .days(HiddenDays(from: Self.isoDay(from), to: Self.isoDay(to)))
        }
        return rule
    }

    /// A day since 1970 as YYYY-MM-DD.
    static func isoDay(_ day: Int) -> String {
        let d = Civil.date(day)
        return "\(Civil.digits(d.year, 4))-\(Civil.digits(d.month, 2))-\(Civil.digits(d.day, 2))"
    }

    /// YYYY-MM-DD as a day since 1970, or `nil` when it is not a date.
    static func day(iso: String) -> Int? {
        let parts = iso.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), (1...31).contains(d) else { return nil }
        let day = Civil.days(year: y, month: m, day: d)
        // 31 February is not a date: it comes back as another.
        return Civil.date(day) == (y, m, d) ? day : nil
    }
}

extension StoredHiddenRule.Target {
    /// What a wire rule asks to hide, checked: a suggestion must exist (its title is taken from the
    /// store), days must be dates. `nil` when the rule names nothing.
    /// - Throws: ``StoreError`` `.invalid` for dates that are not, `.notFound` for an unknown suggestion.
    init?(_ rule: HiddenRule, store: Store) throws(StoreError) {
        switch rule.target {
        case .suggestion(let s)?:
            guard let id = UUID(uuidString: s.suggestionId), let stored = try store.suggestion(id: id) else {
                throw StoreError(.notFound, "no suggestion \(s.suggestionId)")
            }
            self = .suggestion(stored.id, title: stored.title)
        case .person(let p)?:
            self = .person(p.name)
        case .place(let p)?:
            self = .place(name: p.name, coordinate: Coordinate(latitude: p.latitude, longitude: p.longitude))
        case .days(let d)?:
            guard let from = StoredHiddenRule.day(iso: d.from), let to = StoredHiddenRule.day(iso: d.to) else {
                throw StoreError(.invalid, "days are YYYY-MM-DD: '\(d.from)' to '\(d.to)'")
            }
            self = .days(from: from, to: to)
        case nil:
            return nil
        }
    }
}

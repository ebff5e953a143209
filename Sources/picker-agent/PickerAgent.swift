// picker-agent: pickerd's picker front ends. --tui is the terminal picker a person uses, drawn on the
// terminal an app handed to pickerd (TerminalPicker.swift); --script FILE answers an app's approval,
// consent and review requests from a JSON script, deterministically, printing what it decided
// (automation and tests).

import ArgumentParser
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

/// The script: whether to allow an app not yet allowed, a consent answer, then one step per review
/// request, in order (the last one repeats).
struct Script: Decodable {
    struct Review: Decodable {
        /// "approve" (default), "cancel", "wait" (never answer: the picker stays open) or "exit" (the
        /// agent quits without answering).
        var action: String?
        /// "recommended" (default) or "recent".
        var list: String?
        /// Position in the list (default 0).
        var index: Int?
        /// Choose the first suggestion whose title contains this instead.
        var title: String?
        /// Choose the first suggestion of this kind ("trip", "workout", …) instead: a title may change
        /// with what the person's settings leave, a kind does not.
        var kind: String?
        /// Choose the suggestion the app's token preloaded (falls back to list and index).
        var preloaded: Bool?
        /// Deselect items: asset kinds ("photo", "song", …) or item positions as strings ("0", "2").
        var deselect: [String]?
        /// Keep only items of these kinds.
        var keep: [String]?
        /// An edited title.
        var newTitle: String?
        /// Leave the privacy banner dismissed.
        var dismissBanner: Bool?

        enum CodingKeys: String, CodingKey {
            case action, list, index, title, kind, preloaded, deselect, keep, dismissBanner
            case newTitle = "set-title"
            case titleAlias = "edit-title"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            action = try c.decodeIfPresent(String.self, forKey: .action)
            list = try c.decodeIfPresent(String.self, forKey: .list)
            index = try c.decodeIfPresent(Int.self, forKey: .index)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            kind = try c.decodeIfPresent(String.self, forKey: .kind)
            preloaded = try c.decodeIfPresent(Bool.self, forKey: .preloaded)
            deselect = try c.decodeIfPresent([String].self, forKey: .deselect)
            keep = try c.decodeIfPresent([String].self, forKey: .keep)
            newTitle = try c.decodeIfPresent(String.self, forKey: .newTitle) ?? c.decodeIfPresent(String.self, forKey: .titleAlias)
            dismissBanner = try c.decodeIfPresent(Bool.self, forKey: .dismissBanner)
        }
    }
    /// The answer when pickerd asks whether the person allows an app it does not know yet (a
    /// developer's build): "allow" or "deny" (the default: a script that did not think about it
    /// allows no app); or a list of these, one per question in order (the last one repeats).
    var app: [String]
    /// "accept" (default), "decline", or "customize" with `categories`; or a list of these, one per
    /// consent request in order (the last one repeats).
    var consent: [String]
    /// With "customize": the categories to leave on.
    var categories: [String]?
    var reviews: [Review]

    enum CodingKeys: String, CodingKey { case app, consent, categories, reviews }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let list = try? c.decode([String].self, forKey: .app) {
            app = list
        } else {
            app = [try c.decodeIfPresent(String.self, forKey: .app) ?? "deny"]
        }
        if let wrong = app.first(where: { $0 != "allow" && $0 != "deny" }) {
            throw DecodingError.dataCorruptedError(forKey: .app, in: c, debugDescription: "\"app\" is \"allow\" or \"deny\", not \"\(wrong)\"")
        }
        if let list = try? c.decode([String].self, forKey: .consent) {
            consent = list
        } else {
            consent = [try c.decodeIfPresent(String.self, forKey: .consent) ?? "accept"]
        }
        categories = try c.decodeIfPresent([String].self, forKey: .categories)
        reviews = try c.decodeIfPresent([Review].self, forKey: .reviews) ?? []
    }
}

@main
struct PickerAgent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picker-agent",
        abstract: "A picker front end for pickerd.",
        discussion: """
            --tui is the terminal picker: pickerd starts it for a presentation whose app handed over its terminal,
            and it draws the picker there (keys on its bottom line).

            --script FILE answers from a JSON script, for example
              {"app": "allow", "consent": "accept", "reviews": [{"list": "recommended", "index": 0, "deselect": ["photo"], "set-title": "A good day"}]}
              {"reviews": [{"action": "cancel"}]}
            "app": allow or deny (default deny) answers "<App> — <origin> — wants to show you journaling suggestions" for an app
            the person has not allowed yet (a developer's build); "consent": accept (default), decline, or customize with
            "categories". Either may be a list, one answer per question in order (the last one repeats).
            Review actions: approve (default), cancel, wait (hold the picker open), exit (quit without answering).
            Selection: by list and index, by a title substring ("title"), by kind ("kind": "trip"), or "preloaded": true
            for the suggestion an app's token opened. Deselection: asset kinds or item positions; "keep" keeps only the kinds named.
            """)

    @Option(help: "Answer from this JSON script.") var script: String?
    @Flag(help: "The terminal picker: serve one presentation on the terminal its app handed to pickerd.") var tui = false
    @Option(help: "pickerd's runtime directory (default: $PICKERD_RUNTIME_DIR, else $XDG_RUNTIME_DIR/pickerd).")
    var runtimeDir: String?
    @Option(help: "Exit after this many reviews (0: serve until pickerd closes the connection).") var count = 0

    func validate() throws {
        guard (script != nil) != tui else { throw ValidationError("give either --tui or --script FILE") }
    }

    func run() throws {
        if tui {
            let code = TerminalPicker.serve(runtimeDirectory: runtimeDir ?? ProcessInfo.processInfo.environment["PICKERD_RUNTIME_DIR"])
            throw ExitCode(code)
        }
        guard let script else { throw ExitCode(2) }
        guard let data = FileManager.default.contents(atPath: script) else {
            FileHandle.standardError.write(Data("picker-agent: cannot read the script \(script)\n".utf8))
            throw ExitCode(2)
        }
        let plan: Script
        do {
            plan = try JSONDecoder().decode(Script.self, from: data)
        } catch {
            FileHandle.standardError.write(Data("picker-agent: the script \(script) is not valid: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let client: ProtocolClient
        do {
            let env = ProcessInfo.processInfo.environment["PICKERD_RUNTIME_DIR"]
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDir ?? env)
            client = try ProtocolClient(path: paths.agentSocket, role: .agent, software: "picker-agent --script")
            _ = try client.request(.agentRegister(AgentRegister(name: "scripted", capabilities: [.scripted])))
        } catch let error as ProtocolClient.RemoteError {
            FileHandle.standardError.write(Data("picker-agent: \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch let error as TransportError {
            FileHandle.standardError.write(Data("picker-agent: \(error.message)\n".utf8))
            throw ExitCode(3)
        }
        say("registered with pickerd")
        var step = 0
        var approvals = 0
        var consents = 0
        var reviews = 0
        var saidEmpty = false
        // Frames that arrived while a page was awaited (another session's review, a dismissal).
        var waiting: [ReceivedFrame] = []
        var pageRequests: UInt64 = 1 << 40
        /// A further page of a list, as the person would scroll to it.
        func page(_ review: ReviewRequest, _ list: SuggestionList, from offset: Int) throws -> [Suggestion] {
            pageRequests += 1
            let id = pageRequests
            try client.connection.send(Envelope(requestId: id, body: .suggestionsPage(
                SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: list, offset: UInt32(offset), limit: 50))))
            while let frame = try client.connection.receive() {
                if frame.envelope.requestId == id, case .suggestionsPageReply(let reply)? = frame.envelope.body {
                    say("review for \(review.appDisplayName): fetched \(list) \(offset)–\(offset + reply.suggestions.count) of \(reply.total)")
                    return reply.suggestions
                }
                if frame.envelope.requestId == id, case .error(let error)? = frame.envelope.body {
                    say("pickerd refused a page: \(error.message)")
                    return []
                }
                waiting.append(frame)
            }
            return []
        }
        /// The decisions sent, by request id: a refused one is followed by a cancel.
        var sentDecisions: [UInt64: String] = [:]
        func next() throws -> ReceivedFrame? {
            waiting.isEmpty ? try client.connection.receive() : waiting.removeFirst()
        }
        while let frame = try next() {
            let id = frame.envelope.requestId
            switch frame.envelope.body {
            case .review(let review)? where review.appApprovalNeeded:
                let answer = plan.app[min(approvals, plan.app.count - 1)]
                approvals += 1
                say("app \(review.appDisplayName) (\(review.appBundleId), \(review.appOrigin)): \(answer)")
                try client.connection.send(Envelope(requestId: id, body: .appApproval(
                    AppApprovalDecision(sessionHandle: review.sessionHandle, allow: answer == "allow"))))
            case .review(let review)? where review.consentNeeded:
                let answer = plan.consent.isEmpty ? "accept" : plan.consent[min(consents, plan.consent.count - 1)]
                consents += 1
                var decision = ConsentDecision(sessionHandle: review.sessionHandle)
                switch answer {
                case "decline": decision.answer = .decline
                case "customize":
                    decision.answer = .customize
                    let on = Set(plan.categories ?? [])
                    decision.categories = review.categories.map {
                        CategorySetting(category: $0.category, enabled: on.contains($0.category.settingName))
                    }
                default: decision.answer = .accept
                }
                say("consent for \(review.appDisplayName): \(answer)")
                try client.connection.send(Envelope(requestId: id, body: .consentDecision(decision)))
            case .review(let review)?:
                if review.libraryEmpty && !saidEmpty {
                    // Once, as the other pickers show it: pickerd has nothing yet, and how to add some.
                    saidEmpty = true
                    say(PickerWords.emptyLibrary)
                }
                let rule = plan.reviews.isEmpty ? nil : plan.reviews[min(step, plan.reviews.count - 1)]
                step += 1
                if rule?.action == "wait" {
                    say("review for \(review.appDisplayName): waiting (holding the picker open)")
                    continue
                }
                if rule?.action == "exit" {
                    say("review for \(review.appDisplayName): exiting without an answer")
                    Foundation.exit(0)
                }
                let decision = try decide(review, rule) { list, offset in try page(review, list, from: offset) }
                try client.connection.send(Envelope(requestId: id, body: .reviewDecision(decision)))
                sentDecisions[id] = review.sessionHandle
                reviews += 1
                if count > 0 && reviews >= count {
                    // Wait for pickerd to acknowledge nothing more; the decision is sent.
                    client.close()
                    return
                }
            case .dismiss(let dismiss)?:
                say("dismissed \(dismiss.sessionHandle): \(dismiss.reason)")
            case .error(let error)?:
                say("pickerd refused: \(error.message)")
                // A decision pickerd refused leaves the app waiting: cancel, as a person would close the picker.
                if let handle = sentDecisions.removeValue(forKey: id) {
                    var cancel = ReviewDecision(sessionHandle: handle)
                    cancel.decision = .cancel(Cancelled())
                    say("review \(handle): cancelled after the refusal")
                    try client.connection.send(Envelope(requestId: id, body: .reviewDecision(cancel)))
                }
            default:
                break
            }
        }
        say("pickerd closed the connection")
    }

    /// The decision `rule` makes about `review`, scrolling on (`more`: the list's next page from an
    /// offset) while what it looks for is not among the suggestions loaded so far.
    func decide(_ review: ReviewRequest, _ rule: Script.Review?,
                more: (SuggestionList, Int) throws -> [Suggestion]) throws -> ReviewDecision {
        var decision = ReviewDecision(sessionHandle: review.sessionHandle, privacyBannerDismissed: rule?.dismissBanner ?? false)
        guard let rule, rule.action != "cancel" else {
            say("review for \(review.appDisplayName): cancel")
            decision.decision = .cancel(Cancelled())
            return decision
        }
        var lists: [SuggestionList: [Suggestion]] = [.recommended: review.recommended, .recent: review.recent]
        let totals: [SuggestionList: Int] = [.recommended: Int(review.recommendedTotal), .recent: Int(review.recentTotal)]
        var chosen: Suggestion?
        if rule.preloaded == true, let preloaded = review.preloaded, preloaded.id == review.preloadedSuggestionId { chosen = preloaded }
        /// The first suggestion `matches` picks in `which`, scrolling on through the list as needed.
        func first(in which: SuggestionList, _ matches: ([Suggestion]) -> Suggestion?) throws -> Suggestion? {
            while true {
                if let found = matches(lists[which]!) { return found }
                guard lists[which]!.count < totals[which]! else { return nil }
                let page = try more(which, lists[which]!.count)
                if page.isEmpty { return nil }
                lists[which]! += page
            }
        }
        /// In the list the rule names; a rule that names none looks in Recommended, then in Recent
        /// (Recommended is a short choice, Recent holds every moment).
        func first(_ matches: ([Suggestion]) -> Suggestion?) throws -> Suggestion? {
            if rule.list == "recent" { return try first(in: .recent, matches) }
            if let found = try first(in: .recommended, matches) { return found }
            return rule.list == nil ? try first(in: .recent, matches) : nil
        }
        // By title, else by kind, else by position (as the script's rule asks, in that order).
        if chosen == nil, let title = rule.title { chosen = try first { $0.first { $0.title.contains(title) } } }
        if chosen == nil, let kind = rule.kind { chosen = try first { $0.first { $0.kind.description == kind } } }
        if chosen == nil {
            let index = rule.index ?? 0
            chosen = try first { $0.indices.contains(index) ? $0[index] : nil }
        }
        guard let suggestion = chosen else {
            say("review for \(review.appDisplayName): nothing matches the script; cancel")
            decision.decision = .cancel(Cancelled())
            return decision
        }
        let deselect = Set(rule.deselect ?? [])
        let keepKinds = rule.keep.map(Set.init)
        let kept = suggestion.items.enumerated().filter { index, item in
            let kind = Self.kindName(item)
            if deselect.contains(kind) || deselect.contains(String(index)) { return false }
            if let keepKinds, !keepKinds.contains(kind) { return false }
            return true
        }.map(\.element)
        // A person cannot add a suggestion with every item left out (the pickers' Add is then off):
        // a rule that leaves nothing cancels, so the app hears an outcome.
        guard !kept.isEmpty else {
            say("review for \(review.appDisplayName): \"\(suggestion.title)\" keeps none of its \(suggestion.items.count) items under the script's rule; cancel")
            decision.decision = .cancel(Cancelled())
            return decision
        }
        var approval = Approval(suggestionId: suggestion.id, keptItemIds: kept.map(\.id))
        if let title = rule.newTitle {
            approval.titleEdited = true
            approval.title = title
        }
        say("review for \(review.appDisplayName): \"\(suggestion.title)\" (\(suggestion.id))\(suggestion.id == review.preloadedSuggestionId ? " preloaded" : "") keeping \(kept.count) of \(suggestion.items.count) items"
            + " [\(kept.map(Self.kindName).joined(separator: ", "))]" + (rule.newTitle.map { ", titled \"\($0)\"" } ?? ""))
        decision.decision = .approve(approval)
        return decision
    }

    static func kindName(_ item: Item) -> String { item.asset.map { AssetKind($0).rawValue } ?? "unknown" }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data("picker-agent: \(line)\n".utf8))
}

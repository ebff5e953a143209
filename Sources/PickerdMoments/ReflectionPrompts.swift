import Foundation
import PickerdStore
public import PickerdWire

/// The reflection prompts the project writes itself, so that every library has some, not only the
/// demo's: offered as Apple's sheet offers them, a few a week, each with its colour.
///
/// How (``derive(from:owning:time:)``):
/// - every week of the window that holds an item of the person's and no prompt of its own (an app's
///   or the demo library's prompts win) gets ``perWeek`` (2) prompts, as Reflection items of source
///   ``source`` dated at the week's last item of the person's, so the newest week's prompts are
///   among the newest moments and reach Recommended (at most ``SuggestionBuilder/recommendedPerKind``
///   prompts are there);
/// - **rotation**: the week numbered *n* since 1970 takes the prompts at places `perWeek·n …` of
///   ``all`` (round the end), so the same prompt comes back only after `all.count / perWeek` (24)
///   weeks, deterministically: rebuilding a week gives it the same prompts, with the same ids;
/// - a prompt's text is the project's own and nothing else: it says nothing of the person's week,
///   so an app that is given one learns nothing but that the person kept it;
/// - the reflection-prompts setting hides them as it hides every prompt (the lists leave out what a
///   category turned off holds), and the pickers' "Another prompt" cycles through the library's
///   prompts, these among them;
/// - they are the engine's, not the person's: like stays from photos they are derived items
///   (``LibraryItem/isDerived``), which no count of the person's library holds.
public enum ReflectionPrompts {
    /// The `source` of the prompts the engine offers.
    public static let source = LibraryItem.promptSource
    /// How many prompts a week gets.
    public static let perWeek = 2

    /// The themes the prompts are written on.
    public enum Theme: String, Sendable, CaseIterable {
        /// What the person is grateful for; being kind, and kindness received; what gives meaning.
        case gratitude, kindness, purpose
        /// The people in their life; the places in it; what changes, and what they want to change.
        case people, places, change
    }

    /// The project's prompts, the themes interleaved so that a week's two are on different themes.
    public static let all: [(prompt: String, theme: Theme, color: Color)] = {
        let gratitude = Color(red: 0.98, green: 0.76, blue: 0.29, alpha: 1), kindness = Color(red: 0.94, green: 0.45, blue: 0.55, alpha: 1)
        let purpose = Color(red: 0.36, green: 0.55, blue: 0.93, alpha: 1), people = Color(red: 0.98, green: 0.58, blue: 0.33, alpha: 1)
        let places = Color(red: 0.29, green: 0.74, blue: 0.80, alpha: 1), change = Color(red: 0.62, green: 0.47, blue: 0.86, alpha: 1)
        let byTheme: [(Theme, Color, [String])] = [
            (.gratitude, gratitude, [
                "What is something small you were grateful for this week?",
                "Which ordinary thing would you miss most if it were gone?",
                "What went better than you expected lately?",
                "Who made your week easier, and how?",
                "What comfort do you often take for granted?",
                "What is a sound, smell or taste you were glad of recently?",
                "What are you thankful your younger self did?",
                "What is a gift you were given that you still use?",
            ]),
            (.kindness, kindness, [
                "Describe a kind thing someone did for you recently.",
                "What kindness did you show someone this week?",
                "When were you patient with yourself lately?",
                "What is a kind word you wish you had said?",
                "Who could use a message from you today?",
                "What did a stranger do that stayed with you?",
                "How did you look after yourself this week?",
                "What would you say to a friend having the week you had?",
            ]),
            (.purpose, purpose, [
                "What gave your days a sense of purpose this week?",
                "What are you working towards right now?",
                "When did time fly because you were absorbed in something?",
                "What did you learn this week that you want to keep?",
                "What matters more to you now than a year ago?",
                "What small step could you take tomorrow towards something you care about?",
                "What are you proud of finishing lately?",
                "What would make next week feel worthwhile?",
            ]),
            (.people, people, [
                "Who did you laugh with recently, and about what?",
                "Who would you like to spend more time with?",
                "What did you learn from someone this week?",
                "Describe a conversation that stayed with you.",
                "Who do you think of when you hear your favourite song?",
                "Which friendship has changed you the most?",
                "Who would you like to thank, and for what?",
                "What do the people closest to you not know about your week?",
            ]),
            (.places, places, [
                "Where did you feel most at ease this week?",
                "Describe a place you passed today as if for a visitor.",
                "Which place holds a memory you return to often?",
                "Where would you go tomorrow if you could go anywhere?",
                "What is your favourite corner of home, and why?",
                "Which walk or route do you love, and what do you see on it?",
                "What place from your childhood comes back to you?",
                "Where did something surprise you lately?",
            ]),
            (.change, change, [
                "What changed for you this month?",
                "What habit would you like to begin, or to end?",
                "What did you let go of lately, and how does it feel?",
                "What is a challenge you handled better than you expected?",
                "How are you different from a year ago?",
                "What are you looking forward to?",
                "What would you like to try for the first time?",
                "What is something you changed your mind about?",
            ]),
        ]
        var out: [(prompt: String, theme: Theme, color: Color)] = []
        for index in 0..<byTheme.map(\.2.count).max()! {
            for (theme, color, prompts) in byTheme where index < prompts.count { out.append((prompts[index], theme, color)) }
        }
        return out
    }()

    /// The places in ``all`` of the prompts the week numbered `week` (since 1970) offers.
    /// - Parameter week: the week's number, its start's day since 1970 divided by 7.
    /// - Returns: ``perWeek`` places, different, in order.
    public static func indices(week: Int64) -> [Int] {
        let count = Int64(all.count)
        let first = ((week % count) + count) % count * Int64(perWeek)
        return (0..<perWeek).map { Int((first + Int64($0)) % count) }
    }

    /// The prompt at `index` of ``all``, as an item of ``source`` with the id it always has for
    /// that week (`week`), dated `at`.
    static func item(_ index: Int, week: Int64, at startMs: Int64, offset: Int32?) -> LibraryItem {
        let (prompt, _, color) = all[index]
        return LibraryItem(id: SuggestionBuilder.stableID("prompt|\(week)|\(index)"), asset: .reflection(Reflection(prompt: prompt, color: color)),
                           startMs: startMs, source: source, utcOffsetSeconds: offset)
    }

    /// The prompts the weeks starting in `window` offer (see the type's rules).
    /// - Parameters:
    ///   - items: the library around the window.
    ///   - window: start times, ms since 1970, of the prompts wanted.
    ///   - time: the person's clock, which says where weeks begin.
    /// - Returns: Reflection items of source ``source``, in time order.
    static func derive(from items: [LibraryItem], owning window: Range<Int64>, time: LocalTime) -> [LibraryItem] {
        var last: [Int64: LibraryItem] = [:]
        var ownPrompts = Set<Int64>()
        for item in items where !item.isDerived && window.contains(item.startMs) {
            // The person's weeks as the engine's windows cut them (not each item's own offset), so a
            // week is always built whole, in one window: building week by week gives what a full build does.
            let week = time.week(of: item.startMs).start
            if item.kind == .reflection { ownPrompts.insert(week) }
            if last[week].map({ ($0.startMs, $0.id.orderKey) < (item.startMs, item.id.orderKey) }) ?? true { last[week] = item }
        }
        return last.keys.sorted().filter { !ownPrompts.contains($0) }.flatMap { weekStart -> [LibraryItem] in
            let anchor = last[weekStart]!
            let monday = Int64(time.week(of: anchor.startMs).monday)
            let number = monday >= 0 ? monday / 7 : (monday - 6) / 7
            return indices(week: number).map { item($0, week: number, at: anchor.startMs, offset: anchor.utcOffsetSeconds) }
        }
    }
}

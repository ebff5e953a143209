import PickerdWire
import Testing

@Suite("Summaries a person reads: the release history and the picker")
struct SummaryTests {
    func mood(_ kind: StateOfMindKind, _ valence: Double, _ classification: ValenceClassification, _ labels: [StateOfMindLabel]) -> String {
        Item.Asset.stateOfMind(StateOfMind(state: StateOfMindSample(kind: kind, valence: valence, valenceClassification: classification,
                                                                     labels: labels))).summary
    }

    @Test("a mood is its labels and how it felt, never the schema's names or a valence number")
    func moods() {
        #expect(mood(.momentaryEmotion, 0.8, .pleasant, [.happy, .grateful]) == "Happy, Grateful: a pleasant moment")
        #expect(mood(.dailyMood, 0.2, .slightlyPleasant, [.content]) == "Content: a slightly pleasant day")
        #expect(mood(.momentaryEmotion, -0.9, .veryUnpleasant, []) == "A very unpleasant moment")
        #expect(mood(.dailyMood, -0.4, .unpleasant, []) == "An unpleasant day")
        #expect(mood(.momentaryEmotion, 0.5, .unspecified, [.overwhelmed, .hopeful]) == "Overwhelmed, Hopeful: a pleasant moment")
    }
}

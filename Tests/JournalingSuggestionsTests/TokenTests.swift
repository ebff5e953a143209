import Foundation
import JournalingSuggestions
import Testing

@Suite("Presentation tokens from notification URLs")
struct TokenTests {
    let id = UUID(uuidString: "84474319-D2F8-57C2-8FF4-809280B40DB1")!

    @Test("path form, with and without the app's format")
    func pathForm() {
        let url = URL(string: "journaldemo://suggestions/\(id.uuidString)")!
        #expect(JournalingSuggestionPresentationToken(url: url)?.suggestionIdentifier == id)
        #expect(JournalingSuggestionPresentationToken(url: url, format: "journaldemo://suggestions/{journaling-suggestion-id}")?.suggestionIdentifier == id)
    }

    @Test("query form, with and without the app's format")
    func queryForm() {
        let url = URL(string: "journaldemo://open?suggestion=\(id.uuidString)&from=notification")!
        #expect(JournalingSuggestionPresentationToken(url: url)?.suggestionIdentifier == id)
        let exact = URL(string: "journaldemo://open?suggestion=\(id.uuidString)")!
        #expect(JournalingSuggestionPresentationToken(url: exact, format: "journaldemo://open?suggestion={journaling-suggestion-id}")?.suggestionIdentifier == id)
    }

    @Test("an empty id is a general reminder")
    func general() {
        let token = JournalingSuggestionPresentationToken(url: URL(string: "journaldemo://open?suggestion=")!,
                                                          format: "journaldemo://open?suggestion={journaling-suggestion-id}")
        #expect(token != nil)
        #expect(token?.suggestionIdentifier == nil)
        #expect(JournalingSuggestionPresentationToken(url: URL(string: "journaldemo://suggestions/")!)?.suggestionIdentifier == nil)
    }

    @Test("garbage ids and URLs of another shape are rejected")
    func garbage() {
        #expect(JournalingSuggestionPresentationToken(url: URL(string: "journaldemo://suggestions/not-a-uuid")!) == nil)
        #expect(JournalingSuggestionPresentationToken(url: URL(string: "journaldemo://open?suggestion=1234")!,
                                                      format: "journaldemo://open?suggestion={journaling-suggestion-id}") == nil)
        #expect(JournalingSuggestionPresentationToken(url: URL(string: "otherapp://suggestions/\(id.uuidString)")!,
                                                      format: "journaldemo://suggestions/{journaling-suggestion-id}") == nil)
    }
}

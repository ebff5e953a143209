import Foundation
import Testing
@testable import PickerdWire

@Suite("Every message type round-trips through protoc-c")
struct RoundTripTests {
    @Test("round trip with every field set", arguments: generatedRoundTrips.keys.sorted())
    func roundTrip(message: String) throws {
        let check = try #require(generatedRoundTrips[message])
        #expect(try check(), "\(message) changed on the way through encode and decode")
    }

    @Test("every message of the schema has a Swift type and fixtures")
    func schemaIsCovered() throws {
        let schema = try ProtocolFiles.messageNames().subtracting(["BoolValue", "Int64Value", "DoubleValue"])
        #expect(Set(generatedRoundTrips.keys) == schema)
        for name in schema {
            #expect((generatedFixtureCounts[name] ?? 0) >= 1, "\(name) has no fixture")
        }
    }

    @Test("every envelope body kind has its own fixture")
    func everyBodyKind() {
        let kinds = Set(Envelope.fixtures.compactMap { $0.body.map { String(describing: $0).prefix { $0 != "(" } } })
        #expect(kinds.count == Envelope.fixtures.count)
        #expect(kinds.count == (try? ProtocolFiles.envelopeBodyFieldCount()))
    }

    @Test("absent optional values stay absent; empty messages encode to zero bytes")
    func defaultsStayDefaults() throws {
        let location = Location(place: "Home")
        let decoded = try Location(serializedBytes: location.serializedBytes())
        #expect(decoded.isWorkLocation == nil)
        #expect(decoded.location == nil)
        #expect(decoded.date == nil)
        #expect(Cancelled().serializedBytes().isEmpty)
        #expect(try Cancelled(serializedBytes: []) == Cancelled())
        // A present `false` is not an absent value.
        let notWork = try Location(serializedBytes: Location(isWorkLocation: false).serializedBytes())
        #expect(notWork.isWorkLocation == false)
    }

    @Test("unknown enum values survive a round trip")
    func unknownEnumValues() throws {
        let error = ErrorInfo(code: ErrorCode(rawValue: 9999), message: "from the future")
        let decoded = try ErrorInfo(serializedBytes: error.serializedBytes())
        #expect(decoded.code.rawValue == 9999)
        #expect(decoded.code.description == "ErrorCode(9999)")
    }
}

/// The schema files, read from the repository.
enum ProtocolFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let protocolDirectory = root.appendingPathComponent("Protocol")

    /// How many members the Envelope's `body` oneof declares.
    static func envelopeBodyFieldCount() throws -> Int {
        let text = try String(contentsOf: protocolDirectory.appendingPathComponent("pickerd/v1/envelope.proto"), encoding: .utf8)
        let body = text.components(separatedBy: "oneof body {")[1].components(separatedBy: "}")[0]
        return body.split(separator: "\n").filter { $0.contains(" = ") && $0.hasSuffix(";") }.count
    }

    static func messageNames() throws -> Set<String> {
        let dir = protocolDirectory.appendingPathComponent("pickerd/v1")
        var names = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".proto") {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("message ") {
                names.insert(String(line.dropFirst("message ".count).prefix { $0 != " " && $0 != "{" }))
            }
        }
        return names
    }
}

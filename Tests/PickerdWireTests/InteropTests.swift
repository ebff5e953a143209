import Foundation
import Testing
@testable import PickerdWire

/// The wire format is real protobuf: Google's own `protoc` (Debian's protobuf-compiler) reads what
/// protoc-c writes for us, and we read what protoc writes.
@Suite("Interoperability with Google's protoc", .serialized)
struct InteropTests {
    /// A realistic approved outcome with several asset kinds.
    static let outcome = Envelope(requestId: 42, body: .outcome(Outcome(
        sessionHandle: "s-1",
        result: .approved(Suggestion(
            title: "Morning run in Riverside Park",
            date: DateInterval(startUnixMs: 1_700_000_000_000, endUnixMs: 1_700_003_600_000),
            items: [
                Item(id: "A1", asset: .photo(Photo(
                    photo: Media(hasFd: true, fdIndex: 0, contentType: "image/jpeg", filename: "IMG_0001.jpg",
                                 byteCount: 12345, pixelWidth: 640, pixelHeight: 480),
                    date: Timestamp(unixMs: 1_700_000_100_000)))),
                Item(id: "A2", asset: .workout(Workout(
                    details: WorkoutDetails(activityType: 37,
                                            activeEnergyBurned: Quantity(value: 312.5, unit: "kcal"),
                                            distance: Quantity(value: 5012, unit: "m"),
                                            date: DateInterval(startUnixMs: 1_700_000_000_000, endUnixMs: 1_700_001_800_000),
                                            localizedName: "Running"),
                    route: [GeoLocation(latitude: 40.8, longitude: -73.96, altitudeM: 12.5)]))),
                Item(id: "A3", asset: .location(Location(place: "Riverside Park", city: "New York",
                                                         isWorkLocation: false))),
                Item(id: "A4", asset: .stateOfMind(StateOfMind(
                    state: StateOfMindSample(kind: .momentaryEmotion, valence: 0.5,
                                             valenceClassification: .pleasant,
                                             labels: [.happy, .grateful], associations: [.fitness]),
                    lightBackground: Gradient(stops: [GradientStop(color: Color(red: 1, green: 0.5, blue: 0, alpha: 1),
                                                                   location: 0.25)])))),
                Item(id: "A5", asset: .motionActivity(MotionActivity(steps: 6021, movementType: .runningWalking))),
            ])))))

    static let expectedText = """
        request_id: 42
        outcome {
          session_handle: "s-1"
          approved {
            title: "Morning run in Riverside Park"
            date {
              start_unix_ms: 1700000000000
              end_unix_ms: 1700003600000
            }
            items {
              id: "A1"
              photo {
                photo {
                  has_fd: true
                  content_type: "image/jpeg"
                  filename: "IMG_0001.jpg"
                  byte_count: 12345
                  pixel_width: 640
                  pixel_height: 480
                }
                date {
                  unix_ms: 1700000100000
                }
              }
            }
            items {
              id: "A2"
              workout {
                details {
                  activity_type: 37
                  active_energy_burned {
                    value: 312.5
                    unit: "kcal"
                  }
                  distance {
                    value: 5012
                    unit: "m"
                  }
                  date {
                    start_unix_ms: 1700000000000
                    end_unix_ms: 1700001800000
                  }
                  localized_name: "Running"
                }
                route {
                  latitude: 40.8
                  longitude: -73.96
                  altitude_m {
                    value: 12.5
                  }
                }
              }
            }
            items {
              id: "A3"
              location {
                place: "Riverside Park"
                city: "New York"
                is_work_location {
                }
              }
            }
            items {
              id: "A4"
              state_of_mind {
                state {
                  kind: STATE_OF_MIND_KIND_MOMENTARY_EMOTION
                  valence: 0.5
                  valence_classification: VALENCE_CLASSIFICATION_PLEASANT
                  labels: STATE_OF_MIND_LABEL_HAPPY
                  labels: STATE_OF_MIND_LABEL_GRATEFUL
                  associations: STATE_OF_MIND_ASSOCIATION_FITNESS
                }
                light_background {
                  stops {
                    color {
                      red: 1
                      green: 0.5
                      alpha: 1
                    }
                    location: 0.25
                  }
                }
              }
            }
            items {
              id: "A5"
              motion_activity {
                steps: 6021
                movement_type: MOVEMENT_TYPE_RUNNING_WALKING
              }
            }
          }
        }

        """

    @Test("a frame body we encode decodes with protoc --decode to the expected text")
    func protocDecodesOurs() throws {
        let text = try Protoc.decode(Self.outcome.serializedBytes())
        #expect(text == Self.expectedText)
    }

    @Test("a message protoc --encode writes decodes in our code")
    func weDecodeProtocs() throws {
        let bytes = try Protoc.encode(Self.expectedText)
        #expect(try Envelope(serializedBytes: bytes) == Self.outcome)
    }

    @Test("every envelope fixture survives protoc: no unknown fields, every string under its own name")
    func everyFixtureThroughProtoc() throws {
        for fixture in Envelope.fixtures {
            let text = try Protoc.decode(fixture.serializedBytes())
            for line in text.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                // protoc prints fields it does not know by number: none may appear.
                #expect(trimmed.first?.isNumber != true, "unknown field in protoc's reading: \(trimmed)")
                // Fixture strings name their own field ("Msg.field #n …"): protoc must agree.
                if let colon = trimmed.firstIndex(of: ":"), trimmed[trimmed.index(after: colon)...].hasPrefix(" \"") {
                    let field = trimmed[..<colon]
                    let value = trimmed[trimmed.index(colon, offsetBy: 3)...]
                    let named = value.split(separator: " ").first.map { $0.split(separator: ".").last ?? "" } ?? ""
                    #expect(named == field, "field \(field) holds \(value)")
                }
            }
            let back = try Envelope(serializedBytes: Protoc.encode(text))
            #expect(back == fixture)
        }
    }
}

/// Runs Google's protoc against the repository's schema.
enum Protoc {
    static func run(_ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["protoc", "-I", ProtocolFiles.protocolDirectory.path] + arguments + ["pickerd/v1/envelope.proto"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread { stdin.fileHandleForWriting.write(input); try? stdin.fileHandleForWriting.close() }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProtocFailed(message: String(decoding: errors, as: UTF8.self))
        }
        return output
    }

    static func decode(_ bytes: [UInt8]) throws -> String {
        String(decoding: try run(["--decode=pickerd.v1.Envelope"], input: Data(bytes)), as: UTF8.self)
    }

    static func encode(_ text: String) throws -> [UInt8] {
        [UInt8](try run(["--encode=pickerd.v1.Envelope"], input: Data(text.utf8)))
    }

    struct ProtocFailed: Error { var message: String }
}

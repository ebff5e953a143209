// pickerd-store-writer: a test helper for the store and the privacy audit.
//
//   pickerd-store-writer DATA-DIR            writes batches of items, one transaction per batch,
//                                             printing "ack N" after batch N commits, until killed
//   pickerd-store-writer DATA-DIR canaries   adds a suggestion "Canary day" whose every item carries
//                                             unique canary strings and media bytes, and prints
//                                             {"item id": ["canary", …]} as JSON

import Foundation
import PickerdChecksum
import PickerdStore
import PickerdWire

guard CommandLine.arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: pickerd-store-writer DATA-DIR [canaries]\n".utf8))
    exit(2)
}
let store = try Store(dataDirectory: CommandLine.arguments[1])

if CommandLine.arguments.count == 3 && CommandLine.arguments[2] == "canaries" {
    var canaries: [String: [String]] = [:]
    var items: [LibraryItem] = []
    let base: Int64 = 1_795_200_000_000
    func canary(_ label: String) -> String { "CANARY-\(label)-\(UUID().uuidString.prefix(8))" }
    func add(_ asset: (inout [StoredMedia], inout [String]) throws -> Item.Asset) throws {
        var media: [StoredMedia] = []
        var strings: [String] = []
        let made = try asset(&media, &strings)
        let item = LibraryItem(id: UUID(), asset: made, media: media, startMs: base + Int64(items.count) * 60_000)
        items.append(item)
        canaries[item.id.uuidString] = strings
    }
    /// A media file whose bytes hold a canary of their own.
    func file(_ label: String, _ media: inout [StoredMedia], _ strings: inout [String]) throws -> Media {
        let marker = canary("bytes-\(label)")
        strings.append(marker)
        // A real (1×1) PNG whose comment holds the canary: what pickerd releases must be a type it
        // can redact (anything else is left out of a release that does not keep the place).
        let path = "canary/\(UUID().uuidString).png"
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let crc = CRC32.checksum(body)
            return [UInt8(data.count >> 24), UInt8((data.count >> 16) & 0xFF), UInt8((data.count >> 8) & 0xFF), UInt8(data.count & 0xFF)]
                + body + [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        }
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
            + chunk("tEXt", Array("Comment".utf8) + [0] + Array("media \(marker) end".utf8))
            + chunk("IDAT", [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
            + chunk("IEND", [])
        try store.writeMedia(bytes, to: path)
        let stored = StoredMedia(relativePath: path, contentType: "image/png", filename: "\(label).png", byteCount: UInt64(bytes.count))
        media.append(stored)
        return stored.media(slot: media.count - 1)
    }
    try add { m, s in
        let photo = try file("photo", &m, &s)
        return .photo(Photo(photo: photo, date: Timestamp(unixMs: base)))
    }
    try add { m, s in
        let name = canary("contact"); s.append(name)
        return .contact(Contact(name: name, photo: try file("contact", &m, &s)))
    }
    try add { _, s in
        let place = canary("place"), city = canary("city"); s += [place, city]
        return .location(Location(place: place, city: city, location: GeoLocation(latitude: 12.345_678, longitude: 98.765_432)))
    }
    try add { m, s in
        let song = canary("song"), artist = canary("artist"); s += [song, artist]
        return .song(Song(song: song, artist: artist, album: "Album", artwork: try file("artwork", &m, &s)))
    }
    try add { _, s in
        let prompt = canary("prompt"); s.append(prompt)
        return .reflection(Reflection(prompt: prompt, color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1)))
    }
    try add { m, s in
        let title = canary("media"); s.append(title)
        return .genericMedia(GenericMedia(title: title, artist: "A", album: "B", appIcon: try file("icon", &m, &s)))
    }
    try add { m, s in
        let name = canary("workout"); s.append(name)
        return .workout(Workout(details: WorkoutDetails(activityType: 37, localizedName: name), icon: try file("workout", &m, &s)))
    }
    try store.insert(items)
    let title = canary("title")
    var suggestions = try store.suggestions()
    suggestions.append(StoredSuggestion(id: UUID(), title: "Canary day \(title)", kind: .outing, startMs: base,
                                        endMs: base + Int64(items.count) * 60_000, score: 100, itemIDs: items.map(\.id)))
    try store.replaceSuggestions(suggestions)
    canaries["title"] = [title]
    let data = try JSONSerialization.data(withJSONObject: canaries, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
    exit(0)
}

/// The id of item `index` of batch `batch`: the test computes the same ids.
func itemID(batch: Int, index: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%06x%06x", batch, index))!
}

for batch in 0..<100_000 {
    let items = (0..<50).map { index in
        LibraryItem(id: itemID(batch: batch, index: index),
                    asset: .reflection(Reflection(prompt: String(repeating: "batch \(batch) item \(index) ", count: 20),
                                                  color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))),
                    startMs: Int64(batch * 1000 + index))
    }
    try store.insert(items)
    FileHandle.standardOutput.write(Data("ack \(batch)\n".utf8))
}

import Foundation
import PickerdImport

/// Reads vCard files as address books write them: RFC 6350 (4.0) and the 2.1 and 3.0 cards phones,
/// Evolution, Thunderbird, Nextcloud and DAVx⁵ export. Folded lines, 2.1's quoted-printable (with
/// its soft line breaks) and `CHARSET`, escaped commas and semicolons, `FN` or `N`, `EMAIL`, `UID`,
/// and `PHOTO` as base64 (`ENCODING=b`, `ENCODING=BASE64`, 2.1's bare `BASE64`) or a `data:` URI.
/// A photo given by URL is never fetched; one that is not a JPEG or PNG by its bytes, or is larger
/// than ``maximumPhotoBytes``, is left out (the contact is kept). A card without a name is skipped.
///
/// A file that breaks the format (a line that is not a property, text outside a card, a card that
/// never ends, broken base64, a version other than 2.1, 3.0 or 4.0) is refused whole, naming the line.
enum VCardReader {
    /// The largest vCard file read (a 10,000-card address book with photos is a few tens of MB).
    static let maximumFile = 64 << 20
    /// The largest contact photo kept, decoded.
    static let maximumPhotoBytes = 4 << 20
    /// The most cards one file may hold.
    static let maximumCards = 100_000

    /// What a file held.
    struct Result {
        var contacts: [ImportedContact] = []
        /// Photos left out: given by URL, too large, or not a JPEG or PNG.
        var photosLeftOut = 0
        /// Cards skipped for having no name.
        var nameless = 0
    }

    /// Reads the vCard file at `path`.
    /// - Throws: ``ImportError`` naming the line where the file breaks the format.
    static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        let bytes = try ExportReaders.whole(path, name: name, limit: maximumFile, what: "an address book")
        let result = try read(bytes, file: name)
        var imported = ImportedData()
        imported.contacts = result.contacts
        if result.photosLeftOut > 0 { imported.leftOut["contact photos left out"] = result.photosLeftOut }
        if result.nameless > 0 { imported.leftOut["cards without a name"] = result.nameless }
        return imported
    }

    /// Reads vCard text.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - file: its name, for errors.
    /// - Throws: ``ImportError`` naming the line where it breaks the format.
    static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> Result {
        var result = Result()
        var card: Card?
        var nested = 0
        var byKey: [String: Int] = [:]
        for line in logicalLines(bytes) {
            func fail(_ message: String) -> ImportError { ImportError(file: file, location: "line \(line.number)", message) }
            guard let property = Property(line.bytes) else { throw fail("not a vCard property (NAME:value)") }
            let value = property.text
            switch property.name {
            case "BEGIN" where value.uppercased() == "VCARD":
                if card != nil {
                    nested += 1  // 2.1's AGENT may hold a card of its own: it is not one of the person's
                } else {
                    guard result.contacts.count < maximumCards else { throw fail("more than \(maximumCards) cards") }
                    card = Card(line: line.number)
                }
                continue
            case "END" where value.uppercased() == "VCARD":
                guard let done = card else { throw fail("END:VCARD without BEGIN:VCARD") }
                if nested > 0 {
                    nested -= 1
                    continue
                }
                card = nil
                result.photosLeftOut += done.photosLeftOut
                guard let contact = done.contact else {
                    result.nameless += 1
                    continue
                }
                // The same card twice in one file: the later one stands.
                if let index = byKey[contact.key] {
                    result.contacts[index] = contact
                } else {
                    byKey[contact.key] = result.contacts.count
                    result.contacts.append(contact)
                }
                continue
            default:
                break
            }
            guard card != nil else { throw fail("text outside a card (BEGIN:VCARD … END:VCARD)") }
            if nested > 0 { continue }
            try card!.take(property, fail: fail)
        }
        if let open = card { throw ImportError(file: file, location: "line \(open.line)", "a card that never ends (no END:VCARD)") }
        return result
    }

    // MARK: Lines

    struct Line {
        var number: Int
        var bytes: [UInt8]
    }

    /// The file's logical lines: folded lines joined (a line that begins with a space or a tab
    /// continues the one before, RFC 6350 3.2), quoted-printable soft line breaks joined (2.1: a
    /// value that ends in `=`), blank lines dropped, a BOM and CRs removed. Each keeps the number
    /// of its first physical line.
    static func logicalLines(_ bytes: [UInt8]) -> [Line] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var physical = body.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == 0x0D ? line.dropLast() : line
        }
        if physical.last?.isEmpty == true { physical.removeLast() }
        var lines: [Line] = []
        var index = 0
        while index < physical.count {
            let raw = physical[index]
            index += 1
            if raw.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if raw.first == 0x20 || raw.first == 0x09, !lines.isEmpty {
                lines[lines.count - 1].bytes += raw.dropFirst()
            } else {
                lines.append(Line(number: index, bytes: Array(raw)))
            }
            // 2.1's quoted-printable: a trailing `=` is a soft line break.
            while lines[lines.count - 1].isQuotedPrintable, lines[lines.count - 1].bytes.last == UInt8(ascii: "="), index < physical.count {
                lines[lines.count - 1].bytes.removeLast()
                lines[lines.count - 1].bytes += physical[index]
                index += 1
            }
        }
        return lines
    }

    // MARK: Properties

    /// One property line: `[group.]NAME[;param…]:value`.
    struct Property {
        /// The name, upper case, without its group.
        var name: String
        /// Parameters, names upper case; 2.1's bare parameters (`;HOME;BASE64`) have the name `TYPE`.
        var parameters: [(name: String, value: String)]
        /// The raw value bytes.
        var raw: ArraySlice<UInt8>

        init?(_ line: [UInt8]) {
            // The value starts at the first colon outside a quoted parameter value.
            var quoted = false
            var colon: Int?
            var cuts: [Int] = []
            for (i, byte) in line.enumerated() {
                if byte == UInt8(ascii: "\"") { quoted.toggle() }
                if quoted { continue }
                if byte == UInt8(ascii: ":") {
                    colon = i
                    break
                }
                if byte == UInt8(ascii: ";") { cuts.append(i) }
            }
            guard let colon else { return nil }
            var pieces: [ArraySlice<UInt8>] = []
            var start = 0
            for cut in cuts + [colon] {
                pieces.append(line[start..<cut])
                start = cut + 1
            }
            let qualified = String(decoding: pieces[0], as: UTF8.self)
            let bare = qualified.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? qualified
            guard !bare.isEmpty, bare.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (48...57).contains($0)
                || (65...90).contains($0) || (97...122).contains($0) }) else { return nil }
            name = bare.uppercased()
            parameters = pieces.dropFirst().map { piece in
                let text = String(decoding: piece, as: UTF8.self)
                guard let equals = text.firstIndex(of: "=") else { return ("TYPE", text) }
                var value = String(text[text.index(after: equals)...])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                return (String(text[..<equals]).uppercased(), value)
            }
            raw = line[(colon + 1)...]
        }

        /// The values of parameter `name` (comma lists split), upper case.
        func values(_ name: String) -> [String] {
            parameters.filter { $0.name == name }.flatMap { $0.value.split(separator: ",").map { $0.uppercased() } }
        }

        /// How the value is encoded: `B` (base64), `QUOTED-PRINTABLE`, or nil.
        var encoding: String? {
            if let given = values("ENCODING").first { return given == "BASE64" ? "B" : given }
            let bare = values("TYPE")
            if bare.contains("BASE64") || bare.contains("B") { return "B" }
            if bare.contains("QUOTED-PRINTABLE") { return "QUOTED-PRINTABLE" }
            return nil
        }

        /// The value as text: quoted-printable decoded, read in its `CHARSET` (UTF-8 by default,
        /// Windows-1252 when it is not valid UTF-8), still escaped.
        var text: String {
            let bytes = encoding == "QUOTED-PRINTABLE" ? VCardReader.quotedPrintable(raw) : Array(raw)
            return VCardReader.decode(bytes, charset: values("CHARSET").first)
        }
    }

    /// One card being read.
    struct Card {
        var line: Int
        var formatted: String?
        var structured: [String]?
        var uid: String?
        var emails: [String] = []
        var photo: [UInt8]?
        var photoType: String?
        var photosLeftOut = 0

        init(line: Int) { self.line = line }

        mutating func take(_ property: Property, fail: (String) -> ImportError) throws(ImportError) {
            switch property.name {
            case "VERSION":
                let version = property.text.trimmingCharacters(in: .whitespaces)
                guard ["2.1", "3.0", "4.0"].contains(version) else { throw fail("vCard version \(version) is not 2.1, 3.0 or 4.0") }
            case "FN":
                let name = VCardReader.unescape(property.text)
                if formatted == nil, !name.isEmpty { formatted = name }
            case "N":
                if structured == nil { structured = VCardReader.components(property.text) }
            case "UID":
                let uid = VCardReader.unescape(property.text)
                if !uid.isEmpty { self.uid = uid }
            case "EMAIL":
                var email = VCardReader.unescape(property.text)
                if email.lowercased().hasPrefix("mailto:") { email = String(email.dropFirst(7)) }
                if !email.isEmpty, !emails.contains(email) { emails.append(email) }
            case "PHOTO":
                guard photo == nil else { return }
                switch try VCardReader.photo(property, fail: fail) {
                case .some(let (bytes, type)):
                    photo = bytes
                    photoType = type
                case .none:
                    photosLeftOut += 1
                }
            default:
                break
            }
        }

        /// The contact, or nil when the card names no one.
        var contact: ImportedContact? {
            // N: family; given; additional; prefixes; suffixes.
            let n = (structured ?? []) + Array(repeating: "", count: 5)
            let fromN = [n[3], n[1], n[2], n[0], n[4]].filter { !$0.isEmpty }.joined(separator: " ")
            guard let name = ImportedContact.normalized(formatted ?? fromN), !name.isEmpty else { return nil }
            var others: [String] = []
            if let givenFamily = ImportedContact.normalized([n[1], n[0]].filter { !$0.isEmpty }.joined(separator: " ")),
               !givenFamily.isEmpty, givenFamily != name {
                others.append(givenFamily)
            }
            return ImportedContact(uid: uid, name: name, otherNames: others, emails: emails, photo: photo, photoType: photoType, line: line)
        }
    }

    // MARK: Values

    /// A PHOTO's image: base64 (`ENCODING=b`) or a `data:` URI, checked to be a JPEG or a PNG by
    /// its bytes and bounded in size. `nil` when it is left out (a URL, too large, another format).
    static func photo(_ property: Property, fail: (String) -> ImportError) throws(ImportError) -> ([UInt8], String)? {
        var bytes: [UInt8]
        if property.encoding == "B" {
            guard property.raw.count / 4 * 3 <= maximumPhotoBytes + 3 else { return nil }
            guard let decoded = base64(property.raw) else { throw fail("a PHOTO whose base64 is broken") }
            bytes = decoded
        } else {
            let value = property.raw.drop { $0 == 0x20 || $0 == 0x09 }
            guard value.count > 5, String(decoding: value.prefix(5), as: UTF8.self).lowercased() == "data:" else {
                return nil  // a URL (http:, file:, cid:): never fetched
            }
            guard let comma = value.firstIndex(of: UInt8(ascii: ",")) else { throw fail("a PHOTO data: URI without a comma") }
            let header = String(decoding: value[value.startIndex..<comma], as: UTF8.self).lowercased()
            let payload = value[(comma + 1)...]
            if header.hasSuffix(";base64") {
                guard payload.count / 4 * 3 <= maximumPhotoBytes + 3 else { return nil }
                guard let decoded = base64(payload) else { throw fail("a PHOTO data: URI whose base64 is broken") }
                bytes = decoded
            } else {
                guard payload.count <= maximumPhotoBytes * 3 else { return nil }
                guard let decoded = percentDecoded(payload) else { throw fail("a PHOTO data: URI that is not percent-encoded") }
                bytes = decoded
            }
        }
        guard bytes.count <= maximumPhotoBytes else { return nil }
        switch MediaFormat(head: Array(bytes.prefix(32))) {
        case .jpeg?: return (bytes, "image/jpeg")
        case .png?: return (bytes, "image/png")
        default: return nil
        }
    }

    /// Base64 with whitespace ignored and missing padding tolerated; nil when it is not base64.
    static func base64(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        var text = raw.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        guard !text.isEmpty, text.count % 4 != 1 else { return nil }
        text += Array(repeating: UInt8(ascii: "="), count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: Data(text)).map { [UInt8]($0) }
    }

    /// A `data:` URI's percent-encoding undone (`%2F`); `nil` when a `%` is not followed by two hex digits.
    static func percentDecoded(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        unescaped(raw, marker: UInt8(ascii: "%"), strict: true)
    }

    /// Quoted-printable (`=E2=82=AC`); a `=` not followed by two hex digits is kept as it is.
    static func quotedPrintable(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        unescaped(raw, marker: UInt8(ascii: "="), strict: false)!
    }

    /// `raw` with each `marker` and the two hex digits after it made the byte they name. Where the
    /// digits are missing: `nil` when `strict`, else the marker is kept as it is.
    private static func unescaped(_ raw: ArraySlice<UInt8>, marker: UInt8, strict: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        var i = raw.startIndex
        while i < raw.endIndex {
            if raw[i] == marker {
                if i + 2 < raw.endIndex, let high = hex(raw[i + 1]), let low = hex(raw[i + 2]) {
                    out.append(high << 4 | low)
                    i += 3
                    continue
                }
                if strict { return nil }
            }
            out.append(raw[i])
            i += 1
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Bytes as text in `charset`: UTF-8 by default; Windows-1252 (a superset of Latin-1 for text)
    /// when the bytes are not UTF-8 or the card says ISO-8859-1 or Windows-1252.
    static func decode(_ bytes: [UInt8], charset: String?) -> String {
        switch charset {
        case "ISO-8859-1", "LATIN1", "WINDOWS-1252", "CP1252":
            return String(data: Data(bytes), encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
        default:
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            return String(data: Data(bytes), encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A text value with vCard's escapes undone: `\,` `\;` `\\` `\n` (RFC 6350 3.4).
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text.trimmingCharacters(in: .whitespaces) }
        var out = ""
        var escaped = false
        for c in text {
            if escaped {
                out.append(c == "n" || c == "N" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// A structured value's components (`N`), split at unescaped semicolons, each unescaped, a
    /// component's own list (unescaped commas) joined with spaces.
    static func components(_ text: String) -> [String] {
        var parts: [String] = [], current = ""
        var escaped = false
        for c in text {
            if escaped {
                current.append("\\")
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == ";" {
                parts.append(current)
                current = ""
            } else if c == "," {
                current.append(" ")
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts.map { ImportedContact.normalized(unescape($0)) ?? "" }
    }
}

extension VCardReader.Line {
    /// Whether the line is a property whose value is quoted-printable (2.1).
    var isQuotedPrintable: Bool { head.contains("QUOTED-PRINTABLE") }
    /// The line's name and parameters, upper case.
    private var head: String {
        let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
        return String(decoding: bytes[..<end], as: UTF8.self).uppercased()
    }
}

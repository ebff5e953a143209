import Glibc
import PickerdImport

/// A pull tokenizer for large, flat XML documents (Apple Health's `export.xml`, hundreds of MB to
/// several GB): it reads the file in fixed chunks and hands out one tag at a time, never a tree.
/// ``ExportXML`` builds a tree of the whole document and is kept for the small workout files.
///
/// What it reads: start, end and empty-element tags with their attributes (the five predefined
/// entities and character references decoded on request); text, comments, processing instructions,
/// CDATA and a DOCTYPE with an internal subset (Apple's export carries one) are skipped.
/// What it checks, each an ``ImportError`` with the line: tags that do not match, a document that
/// ends inside an element (a truncated export), nesting past ``maximumDepth``, a tag or a comment
/// longer than ``maximumTag`` (the only thing ever held whole), malformed attributes, elements after
/// the root. Memory stays at one chunk plus the longest tag, whatever the file's size.
final class XMLTagStream {
    /// A token: an element opening (an empty element `<a/>` gives `.open` then `.close`) or closing.
    enum Token { case open, close }

    /// The longest tag (or comment, DOCTYPE, processing instruction) accepted, in bytes.
    static let maximumTag = 1 << 20
    /// The deepest nesting accepted (Apple's export nests 4 deep).
    static let maximumDepth = 64
    /// How much is read at a time.
    static let chunk = 1 << 20

    private let source: ReaderFiles.Stream
    private let file: String
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    private var start = 0, end = 0
    private var atEOF = false
    /// Lines passed before `buffer[start]`, and the byte offset of `buffer[0]` in the file.
    private var linesBefore = 1
    private var base: Int64 = 0
    /// The current tag's name and attributes, as ranges into `buffer` (valid until the next call).
    private var nameRange = 0..<0
    private var attributes: [(name: Range<Int>, value: Range<Int>, entity: Bool)] = []
    /// The open elements' names, outermost first (short names are inline strings: no allocation).
    private var open: [String] = []
    private var pendingClose = false
    private var rootClosed = false
    private var sawRoot = false

    /// Opens `path` for reading, through ``ReaderFiles`` (a zip's entry too large to unpack, as
    /// Apple Health's `export.xml` in `export.zip`, is inflated as it is read).
    /// - Throws: ``ImportError`` when it cannot be opened.
    init(path: String, file: String) throws(ImportError) {
        guard let source = ReaderFiles.openStream(path) else { throw ImportError(file: file, "cannot be read") }
        self.source = source
        self.file = file
        buffer = .allocate(capacity: Self.chunk + Self.maximumTag)
    }

    deinit {
        buffer.deallocate()
    }

    /// How deep the current tag is: 1 for the root.
    var depth: Int { pendingClose ? open.count + 1 : open.count }
    /// Bytes of the file consumed so far.
    var offset: Int64 { base + Int64(start) }
    /// The line the tokenizer is at (1-based), for errors.
    var line: Int { linesBefore }

    /// An error at the current line.
    func error(_ message: String) -> ImportError { ImportError(file: file, location: "line \(line)", message) }

    /// Whether the current tag is called `name`.
    func nameIs(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { wanted in
            wanted.count == nameRange.count && memcmp(wanted.baseAddress!, buffer.baseAddress! + nameRange.lowerBound, wanted.count) == 0
        }
    }

    /// The current tag's name.
    var name: String { String(decoding: UnsafeBufferPointer(rebasing: buffer[nameRange]), as: UTF8.self) }

    /// The raw bytes of the attribute called `name` (entities not decoded), `nil` when absent.
    func rawAttribute(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        name.withUTF8Buffer { wanted -> UnsafeBufferPointer<UInt8>? in
            for attribute in attributes where attribute.name.count == wanted.count
                && memcmp(wanted.baseAddress!, buffer.baseAddress! + attribute.name.lowerBound, wanted.count) == 0 {
                return UnsafeBufferPointer(rebasing: buffer[attribute.value])
            }
            return nil
        }
    }

    /// The attribute called `name`, entities decoded; `nil` when absent.
    func attribute(_ name: StaticString) -> String? {
        name.withUTF8Buffer { wanted -> String? in
            for attribute in attributes where attribute.name.count == wanted.count
                && memcmp(wanted.baseAddress!, buffer.baseAddress! + attribute.name.lowerBound, wanted.count) == 0 {
                let bytes = UnsafeBufferPointer(rebasing: buffer[attribute.value])
                return attribute.entity ? Self.decoded(bytes) : String(decoding: bytes, as: UTF8.self)
            }
            return nil
        }
    }

    /// Whether the attribute called `name` is exactly `value` (no entities: for identifiers).
    func attribute(_ name: StaticString, is value: StaticString) -> Bool {
        guard let raw = rawAttribute(name) else { return false }
        return value.withUTF8Buffer { $0.count == raw.count && memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }
    }

    /// The next tag, `nil` at the end of the document.
    /// - Throws: ``ImportError`` with the line when the document is malformed, truncated or cannot be read.
    func next() throws(ImportError) -> Token? {
        if pendingClose {
            pendingClose = false
            return .close
        }
        while true {
            // Text up to the next `<` is skipped (a line at a time in Apple's export).
            guard let lt = try find(UInt8(ascii: "<")) else {
                if !open.isEmpty {
                    throw error("the file ends inside <\(open.joined(separator: "> <"))> (a truncated export?)")
                }
                guard sawRoot else { throw error("no root element (an empty or cut file?)") }
                return nil
            }
            advance(to: lt)
            guard try fill(2) else { throw error("the file ends inside a tag") }
            let second = buffer[start + 1]
            switch second {
            case UInt8(ascii: "?"):
                try skip(past: "?>", what: "a processing instruction")
            case UInt8(ascii: "!"):
                try skipDeclaration()
            case UInt8(ascii: "/"):
                let tagEnd = try tagEnd()
                var i = start + 2
                let nameStart = i
                while i < tagEnd, !Self.isSpace(buffer[i]) { i += 1 }
                nameRange = nameStart..<i
                let closing = name
                guard let top = open.last else { throw error("</\(closing)> closes nothing") }
                guard top == closing else { throw error("</\(closing)> where <\(top)> should close") }
                open.removeLast()
                attributes.removeAll(keepingCapacity: true)
                advance(to: tagEnd + 1)
                if open.isEmpty { rootClosed = true }
                return .close
            default:
                let tagEnd = try tagEnd()
                guard !rootClosed else { throw error("an element after the root element's end") }
                var last = tagEnd - 1
                let empty = buffer[last] == UInt8(ascii: "/")
                if empty { last -= 1 }
                try parseTag(from: start + 1, through: last)
                guard open.count < Self.maximumDepth else { throw error("elements nest deeper than \(Self.maximumDepth)") }
                sawRoot = true
                advance(to: tagEnd + 1)
                if empty {
                    pendingClose = true
                    if open.isEmpty { rootClosed = true }
                } else {
                    open.append(name)
                }
                return .open
            }
        }
    }

    // MARK: - Reading

    /// Makes at least `count` bytes available from `start` (reading more, moving what is left to the
    /// front); false when the file ends first.
    private func fill(_ count: Int) throws(ImportError) -> Bool {
        while end - start < count {
            if atEOF { return false }
            if start > 0 {
                let left = end - start
                if left > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + start, left) }
                base += Int64(start)
                end = left
                start = 0
            }
            let room = buffer.count - end
            guard room > 0 else { throw error("a tag longer than \(Self.maximumTag >> 10) KiB") }
            let n: Int
            do {
                n = try source.read(into: buffer.baseAddress! + end, count: min(room, Self.chunk))
            } catch {
                throw self.error(error.message)
            }
            if n == 0 { atEOF = true } else { end += n }
        }
        return true
    }

    /// The index of the next `byte` at or after `start`, reading on (and dropping what is passed)
    /// as needed; `nil` when the file ends first.
    private func find(_ byte: UInt8) throws(ImportError) -> Int? {
        var from = start
        while true {
            if from < end, let hit = memchr(buffer.baseAddress! + from, Int32(byte), end - from) {
                return buffer.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            // Nothing here: all of it is passed.
            advance(to: end)
            guard try fill(1) else { return nil }
            from = start
        }
    }

    /// Moves `start` to `index`, counting the lines passed.
    private func advance(to index: Int) {
        var p = start
        while p < index, let hit = memchr(buffer.baseAddress! + p, 0x0A, index - p) {
            linesBefore += 1
            p = buffer.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        start = index
    }

    /// The index of the `>` that ends the tag at `start` (quotes respected), reading on as needed.
    private func tagEnd() throws(ImportError) -> Int {
        var i = start + 1
        var quote: UInt8 = 0
        while true {
            while i < end {
                let b = buffer[i]
                if quote != 0 {
                    if b == quote { quote = 0 }
                } else if b == UInt8(ascii: ">") {
                    try bound(i - start)
                    return i
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    quote = b
                } else if b == UInt8(ascii: "<") {
                    throw error("a `<` inside a tag")
                }
                i += 1
            }
            let scanned = i - start
            try bound(scanned)
            guard try fill(scanned + 1) else { throw error("the file ends inside a tag (a truncated export?)") }
            i = start + scanned
        }
    }

    /// Throws when a construct read so far is longer than ``maximumTag``.
    private func bound(_ scanned: Int) throws(ImportError) {
        guard scanned <= Self.maximumTag else { throw error("a tag longer than \(Self.maximumTag >> 10) KiB") }
    }

    /// Skips from `start` past `terminator`, which must come within ``maximumTag`` bytes.
    private func skip(past terminator: StaticString, what: String) throws(ImportError) {
        let needle = terminator.withUTF8Buffer { Array($0) }
        var i = start + 2
        while true {
            while i + needle.count <= end {
                if buffer[i] == needle[0], memcmp(buffer.baseAddress! + i, needle, needle.count) == 0 {
                    try bound(i - start)
                    advance(to: i + needle.count)
                    return
                }
                i += 1
            }
            let scanned = i - start
            try bound(scanned)
            guard try fill(scanned + needle.count) else { throw error("the file ends inside \(what)") }
            i = start + scanned
        }
    }

    /// `<!--…-->`, `<![CDATA[…]]>` or `<!DOCTYPE … [ … ]>`.
    private func skipDeclaration() throws(ImportError) {
        guard try fill(4) else { throw error("the file ends inside a declaration") }
        if buffer[start + 2] == UInt8(ascii: "-"), buffer[start + 3] == UInt8(ascii: "-") {
            return try skip(past: "-->", what: "a comment")
        }
        if try fill(9), memcmp(buffer.baseAddress! + start, "<![CDATA[", 9) == 0 { return try skip(past: "]]>", what: "a CDATA section") }
        // A DOCTYPE: its internal subset's brackets and quotes hold `>`s that do not end it.
        var i = start + 2, brackets = 0
        var quote: UInt8 = 0
        while true {
            while i < end {
                let b = buffer[i]
                if quote != 0 {
                    if b == quote { quote = 0 }
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    quote = b
                } else if b == UInt8(ascii: "[") {
                    brackets += 1
                } else if b == UInt8(ascii: "]") {
                    brackets -= 1
                } else if b == UInt8(ascii: ">"), brackets <= 0 {
                    try bound(i - start)
                    advance(to: i + 1)
                    return
                }
                i += 1
            }
            let scanned = i - start
            try bound(scanned)
            guard try fill(scanned + 1) else { throw error("the file ends inside its DOCTYPE") }
            i = start + scanned
        }
    }

    /// Reads the name and attributes of the tag in `buffer[from...through]`.
    private func parseTag(from: Int, through last: Int) throws(ImportError) {
        var i = from
        while i <= last, !Self.isSpace(buffer[i]) { i += 1 }
        guard i > from else { throw error("a tag without a name") }
        nameRange = from..<i
        attributes.removeAll(keepingCapacity: true)
        while true {
            while i <= last, Self.isSpace(buffer[i]) { i += 1 }
            if i > last { return }
            let nameStart = i
            while i <= last, buffer[i] != UInt8(ascii: "="), !Self.isSpace(buffer[i]) { i += 1 }
            let attributeName = nameStart..<i
            while i <= last, Self.isSpace(buffer[i]) { i += 1 }
            guard i <= last, buffer[i] == UInt8(ascii: "="), !attributeName.isEmpty else {
                throw error("a malformed attribute in <\(name)>")
            }
            i += 1
            while i <= last, Self.isSpace(buffer[i]) { i += 1 }
            guard i <= last, buffer[i] == UInt8(ascii: "\"") || buffer[i] == UInt8(ascii: "'") else {
                throw error("an attribute value without quotes in <\(name)>")
            }
            let quote = buffer[i]
            i += 1
            let valueStart = i
            var entity = false
            while i <= last, buffer[i] != quote {
                if buffer[i] == UInt8(ascii: "&") { entity = true }
                i += 1
            }
            guard i <= last else { throw error("an unterminated attribute value in <\(name)>") }
            attributes.append((attributeName, valueStart..<i, entity))
            i += 1
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// An attribute value with its entities and character references decoded (an unknown entity is
    /// kept as written).
    static func decoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "&"), let semi = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(bytes[i])
                i += 1
                continue
            }
            if let scalar = ExportXML.entity(String(decoding: bytes[(i + 1)..<semi], as: UTF8.self)) {
                out += Array(String(Character(scalar)).utf8)
                i = semi + 1
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

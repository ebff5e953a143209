import Glibc
public import PickerdImport

// The streaming JSON reader of the location-history importers: a file is read in chunks (64 KiB)
// from its descriptor and parsed in place, so a Records.json of hundreds of MB is never held whole.
// The reader is a pull parser: the caller says what it expects (an object, its next key, an array's
// next element, a number) and the parser checks the grammar as it goes, counting lines for errors.

/// A JSON syntax or read error, at a line of the file.
struct JSONError: Error, Sendable {
    /// The line (1-based) the parser was on.
    var line: Int
    /// What was wrong.
    var message: String
}

/// The bytes a ``ChunkSource`` reads into, freed with it.
final class ChunkStorage {
    let pointer: UnsafeMutablePointer<UInt8>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit { pointer.deallocate() }
}

/// A file read in chunks through `read(2)`, or bytes already in memory (one chunk).
struct ChunkSource {
    let storage: ChunkStorage
    /// The descriptor, or −1 for bytes in memory. Not owned: whoever opened it closes it.
    let fd: Int32
    /// Whether the last fill found the end.
    private(set) var ended: Bool
    /// How many bytes the current chunk holds.
    private(set) var count: Int
    /// Bytes read so far.
    private(set) var total = 0

    /// A source reading `fd` in chunks of `chunkSize` bytes.
    init(fd: Int32, chunkSize: Int = 64 * 1024) {
        storage = ChunkStorage(capacity: chunkSize)
        self.fd = fd
        ended = false
        count = 0
    }

    /// A source over bytes in memory.
    init(bytes: some Collection<UInt8>) {
        storage = ChunkStorage(capacity: bytes.count)
        var i = 0
        for b in bytes { storage.pointer[i] = b; i += 1 }
        fd = -1
        ended = true
        count = i
        total = i
    }

    /// Reads the next chunk into the storage.
    /// - Returns: whether there are bytes (false at the end of the file).
    mutating func fill() throws(JSONError) -> Bool {
        guard fd >= 0, !ended else { count = 0; return false }
        while true {
            let n = Glibc.read(fd, storage.pointer, storage.capacity)
            if n > 0 { count = n; total += n; return true }
            if n == 0 { ended = true; count = 0; return false }
            if errno == EINTR { continue }
            throw JSONError(line: 0, message: "cannot be read: \(String(cString: strerror(errno)))")
        }
    }
}

/// A JSON value, for the small parts of a file read whole (one timeline object, one line).
indirect enum JSONValue: Sendable, Hashable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// A string's value.
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A number's value, or a string's that holds a number (Google writes `"timestampMs": "171…"`).
    var double: Double? {
        switch self {
        case .number(let d): return d
        case .string(let s): return Double(s)
        default: return nil
        }
    }

    /// A whole number's value, from a number or a string of digits.
    var int64: Int64? {
        switch self {
        case .number(let d): return d.rounded() == d && abs(d) < 9.0e18 ? Int64(d) : nil
        case .string(let s): return Int64(s)
        default: return nil
        }
    }

    /// An array's elements.
    var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

/// A pull parser over a ``ChunkSource``: the caller walks the structure it expects.
struct JSONPullParser {
    /// What the next value is.
    enum Kind { case object, array, string, number, bool, null }

    private var source: ChunkSource
    private var pos = 0
    /// The line (1-based) the parser is on.
    private(set) var line = 1
    /// The last string or number read, as bytes (reused: no allocation per token).
    private(set) var scratch: [UInt8] = []
    /// For each open container: whether a member was read in it (so the next needs a comma).
    private var opened: [Bool] = []
    /// How deep containers may nest before the file is refused.
    static let maximumDepth = 256

    /// A parser reading `fd` in chunks.
    init(fd: Int32, chunkSize: Int = 64 * 1024) {
        source = ChunkSource(fd: fd, chunkSize: chunkSize)
        scratch.reserveCapacity(256)
    }

    /// A parser over bytes in memory.
    init(bytes: some Collection<UInt8>) {
        source = ChunkSource(bytes: bytes)
        scratch.reserveCapacity(256)
    }

    /// Bytes read from the source so far.
    var bytesRead: Int { source.total }

    /// How deep the parser is (open containers).
    var depth: Int { opened.count }

    // MARK: bytes

    private func error(_ message: String) -> JSONError { JSONError(line: line, message: message) }

    private var truncated: JSONError { error("the JSON ends early (the file is truncated)") }

    /// The byte at the read position, reading the next chunk when needed; nil at the end.
    @inline(__always) private mutating func peekByte() throws(JSONError) -> UInt8? {
        if pos < source.count { return source.storage.pointer[pos] }
        do {
            guard try source.fill() else { return nil }
        } catch { throw JSONError(line: line, message: error.message) }
        pos = 0
        return source.storage.pointer[0]
    }

    /// The next byte, consumed; a truncation error at the end.
    @inline(__always) private mutating func nextByte() throws(JSONError) -> UInt8 {
        guard let b = try peekByte() else { throw truncated }
        pos += 1
        return b
    }

    /// Skips whitespace, counting lines.
    /// - Returns: the next byte (not consumed), nil at the end.
    @inline(__always) private mutating func skipWhitespace() throws(JSONError) -> UInt8? {
        while true {
            guard let b = try peekByte() else { return nil }
            switch b {
            case 0x20, 0x09, 0x0D: pos += 1
            case 0x0A: line += 1; pos += 1
            default: return b
            }
        }
    }

    private func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    // MARK: structure

    /// What the next value is (whitespace skipped, nothing consumed).
    mutating func peekKind() throws(JSONError) -> Kind {
        guard let b = try skipWhitespace() else { throw truncated }
        switch b {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw error("unexpected \(describe(b)) where a value should be")
        }
    }

    private mutating func open(_ bracket: UInt8, _ what: String) throws(JSONError) {
        guard let b = try skipWhitespace() else { throw truncated }
        guard b == bracket else { throw error("expected \(what), found \(describe(b))") }
        guard opened.count < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
        pos += 1
        opened.append(false)
    }

    /// Consumes `{`.
    mutating func beginObject() throws(JSONError) { try open(UInt8(ascii: "{"), "an object") }

    /// Consumes `[`.
    mutating func beginArray() throws(JSONError) { try open(UInt8(ascii: "["), "an array") }

    /// Moves to the open object's next member: consumes the comma, its key (into ``scratch``) and
    /// the colon; or the closing `}`.
    /// - Returns: false when the object ended.
    mutating func nextKey() throws(JSONError) -> Bool {
        guard var b = try skipWhitespace() else { throw truncated }
        if b == UInt8(ascii: "}") { pos += 1; opened.removeLast(); return false }
        if opened[opened.count - 1] {
            guard b == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object, found \(describe(b))") }
            pos += 1
            guard let c = try skipWhitespace() else { throw truncated }
            b = c
        } else {
            opened[opened.count - 1] = true
        }
        guard b == UInt8(ascii: "\"") else { throw error("expected a key in quotes, found \(describe(b))") }
        try readStringBytes()
        guard let colon = try skipWhitespace() else { throw truncated }
        guard colon == UInt8(ascii: ":") else { throw error("expected ':' after a key, found \(describe(colon))") }
        pos += 1
        return true
    }

    /// Moves to the open array's next element (consuming the comma), or consumes the closing `]`.
    /// - Returns: false when the array ended.
    mutating func nextElement() throws(JSONError) -> Bool {
        guard let b = try skipWhitespace() else { throw truncated }
        if b == UInt8(ascii: "]") { pos += 1; opened.removeLast(); return false }
        if opened[opened.count - 1] {
            guard b == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array, found \(describe(b))") }
            pos += 1
        } else {
            opened[opened.count - 1] = true
        }
        return true
    }

    /// Skips a UTF-8 byte-order mark at the start of the file, then whitespace.
    /// - Returns: whether nothing else is left (an empty file).
    mutating func peekByteIsEnd() throws(JSONError) -> Bool {
        if pos == 0, source.total <= source.count, try peekByte() != nil, source.count >= 3 {
            let p = source.storage.pointer
            if p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { pos = 3 }
        }
        return try skipWhitespace() == nil
    }

    /// Checks that nothing but whitespace follows the top-level value.
    mutating func finish() throws(JSONError) {
        if let b = try skipWhitespace() { throw error("unexpected \(describe(b)) after the end of the JSON") }
    }

    /// Whether the key just read (in ``scratch``) is `key`: its length first, then its bytes. A
    /// reader asks this of every key of every record against each name it knows (a Spotify play's
    /// 23 keys against 16 names): with the names as arrays, each check was a lazy global's look-up
    /// and an array comparison, a fifth of reading a Spotify history.
    @inline(__always) func keyIs(_ key: StaticString) -> Bool {
        guard scratch.count == key.utf8CodeUnitCount else { return false }
        return scratch.withUnsafeBufferPointer { bytes in
            bytes.isEmpty || memcmp(bytes.baseAddress!, key.utf8Start, bytes.count) == 0
        }
    }

    // MARK: scalars

    /// Reads a string into ``scratch`` (unescaped, UTF-8).
    mutating func readStringBytes() throws(JSONError) {
        guard let q = try skipWhitespace() else { throw truncated }
        guard q == UInt8(ascii: "\"") else { throw error("expected a string, found \(describe(q))") }
        pos += 1
        scratch.removeAll(keepingCapacity: true)
        while true {
            // The run of plain bytes in this chunk, appended at once.
            let base = source.storage.pointer
            var i = pos
            while i < source.count {
                let b = base[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
                i += 1
            }
            if i > pos { scratch.append(contentsOf: UnsafeBufferPointer(start: base + pos, count: i - pos)); pos = i }
            let b = try nextByte()
            switch b {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"): try readEscape()
            default:
                if b < 0x20 { throw error(b == 0x0A ? "a string runs past the end of its line" : "a control character in a string") }
                scratch.append(b)
            }
        }
    }

    private mutating func readEscape() throws(JSONError) {
        let e = try nextByte()
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard try nextByte() == UInt8(ascii: "\\"), try nextByte() == UInt8(ascii: "u") else { throw error("a lone UTF-16 surrogate in a string") }
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("a lone UTF-16 surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("a lone UTF-16 surrogate in a string")
            }
            guard let u = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
            scratch.append(contentsOf: UTF8.encode(u)!)
        default: throw error("an invalid escape \\\(describe(e))")
        }
    }

    private mutating func readHex4() throws(JSONError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = try nextByte()
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw error("an invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Reads a string.
    mutating func readString() throws(JSONError) -> String {
        try readStringBytes()
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Reads a number's text into ``scratch``, checking JSON's number grammar.
    private mutating func readNumberBytes() throws(JSONError) {
        guard try skipWhitespace() != nil else { throw truncated }
        scratch.removeAll(keepingCapacity: true)
        while let b = try peekByte() {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                scratch.append(b)
                pos += 1
            default:
                try checkNumber()
                return
            }
        }
        // A number at the very end of the file is complete only as a top-level value.
        if !opened.isEmpty { throw truncated }
        try checkNumber()
    }

    /// JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    private func checkNumber() throws(JSONError) {
        var i = 0
        let n = scratch.count
        func digits() -> Int {
            let s = i
            while i < n, scratch[i] >= UInt8(ascii: "0"), scratch[i] <= UInt8(ascii: "9") { i += 1 }
            return i - s
        }
        if i < n, scratch[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i, intDigits = digits()
        var ok = intDigits > 0 && !(intDigits > 1 && scratch[intStart] == UInt8(ascii: "0"))
        if ok, i < n, scratch[i] == UInt8(ascii: ".") { i += 1; ok = digits() > 0 }
        if ok, i < n, scratch[i] == UInt8(ascii: "e") || scratch[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, scratch[i] == UInt8(ascii: "+") || scratch[i] == UInt8(ascii: "-") { i += 1 }
            ok = digits() > 0
        }
        if !ok || i != n { throw error("an invalid number \(String(decoding: scratch, as: UTF8.self))") }
    }

    /// Reads a number.
    mutating func readDouble() throws(JSONError) -> Double {
        try readNumberBytes()
        if let i = Self.integer(scratch) { return Double(i) }
        scratch.append(0)
        let d = scratch.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { strtod($0, nil) }
        }
        scratch.removeLast()
        return d
    }

    /// Reads a whole number (a JSON number, or a string of digits as Google writes `timestampMs`).
    /// - Returns: nil when it is not a whole number that fits 64 bits.
    mutating func readInt64() throws(JSONError) -> Int64? {
        if try peekKind() == .string {
            try readStringBytes()
        } else {
            try readNumberBytes()
        }
        return Self.integer(scratch)
    }

    /// The whole number `bytes` spell (`-?[0-9]+`), nil otherwise or on overflow.
    static func integer(_ bytes: [UInt8]) -> Int64? {
        var i = 0, negative = false
        if bytes.first == UInt8(ascii: "-") { negative = true; i = 1 }
        guard i < bytes.count, bytes.count - i <= 18 else { return nil }
        var v: Int64 = 0
        while i < bytes.count {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            v = v * 10 + Int64(d)
            i += 1
        }
        return negative ? -v : v
    }

    private mutating func readLiteral(_ word: StaticString) throws(JSONError) {
        guard try skipWhitespace() != nil else { throw truncated }
        let p = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            let b = try nextByte()
            guard b == p[k] else { throw error("unexpected \(describe(b)) in a literal (expected \(word))") }
        }
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws(JSONError) -> Bool {
        guard let b = try skipWhitespace() else { throw truncated }
        if b == UInt8(ascii: "t") { try readLiteral("true"); return true }
        try readLiteral("false")
        return false
    }

    /// Skips the next value, whatever it is.
    mutating func skipValue() throws(JSONError) {
        switch try peekKind() {
        case .object:
            try beginObject()
            while try nextKey() { try skipValue() }
        case .array:
            try beginArray()
            while try nextElement() { try skipValue() }
        case .string: try readStringBytes()
        case .number: try readNumberBytes()
        case .bool: _ = try readBool()
        case .null: try readLiteral("null")
        }
    }

    /// Reads the next value whole.
    mutating func readValue() throws(JSONError) -> JSONValue {
        switch try peekKind() {
        case .object:
            try beginObject()
            var members: [String: JSONValue] = [:]
            while try nextKey() {
                let key = String(decoding: scratch, as: UTF8.self)
                members[key] = try readValue()
            }
            return .object(members)
        case .array:
            try beginArray()
            var elements: [JSONValue] = []
            while try nextElement() { elements.append(try readValue()) }
            return .array(elements)
        case .string: return .string(try readString())
        case .number: return .number(try readDouble())
        case .bool: return .bool(try readBool())
        case .null:
            try readLiteral("null")
            return .null
        }
    }
}

/// Reading a file's bytes in the chunks the location-history readers parse, without parsing: what
/// any reader of the file must at least do (the streaming benchmark's baseline).
public enum FileChunks {
    /// Reads `path` from start to end in chunks of `chunkSize` bytes.
    /// - Parameters:
    ///   - path: the file.
    ///   - chunkSize: bytes per `read(2)`.
    ///   - body: called with each chunk (valid only during the call).
    /// - Returns: the bytes read.
    /// - Throws: ``ImportError`` when the file cannot be opened or read, or `body` throws.
    @discardableResult
    public static func forEach(path: String, chunkSize: Int = 64 * 1024, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws(ImportError) -> Int {
        let fd = try openForReading(path)
        defer { close(fd) }
        var source = ChunkSource(fd: fd, chunkSize: chunkSize)
        do {
            while try source.fill() {
                try body(UnsafeBufferPointer(start: source.storage.pointer, count: source.count))
            }
        } catch let e as JSONError {
            throw ImportError(file: path, e.message)
        } catch let e as ImportError {
            throw e
        } catch {
            throw ImportError(file: path, "\(error)")
        }
        return source.total
    }
}

/// Opens a regular file for reading, through ``ReaderFiles``.
/// - Throws: ``ImportError`` naming the file when it cannot be opened or is not a regular file.
func openForReading(_ path: String) throws(ImportError) -> Int32 {
    guard let fd = ReaderFiles.open(path) else {
        throw ImportError(file: path, errno == EISDIR || errno == EINVAL ? "is not a regular file" : "cannot be opened: \(ReaderFiles.reason())")
    }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        close(fd)
        throw ImportError(file: path, "is not a regular file")
    }
    return fd
}

/// Runs `body` with a parser reading `path` in chunks, turning parser errors into ``ImportError``s
/// that name the file and line.
func withJSONFile<T>(_ path: String, _ body: (inout JSONPullParser) throws -> T) throws(ImportError) -> T {
    let fd = try openForReading(path)
    defer { close(fd) }
    var parser = JSONPullParser(fd: fd)
    do {
        if try parser.peekByteIsEnd() { throw ImportError(file: path, "the file is empty") }
        return try body(&parser)
    } catch let e as JSONError {
        throw ImportError(file: path, location: "line \(e.line)", e.message)
    } catch let e as ImportError {
        throw e
    } catch {
        throw ImportError(file: path, location: "line \(parser.line)", "\(error)")
    }
}

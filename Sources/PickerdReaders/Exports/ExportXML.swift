import PickerdImport

/// A small, strict XML reader for the workout exports (GPX, TCX): elements, attributes, text,
/// CDATA, comments, processing instructions and a DOCTYPE skipped, the five predefined entities and
/// character references. Names lose their namespace prefix (`gpxtpx:hr` is `hr`); namespaces are not
/// otherwise resolved. Well-formedness is checked where it matters for not misreading a file:
/// mismatched or unclosed tags, text or elements outside the root, unterminated constructs, each an
/// error with the line. No dependency beyond the standard library (no libxml2 in pickerd).
enum ExportXML {
    /// The character an entity's name stands for: XML's five predefined entities and numeric
    /// references (`#38`, `#x26`); `nil` for any other (left as written).
    static func entity(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X") { return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
            if name.hasPrefix("#") { return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) }
            return nil
        }
    }

    /// An element, with its children and its text (the concatenated character data directly in
    /// it, empty when that is only whitespace).
    struct Element {
        /// The local name, without a namespace prefix.
        var name: String
        /// Attributes by local name, in document order.
        var attributes: [(name: String, value: String)] = []
        /// Child elements in document order.
        var children: [Element] = []
        /// The character data directly inside it (entities decoded, CDATA included).
        var text: String = ""
        /// The byte offset of its `<`, for ``ExportXML/line(of:in:)``.
        var offset: Int

        /// The first child called `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        /// Every child called `name`.
        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        /// The first element called `name` at any depth below it (depth first, document order).
        func descendant(_ name: String) -> Element? {
            for child in children {
                if child.name == name { return child }
                if let found = child.descendant(name) { return found }
            }
            return nil
        }
        /// The attribute called `name`.
        func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
        /// Its text without surrounding whitespace.
        var value: String { text.workoutTrimmed() }
        /// The trimmed text of the child called `name`, `nil` when absent or empty.
        func childValue(_ name: String) -> String? {
            guard let text = child(name)?.value, !text.isEmpty else { return nil }
            return text
        }
    }

    /// Why a document could not be read, and at which byte.
    struct SyntaxError: Error {
        var offset: Int
        var message: String
    }

    /// The 1-based line of a byte offset.
    static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        var line = 1
        for byte in bytes[0..<min(offset, bytes.count)] where byte == 0x0A { line += 1 }
        return line
    }

    /// The deepest nesting accepted: real files nest under 10 deep; this bounds the parse stack.
    static let maximumDepth = 256

    /// Reads a document and returns its root element, or throws the error with the line.
    static func parse(_ bytes: [UInt8], file: String) throws(ImportError) -> Element {
        do {
            var parser = Parser(bytes: bytes)
            return try parser.document()
        } catch {
            try fail(file: file, bytes: bytes, error)
        }
    }

    private static func fail(file: String, bytes: [UInt8], _ error: SyntaxError) throws(ImportError) -> Never {
        throw ImportError(file: file, location: "line \(line(of: error.offset, in: bytes))", "malformed XML: \(error.message)")
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// An element being read: the element, its qualified name for matching the end tag, its text bytes.
        private struct Open {
            var element: Element
            var qualifiedName: [UInt8]
            var text: [UInt8] = []
        }

        mutating func document() throws(SyntaxError) -> Element {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
            var stack: [Open] = []
            var root: Element?
            while index < bytes.count {
                let byte = bytes[index]
                if byte != UInt8(ascii: "<") {
                    if stack.isEmpty {
                        while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                            guard Self.isSpace(bytes[index]) else {
                                throw SyntaxError(offset: index, message: root == nil ? "text before the root element" : "text after the root element")
                            }
                            index += 1
                        }
                    } else {
                        var text: [UInt8] = []
                        while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                            if bytes[index] == UInt8(ascii: "&") { appendEntity(to: &text) } else { text.append(bytes[index]); index += 1 }
                        }
                        stack[stack.count - 1].text += text
                    }
                    continue
                }
                let start = index
                if matches("<?") {
                    try skip(past: "?>", what: "processing instruction")
                } else if matches("<!--") {
                    try skip(past: "-->", what: "comment")
                } else if matches("<![CDATA[") {
                    guard !stack.isEmpty else { throw SyntaxError(offset: start, message: "CDATA outside the root element") }
                    index += 9
                    let contentStart = index
                    try skip(past: "]]>", what: "CDATA section")
                    stack[stack.count - 1].text += bytes[contentStart..<(index - 3)]
                } else if matches("<!") {
                    try skipDeclaration()
                } else if matches("</") {
                    index += 2
                    let name = readName()
                    skipSpaces()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                        throw SyntaxError(offset: start, message: "an unterminated end tag")
                    }
                    index += 1
                    guard var open = stack.popLast() else {
                        throw SyntaxError(offset: start, message: "</\(Self.string(name))> closes nothing")
                    }
                    guard open.qualifiedName == name else {
                        throw SyntaxError(offset: start, message: "</\(Self.string(name))> does not close <\(Self.string(open.qualifiedName))> (line \(ExportXML.line(of: open.element.offset, in: bytes)))")
                    }
                    open.element.text = Self.textIfAny(open.text)
                    if stack.isEmpty { root = open.element } else { stack[stack.count - 1].element.children.append(open.element) }
                } else {
                    guard root == nil else { throw SyntaxError(offset: start, message: "an element after the root element") }
                    index += 1
                    let name = readName()
                    guard !name.isEmpty else { throw SyntaxError(offset: start, message: "'<' not followed by a name") }
                    var element = Element(name: Self.localName(name), offset: start)
                    var selfClosing = false
                    while true {
                        let hadSpace = skipSpaces()
                        guard index < bytes.count else { throw SyntaxError(offset: start, message: "an unterminated tag <\(Self.string(name))") }
                        if bytes[index] == UInt8(ascii: ">") { index += 1; break }
                        if matches("/>") { index += 2; selfClosing = true; break }
                        guard hadSpace else { throw SyntaxError(offset: index, message: "a malformed tag <\(Self.string(name))") }
                        let attributeName = readName()
                        guard !attributeName.isEmpty else { throw SyntaxError(offset: index, message: "a malformed attribute in <\(Self.string(name))>") }
                        skipSpaces()
                        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                            throw SyntaxError(offset: index, message: "attribute \(Self.string(attributeName)) has no value")
                        }
                        index += 1
                        skipSpaces()
                        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                            throw SyntaxError(offset: index, message: "attribute \(Self.string(attributeName))'s value is not quoted")
                        }
                        let quote = bytes[index]
                        index += 1
                        var value: [UInt8] = []
                        while true {
                            guard index < bytes.count else { throw SyntaxError(offset: start, message: "an unterminated attribute value") }
                            let byte = bytes[index]
                            if byte == quote { index += 1; break }
                            if byte == UInt8(ascii: "<") { throw SyntaxError(offset: index, message: "'<' in an attribute value") }
                            if byte == UInt8(ascii: "&") { appendEntity(to: &value) } else { value.append(byte); index += 1 }
                        }
                        element.attributes.append((Self.localName(attributeName), Self.string(value)))
                    }
                    if selfClosing {
                        if stack.isEmpty { root = element } else { stack[stack.count - 1].element.children.append(element) }
                    } else {
                        guard stack.count < ExportXML.maximumDepth else { throw SyntaxError(offset: start, message: "elements nested over \(ExportXML.maximumDepth) deep") }
                        stack.append(Open(element: element, qualifiedName: name))
                    }
                }
            }
            if let open = stack.last {
                throw SyntaxError(offset: bytes.count, message: "the file ends inside <\(Self.string(open.qualifiedName))> (opened at line \(ExportXML.line(of: open.element.offset, in: bytes)))")
            }
            guard let root else { throw SyntaxError(offset: bytes.count, message: "no root element") }
            return root
        }

        private func matches(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return literal.withUTF8Buffer { buffer in
                for offset in 0..<count where bytes[index + offset] != buffer[offset] { return false }
                return true
            }
        }

        private mutating func skip(past terminator: StaticString, what: String) throws(SyntaxError) {
            let start = index
            while index < bytes.count {
                if matches(terminator) { index += terminator.utf8CodeUnitCount; return }
                index += 1
            }
            throw SyntaxError(offset: start, message: "an unterminated \(what)")
        }

        /// `<!DOCTYPE …>` with an optional internal subset in brackets.
        private mutating func skipDeclaration() throws(SyntaxError) {
            let start = index
            var depth = 0
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if let open = quote { if byte == open { quote = nil }; continue }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                case UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ">") where depth <= 0: return
                default: break
                }
            }
            throw SyntaxError(offset: start, message: "an unterminated declaration")
        }

        private mutating func readName() -> [UInt8] {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if Self.isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                    || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { break }
                index += 1
            }
            return Array(bytes[start..<index])
        }

        @discardableResult
        private mutating func skipSpaces() -> Bool {
            let start = index
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            return index > start
        }

        /// At `&`: appends the decoded entity or character reference; an unknown one is kept as text.
        private mutating func appendEntity(to out: inout [UInt8]) {
            var end = index + 1
            while end < bytes.count, end - index <= 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { out.append(bytes[index]); index += 1; return }
            guard let scalar = ExportXML.entity(Self.string(Array(bytes[(index + 1)..<end]))) else { out.append(bytes[index]); index += 1; return }
            out += Array(String(Character(scalar)).utf8)
            index = end + 1
        }

        private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        private static func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

        private static func localName(_ name: [UInt8]) -> String {
            if let colon = name.lastIndex(of: UInt8(ascii: ":")) { return string(Array(name[(colon + 1)...])) }
            return string(name)
        }

        private static func textIfAny(_ text: [UInt8]) -> String {
            text.contains { !isSpace($0) } ? string(text) : ""
        }
    }
}

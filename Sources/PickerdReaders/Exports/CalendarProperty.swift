import Foundation

/// One unfolded iCalendar line: `NAME[;PARAM=value…]:value`.
struct CalendarProperty {
    /// The name, upper case.
    var name: String
    /// The value (after the first colon outside a quoted parameter value).
    var value: String
    /// Parameters, names upper case, quotes removed.
    var parameters: [(name: String, value: String)]

    init?(_ line: Substring) {
        var quoted = false
        var colon: String.Index?
        var cuts: [String.Index] = []
        for index in line.indices {
            let c = line[index]
            if c == "\"" { quoted.toggle() }
            if quoted { continue }
            if c == ":" {
                colon = index
                break
            }
            if c == ";" { cuts.append(index) }
        }
        guard let colon else { return nil }
        var pieces: [Substring] = []
        var start = line.startIndex
        for cut in cuts + [colon] {
            pieces.append(line[start..<cut])
            start = line.index(after: cut)
        }
        guard let first = pieces.first, !first.isEmpty,
              first.unicodeScalars.allSatisfy({ $0 == "-" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else { return nil }
        name = first.uppercased()
        value = String(line[line.index(after: colon)...])
        parameters = pieces.dropFirst().compactMap { piece in
            guard let equals = piece.firstIndex(of: "=") else { return nil }
            var value = String(piece[piece.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return (piece[..<equals].uppercased(), value)
        }
    }

    /// The first parameter called `name`.
    func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }

    /// `line` with the value of its parameter `name` (before the property's value) set to `value`, quoted.
    static func replacing(parameter name: String, with value: String, in line: Substring) -> String {
        guard let property = CalendarProperty(line) else { return String(line) }
        let head = line.dropLast(property.value.count + 1)  // NAME;PARAM=…
        var pieces: [String] = []
        var quoted = false, piece = ""
        for c in head {
            if c == "\"" { quoted.toggle() }
            if c == ";", !quoted {
                pieces.append(piece)
                piece = ""
            } else {
                piece.append(c)
            }
        }
        pieces.append(piece)
        for index in pieces.indices.dropFirst() where pieces[index].uppercased().hasPrefix(name + "=") {
            pieces[index] = name + "=\"" + value + "\""
        }
        return pieces.joined(separator: ";") + ":" + property.value
    }
}

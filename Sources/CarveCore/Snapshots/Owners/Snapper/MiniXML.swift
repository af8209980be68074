/// A small XML reader for manager metadata such as snapper's info.xml: elements,
/// text and the five predefined entities plus numeric references. No DTDs and no
/// entity definitions, so there is nothing to expand; depth and element counts are
/// capped so a hostile file fails quickly instead of exhausting memory.
struct MiniXML {
    struct Element: Equatable {
        var name: String
        var text = ""
        var children: [Element] = []

        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        func all(_ name: String) -> [Element] { children.filter { $0.name == name } }
    }

    struct Failure: Error, Equatable {
        let reason: String
    }

    static let maximumDepth = 32
    static let maximumElements = 10_000

    static func parse(_ text: String) throws(Failure) -> Element {
        var parser = MiniXML(Array(text.unicodeScalars))
        return try parser.document()
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var elements = 0

    private init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private mutating func document() throws(Failure) -> Element {
        try skipMisc()
        guard peek("<") else { throw Failure(reason: "no root element") }
        let root = try element(depth: 0)
        try skipMisc()
        guard index == scalars.count else { throw Failure(reason: "text after the root element") }
        return root
    }

    /// Whitespace, the XML declaration, processing instructions and comments.
    private mutating func skipMisc() throws(Failure) {
        while true {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            if peek("<?") { try skip(past: "?>") } else if peek("<!--") { try skip(past: "-->") } else { return }
        }
    }

    private mutating func element(depth: Int) throws(Failure) -> Element {
        guard depth < Self.maximumDepth else { throw Failure(reason: "elements nested too deeply") }
        elements += 1
        guard elements <= Self.maximumElements else { throw Failure(reason: "too many elements") }
        index += 1 // "<"
        let name = readName()
        guard !name.isEmpty else { throw Failure(reason: "element without a name") }
        while index < scalars.count, scalars[index] != ">" && scalars[index] != "/" { index += 1 } // attributes: unused
        if peek("/>") { index += 2; return Element(name: name) }
        guard peek(">") else { throw Failure(reason: "unterminated tag <\(name)>") }
        index += 1
        var element = Element(name: name)
        while true {
            guard index < scalars.count else { throw Failure(reason: "<\(name)> is not closed") }
            if peek("</") {
                index += 2
                let closing = readName()
                guard closing == name, peek(">") else { throw Failure(reason: "<\(name)> closed by </\(closing)>") }
                index += 1
                return element
            } else if peek("<!--") {
                try skip(past: "-->")
            } else if peek("<![CDATA[") {
                index += 9
                let start = index
                try skip(past: "]]>")
                element.text += String(String.UnicodeScalarView(scalars[start..<(index - 3)]))
            } else if peek("<!") || peek("<?") {
                throw Failure(reason: "declarations are not allowed inside <\(name)>")
            } else if peek("<") {
                element.children.append(try self.element(depth: depth + 1))
            } else if peek("&") {
                element.text.unicodeScalars.append(try reference())
            } else {
                element.text.unicodeScalars.append(scalars[index])
                index += 1
            }
        }
    }

    private mutating func readName() -> String {
        var name = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            guard
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.:".unicodeScalars.contains(scalar)
            else { break }
            name.append(scalar)
            index += 1
        }
        return String(name)
    }

    private mutating func reference() throws(Failure) -> Unicode.Scalar {
        let start = index
        while index < scalars.count, scalars[index] != ";", index - start < 12 { index += 1 }
        guard index < scalars.count, scalars[index] == ";" else {
            throw Failure(reason: "unterminated entity reference")
        }
        let body = String(String.UnicodeScalarView(scalars[(start + 1)..<index]))
        index += 1
        switch body {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let value: UInt32? =
                body.hasPrefix("#x")
                ? UInt32(body.dropFirst(2), radix: 16)
                : body.hasPrefix("#") ? UInt32(body.dropFirst(), radix: 10) : nil
            guard let value, let scalar = Unicode.Scalar(value) else {
                throw Failure(reason: "unknown entity &\(body);")
            }
            return scalar
        }
    }

    private func peek(_ literal: String) -> Bool {
        var at = index
        for scalar in literal.unicodeScalars {
            guard at < scalars.count, scalars[at] == scalar else { return false }
            at += 1
        }
        return true
    }

    private mutating func skip(past terminator: String) throws(Failure) {
        while index < scalars.count {
            if peek(terminator) { index += terminator.unicodeScalars.count; return }
            index += 1
        }
        throw Failure(reason: "unterminated \(terminator)")
    }
}

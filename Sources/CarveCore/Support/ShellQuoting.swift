/// Quotes `text` for a POSIX shell when it holds anything but safe characters.
/// Here rather than in Check: the owners' schedules print commands too.
public func shellQuoted(_ text: String) -> String {
    let safe = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:=@,%".contains($0)) }
    if safe && !text.isEmpty { return text }
    return "'" + text.replacingAll("'", with: "'\\''") + "'"
}

extension String {
    /// Every `target` replaced (the core keeps off Foundation's string API for this).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}

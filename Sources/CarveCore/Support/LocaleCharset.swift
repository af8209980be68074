/// Whether the locale a process runs in has UTF-8 as its charset, told from the
/// environment as setlocale(3) picks the LC_CTYPE locale: LC_ALL, then LC_CTYPE,
/// then LANG, the first one set and not empty; none means "C", which is ASCII.
public enum LocaleCharset {
    public static func isUTF8(_ variable: (String) -> String?) -> Bool {
        guard let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap(variable).first(where: { !$0.isEmpty })
        else { return false }
        // "en_US.UTF-8", "C.utf8", "de_DE.UTF-8@euro": the codeset follows the dot.
        guard let dot = name.firstIndex(of: ".") else { return false }
        let codeset = name[name.index(after: dot)...].prefix { $0 != "@" }.lowercased()
        return codeset == "utf-8" || codeset == "utf8"
    }
}

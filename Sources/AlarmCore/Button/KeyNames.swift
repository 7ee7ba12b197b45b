/// Key names for people and for `button_keys` (issue #30).
extension KeyCodes {
    /// Name → code, names in upper case.
    private static let byName: [String: Int] = Dictionary(table, uniquingKeysWith: { first, _ in first })

    /// `KEY_POWER`: what the `gpio-key` overlay sends unless told otherwise, and what
    /// systemd-logind powers the machine off on.
    public static let power = 116

    /// `KEY_ENTER`, or the number when the code has no name.
    public static func name(of code: Int) -> String { shown[code] ?? String(code) }

    /// The code of `KEY_ENTER`, `key_enter`, `enter`, `BTN_0`, `28` or `0x1c`; nil for a name
    /// the kernel does not have or a number outside 1...0x2ff.
    public static func code(_ text: String) -> Int? {
        let t = text.trimmingBlanks()
        if let n = t.lowercased().hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : Int(t) {
            return (1...0x2ff).contains(n) ? n : nil
        }
        let upper = t.uppercased()
        return byName[upper] ?? byName["KEY_" + upper]
    }

    /// A `button_keys` value: codes or names separated by commas or blanks (`KEY_ENTER, 256`);
    /// empty or `any`: every key. Throws naming the first one that is not a key.
    public static func parseList(_ text: String) throws(AlarmError) -> Set<Int> {
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        if items.isEmpty || (items.count == 1 && items[0].lowercased() == "any") { return [] }
        var out = Set<Int>()
        for item in items {
            guard let code = code(item) else {
                throw AlarmError.invalid(
                    "'\(item)' is not a key: give a code (28, 0x100) or a name of linux/input-event-codes.h (KEY_ENTER, BTN_0)"
                )
            }
            out.insert(code)
        }
        return out
    }
}

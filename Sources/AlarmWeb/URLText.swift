/// Percent-decoding of paths and query strings (RFC 3986), refusing what is not text.
enum URLText {
    /// `a%20b` → `a b`; nil for a broken escape (`%zz`, `%4`) or bytes that are not UTF-8.
    /// With `plusIsSpace` (query strings, as forms send them) `+` is a space.
    static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = Array(text.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                guard it.count >= 2, let hi = hex(it[it.startIndex]), let lo = hex(it[it.startIndex + 1]) else {
                    return nil
                }
                bytes.append(hi << 4 | lo)
                it = it.dropFirst(2)
            } else if plusIsSpace && b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The query's `name=value` pairs, decoded; nil when any of them does not decode.
    static func query(_ text: String?) -> [String: String]? {
        var out: [String: String] = [:]
        guard let text, !text.isEmpty else { return out }
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(kv[0], plusIsSpace: true) else { return nil }
            guard let value = kv.count > 1 ? decode(kv[1], plusIsSpace: true) : "" else { return nil }
            if out[key] == nil { out[key] = value }
        }
        return out
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

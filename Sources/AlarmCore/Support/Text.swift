/// The few string helpers the project needs, without Foundation's NSString bridge (which would
/// pull in ICU, 40 MB of every binary): ASCII blanks, zero padding.
extension StringProtocol {
    /// Without leading and trailing spaces, tabs, newlines and carriage returns ("\r\n" is one
    /// Character: an HTTP header line's end).
    public func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

public enum Text {
    /// `v` in decimal, left-padded with zeros to `width` digits (a minus sign comes first).
    public static func zeroPadded(_ v: Int, _ width: Int) -> String {
        let digits = String(v.magnitude)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return v < 0 ? "-" + padded : padded
    }

    /// `text` with each Unicode scalar that `escape` returns a replacement for replaced by it, the
    /// others kept: how a message and a JSON literal write control characters.
    public static func escaping(_ text: String, _ escape: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if let replacement = escape(scalar) { out += replacement } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// `s` padded with spaces on the right to `width` characters.
    public static func padded(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// `value` with exactly `decimals` digits after the point, rounded half away from zero
    /// (`%.1f` without `String(format:)`).
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let frac = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return decimals == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(zeroPadded(frac, decimals))"
    }
}

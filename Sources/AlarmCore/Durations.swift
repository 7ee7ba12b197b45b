import FoundationEssentials

/// Durations as users type them: `90s`, `9m`, `1h30m`, `2d`, `1h 30m`.
public enum Durations {
    /// Parses a duration; throws a message naming the bad part. A bare number is refused (is `5`
    /// seconds or minutes?), so are zero and negative durations.
    public static func parse(_ text: String) throws -> TimeInterval {
        let s = text.lowercased().filter { !$0.isWhitespace }
        guard !s.isEmpty else { throw AlarmError.invalid("empty duration: write e.g. 90s, 9m or 1h30m") }
        var total: Double = 0
        var number = ""
        var sawUnit = false
        let units: [String: Double] = ["d": 86400, "h": 3600, "m": 60, "min": 60, "s": 1, "sec": 1]
        var i = s.startIndex
        while i < s.endIndex {
            let ch = s[i]
            if ch.isNumber || ch == "." {
                number.append(ch)
                i = s.index(after: i)
                continue
            }
            var unit = ""
            while i < s.endIndex, s[i].isLetter {
                unit.append(s[i])
                i = s.index(after: i)
            }
            guard let scale = units[unit], let value = Double(number), value.isFinite else {
                throw AlarmError.invalid("invalid duration '\(text)': write e.g. 90s, 9m or 1h30m")
            }
            total += value * scale
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit else {
            throw AlarmError.invalid("invalid duration '\(text)': a number needs a unit (s, m, h or d), e.g. 9m")
        }
        guard total > 0, total <= 366 * 86400 else {
            throw AlarmError.invalid("invalid duration '\(text)': it must be more than 0 and at most a year")
        }
        return total
    }

    /// `1h30m`, `9m`, `1m30s`, `45s`.
    public static func format(_ seconds: TimeInterval) -> String {
        var rest = Int(seconds.rounded())
        if rest == 0 { return "0s" }
        var out = ""
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out
    }

    /// "7 h 12 min", "3 min", "45 s": how long until something, for people.
    public static func spoken(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded(.up)))
        if s < 60 { return "\(s) s" }
        let m = (s + 59) / 60
        let d = m / 1440, h = m % 1440 / 60, mm = m % 60
        var parts: [String] = []
        if d > 0 { parts.append("\(d) d") }
        if h > 0 { parts.append("\(h) h") }
        if mm > 0 || parts.isEmpty { parts.append("\(mm) min") }
        return parts.joined(separator: " ")
    }
}

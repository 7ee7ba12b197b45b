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

    /// A position in a recording, as `alarm sounds cut --from` takes it: `M:SS`, `H:MM:SS`, or
    /// seconds (`70`, `70.5`); minutes and seconds after a colon are two digits under 60. Zero is
    /// the start.
    public static func position(_ text: String) throws -> TimeInterval {
        let bad = AlarmError.invalid(
            "invalid position '\(text)': write M:SS, H:MM:SS or seconds, e.g. 1:10, 0:01:10 or 70")
        let s = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard !s.isEmpty, parts.count <= 3 else { throw bad }
        if parts.count == 1 {
            guard s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let v = Double(s), v.isFinite else {
                throw bad
            }
            return v
        }
        // The last part may have a fraction (1:10.5); the others are whole numbers.
        var total: Double = 0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                let v = Double(part)
            else { throw bad }
            if i > 0 {
                guard part.split(separator: ".", omittingEmptySubsequences: false)[0].count == 2, v < 60 else {
                    throw bad
                }
            }
            total = total * 60 + v
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

    /// "7 h 12 min", "3 min", "45 s": how long until something, for people. Whole seconds (the
    /// fraction dropped), then from a minute on the nearest minute, never rounded up past the unit:
    /// `alarm add --in 1m` rings on the next whole second, 60 to 61 s away, and says "in 1 min"
    /// (issue #30; it said "in 2 min"), `--in 45s` "in 45 s". Anything still to come is at least
    /// "1 s".
    public static func spoken(_ seconds: TimeInterval) -> String {
        let s = seconds > 0 ? Int(seconds.rounded(.down)) : 0
        if s < 60 { return "\(seconds > 0 ? max(s, 1) : 0) s" }
        let m = (s + 30) / 60
        let d = m / 1440
        let h = m % 1440 / 60
        let mm = m % 60
        var parts: [String] = []
        if d > 0 { parts.append("\(d) d") }
        if h > 0 { parts.append("\(h) h") }
        if mm > 0 || parts.isEmpty { parts.append("\(mm) min") }
        return parts.joined(separator: " ")
    }
}

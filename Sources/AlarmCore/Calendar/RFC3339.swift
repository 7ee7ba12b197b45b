import FoundationEssentials

/// RFC 3339 timestamps with the offset in force in a zone at that instant:
/// `2026-03-08T03:30:00-04:00`. No `DateFormatter`: its caching and locale rules are not ours.
public enum RFC3339 {
    public static func format(_ date: Date, in zone: Zone, milliseconds: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(29)
        write(date, in: zone, milliseconds: milliseconds, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `format`, appended to `out` as UTF-8 (the alarm list writer's way: no String per date).
    public static func write<Sink: ByteSink & ~Copyable>(
        _ date: Date, in zone: Zone, milliseconds: Bool = false, into out: inout Sink
    ) {
        let t = date.timeIntervalSince1970
        var whole = Int64(t.rounded(.down))
        var ms = 0
        if milliseconds {
            // Whole milliseconds, rounded down; a date that is a whole millisecond (`Alarm.stamp`)
            // keeps it, although `t * 1000` may come out a hair below it (`Date` counts from
            // 2001, so its seconds since 1970 are a few ulps off): within a microsecond counts.
            var m = (t * 1000).rounded(.down)
            if t * 1000 - m > 0.999 { m += 1 }
            let total = Int64(m)
            whole = total >= 0 ? total / 1000 : (total - 999) / 1000
            ms = Int(total - whole * 1000)
        }
        let offset = Int64(zone.offset(atUnix: whole))
        let c = CivilTime(localSeconds: whole + offset)
        // CivilTime's description: YYYY-MM-DDTHH:MM:SS.
        pad(c.year, 4, &out)
        out.append(UInt8(ascii: "-"))
        pad(c.month, 2, &out)
        out.append(UInt8(ascii: "-"))
        pad(c.day, 2, &out)
        out.append(UInt8(ascii: "T"))
        pad(c.hour, 2, &out)
        out.append(UInt8(ascii: ":"))
        pad(c.minute, 2, &out)
        out.append(UInt8(ascii: ":"))
        pad(c.second, 2, &out)
        if milliseconds {
            out.append(UInt8(ascii: "."))
            pad(ms, 3, &out)
        }
        let a = Int(abs(offset))
        out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        pad(a / 3600, 2, &out)
        out.append(UInt8(ascii: ":"))
        pad(a % 3600 / 60, 2, &out)
    }

    /// `%0Nd` without `String(format:)` (Foundation's, and slow): zeros up to `width`, then
    /// the digits; a negative value as `String(v)` with the zeros before it, as CivilTime pads.
    static func pad<Sink: ByteSink & ~Copyable>(_ v: Int, _ width: Int, _ out: inout Sink) {
        // The usual fields (months to seconds, offsets; years), by constant divisors.
        if width == 2 && v >= 0 && v < 100 {
            out.append(UInt8(ascii: "0") + UInt8(v / 10))
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            return
        }
        if width == 4 && v >= 1000 && v < 10000 {
            out.append(UInt8(ascii: "0") + UInt8(v / 1000))
            out.append(UInt8(ascii: "0") + UInt8(v / 100 % 10))
            out.append(UInt8(ascii: "0") + UInt8(v / 10 % 10))
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            return
        }
        guard v >= 0 else {
            let s = String(v)
            for _ in 0..<max(0, width - s.utf8.count) { out.append(UInt8(ascii: "0")) }
            out.append(utf8: s)
            return
        }
        var digits = 1
        var scale = 1  // 10^(digits - 1)
        while v / scale >= 10 {
            digits += 1
            scale *= 10
        }
        for _ in digits..<max(digits, width) { out.append(UInt8(ascii: "0")) }
        var rest = v
        while scale > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / scale))
            rest %= scale
            scale /= 10
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.frac]](Z|±HH:MM)`; `T` may be a space, letters any case.
    public static func parse(_ text: String) -> Date? {
        // ASCII only: trim blanks and upper-case by hand (Foundation's trimming is costly, and
        // a store of 10,000 alarms parses a timestamp for each).
        var s = Array(text.utf8)
        while let last = s.last, last == 32 || last == 9 { s.removeLast() }
        if let first = s.firstIndex(where: { $0 != 32 && $0 != 9 }), first > 0 { s.removeFirst(first) }
        for k in s.indices where s[k] >= 97 && s[k] <= 122 { s[k] -= 32 }
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = s[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func lit(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = num(4), lit(45), let mo = num(2), lit(45), let d = num(2),
            lit(84) || lit(32), let h = num(2), lit(58), let mi = num(2)
        else { return nil }
        var sec = 0
        var frac = 0.0
        if lit(58) {
            guard let ss = num(2) else { return nil }
            sec = ss
            if lit(46) || lit(44) {
                var scale = 0.1
                var any = false
                while i < s.count, s[i] >= 48 && s[i] <= 57 {
                    frac += Double(s[i] - 48) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        var offset = 0
        if lit(90) {
        } else if i < s.count, s[i] == 43 || s[i] == 45 {
            let negative = s[i] == 45
            i += 1
            guard let oh = num(2) else { return nil }
            _ = lit(58)
            guard let om = num(2), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (negative ? -1 : 1)
        } else {
            return nil
        }
        guard i == s.count, (1...12).contains(mo), d >= 1, d <= CivilTime.daysIn(month: mo, year: y),
            h < 24, mi < 60, sec < 61
        else { return nil }
        let local = CivilTime(year: y, month: mo, day: d, hour: h, minute: mi, second: min(sec, 59)).localSeconds
        return Date(timeIntervalSince1970: TimeInterval(local - Int64(offset)) + frac)
    }
}

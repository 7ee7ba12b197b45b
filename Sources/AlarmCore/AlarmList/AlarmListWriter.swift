import FoundationEssentials

/// Writes the alarm list JSON byte for byte as `JSONEncoder` writes `[Alarm]` with
/// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` (the store's format since the start),
/// an order of magnitude faster: two-space indents, `"key" : value`, keys sorted, `null` for
/// absent optional values except `created` and issue #12's keys (left out when unset: `every`,
/// `from`, `until`, `skip_holidays` when false, `paused_until` when not paused) and issue #13's
/// (`volume_from`, `max_snoozes`, `when_ignored`: left out of the store when unset, `null` in the
/// list form, which has them always), doubles as Swift prints them
/// without a trailing `.0`, strings escaped as `JSONEncoder` escapes them. No trailing newline.
public enum AlarmListWriter {
    public struct NonFiniteNumber: Error, CustomStringConvertible {
        public var id: String
        public var description: String { "alarm '\(id)' has a number that is not finite; JSON cannot hold it" }
    }

    /// The list; `next`, when given, adds each alarm's `"next"` value (`alarm list --json`).
    public static func encode(_ alarms: [Alarm], next: ((Alarm) -> String?)? = nil) throws(NonFiniteNumber) -> [UInt8] {
        if alarms.isEmpty { return Array("[\n\n]".utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(alarms.count * (next == nil ? 360 : 400))
        out.append(contentsOf: "[\n".utf8)
        for (n, a) in alarms.enumerated() {
            if n > 0 { out.append(contentsOf: ",\n".utf8) }
            try object(a, next: next.map { $0(a) }, hasNext: next != nil, into: &out)
        }
        out.append(contentsOf: "\n]".utf8)
        return out
    }

    private static func object(
        _ a: Alarm, next: String??, hasNext: Bool, into out: inout [UInt8]
    ) throws(NonFiniteNumber) {
        out.append(contentsOf: "  {\n".utf8)
        func key(_ k: StaticString) {
            out.append(contentsOf: "    \"".utf8)
            out.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
            out.append(contentsOf: "\" : ".utf8)
        }
        func string(_ k: StaticString, _ v: String?) {
            key(k)
            if let v { quoted(v, into: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: ",\n".utf8)
        }
        /// RFC 3339 in UTC: ASCII digits and punctuation, nothing to escape.
        func quotedDate(_ d: Date, milliseconds: Bool) {
            out.append(UInt8(ascii: "\""))
            RFC3339.write(d, in: .utc, milliseconds: milliseconds, into: &out)
            out.append(contentsOf: "\",\n".utf8)
        }
        func bool(_ k: StaticString, _ v: Bool) {
            key(k)
            out.append(contentsOf: (v ? "true" : "false").utf8)
            out.append(contentsOf: ",\n".utf8)
        }
        func number(_ k: StaticString, _ v: Double?) throws(NonFiniteNumber) {
            key(k)
            if let v {
                guard v.isFinite else { throw NonFiniteNumber(id: a.id) }
                var text = v.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                out.append(contentsOf: text.utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(contentsOf: ",\n".utf8)
        }
        // Sorted: at, created, every, expression, fade_in, from, id, label, max_snoozes, mode, next,
        // once, paused, paused_until, ring, skip_holidays, skip_next, snooze, sound, until, volume,
        // volume_from, when_ignored, zone.
        var expression: String? = nil
        switch a.trigger {
        case .instant(let t):
            key("at")
            quotedDate(t, milliseconds: false)
        case .calendar(let e): expression = e.print(withZone: false)
        }
        if let created = a.created {
            key("created")
            quotedDate(created, milliseconds: true)
        }
        if let every = a.every { string("every", every.description) }
        if let expression { string("expression", expression) }
        try number("fade_in", a.fadeIn)
        if let from = a.from { string("from", from.description) }
        string("id", a.id)
        string("label", a.label)
        switch a.maxSnoozes {
        case .limited(let n)?:
            key("max_snoozes")
            out.append(contentsOf: String(n).utf8)
            out.append(contentsOf: ",\n".utf8)
        case .unlimited?: string("max_snoozes", "unlimited")
        case nil: if hasNext { string("max_snoozes", nil) }
        }
        string("mode", a.mode.rawValue)
        if hasNext { string("next", next ?? nil) }
        bool("once", a.once)
        bool("paused", a.pause != nil)
        if a.pause != nil { string("paused_until", a.pausedUntilBound?.description) }
        try number("ring", a.ring)
        if a.skipHolidays { bool("skip_holidays", true) }
        bool("skip_next", a.skipNext)
        try number("snooze", a.snooze)
        string("sound", a.sound)
        if let until = a.until { string("until", until.description) }
        key("volume")
        out.append(contentsOf: (a.volume.map { String($0) } ?? "null").utf8)
        out.append(contentsOf: ",\n".utf8)
        if a.volumeFrom != nil || hasNext {
            key("volume_from")
            out.append(contentsOf: (a.volumeFrom.map { String($0) } ?? "null").utf8)
            out.append(contentsOf: ",\n".utf8)
        }
        if a.whenIgnored != nil || hasNext { string("when_ignored", a.whenIgnored?.rawValue) }
        key("zone")
        if let zone = a.zone { quoted(zone, into: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: "\n  }".utf8)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A JSON string as `JSONEncoder` writes it without escaping slashes: `"` and `\` escaped,
    /// the control characters as `\b \t \n \f \r` or `\u00XX` (lower-case hex), the rest as is.
    static func quoted(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

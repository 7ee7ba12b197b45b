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

    /// An alarm's next ring for `alarm list --json`'s `"next"`: the instant, written in RFC 3339
    /// with the offset `zone` has then.
    public typealias Next = (date: Date, zone: Zone)

    /// The list; `next`, when given, adds each alarm's `"next"` value (`alarm list --json`).
    public static func encode(_ alarms: [Alarm], next: ((Alarm) -> Next?)? = nil) throws(NonFiniteNumber) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(alarms.count * (next == nil ? 400 : 520) + 4)
        try write(alarms, next: next) { out.append(contentsOf: $0) }
        return out
    }

    /// `encode`'s bytes handed to `emit` in pieces of about `chunk` bytes, in order, so that a
    /// long list is never held whole (the caller writes each piece on; a piece is valid only
    /// during its call). An alarm with a number JSON cannot hold is found before anything is
    /// handed on.
    public static func write(
        _ alarms: [Alarm], next: ((Alarm) -> Next?)? = nil, chunk: Int = 1 << 16,
        to emit: (UnsafeRawBufferPointer) -> Void
    ) throws(NonFiniteNumber) {
        func finite(_ v: Double?) -> Bool { v?.isFinite ?? true }
        for a in alarms where !(finite(a.fadeIn) && finite(a.ring) && finite(a.snooze)) {
            throw NonFiniteNumber(id: a.id)
        }
        if alarms.isEmpty {
            var out = JSONBytes(capacity: 4)
            out.append("[\n\n]")
            emit(out.bytes)
            return
        }
        // Room for one chunk and the alarm that overflows it (more only for very long labels).
        var out = JSONBytes(capacity: chunk + 4096)
        var created = LastCreated()
        out.append("[\n")
        for (n, a) in alarms.enumerated() {
            if n > 0 { out.append(",\n") }
            object(a, next: next.map { $0(a) }, hasNext: next != nil, created: &created, into: &out)
            if out.count >= chunk {
                emit(out.bytes)
                out.removeAll()
            }
        }
        out.append("\n]")
        emit(out.bytes)
    }

    /// The last `created` written, and its text: alarms made together (an import) share it.
    private struct LastCreated {
        var date: Date? = nil
        var text: [UInt8] = []
    }

    private static func object(
        _ a: Alarm, next: Next??, hasNext: Bool, created last: inout LastCreated, into out: inout JSONBytes
    ) {
        out.append("  {\n")
        // Sorted: at, created, every, expression, fade_in, fallback_sound, from, id, label, max_snoozes, mode, next,
        // once, paused, paused_until, pre_alarm, ring, skip_holidays, skip_next, snooze, sound, until, volume,
        // volume_from, when_ignored, zone.
        switch a.trigger {
        case .instant(let t):
            out.key("at")
            out.quotedDate(t, in: .utc, milliseconds: false)
        case .calendar: break
        }
        if let created = a.created {
            if created != last.date {
                last.text.removeAll(keepingCapacity: true)
                RFC3339.write(created, in: .utc, milliseconds: true, into: &last.text)
                last.date = created
            }
            out.key("created")
            out.append(UInt8(ascii: "\""))
            last.text.withUnsafeBytes { out.append($0) }
            out.append("\",\n")
        }
        if let every = a.every { out.member("every", every.description) }
        if case .calendar(let e) = a.trigger {
            // The normal form is ASCII letters, digits and `*-~:.,/`: nothing to escape.
            out.key("expression")
            out.append(UInt8(ascii: "\""))
            e.write(withZone: false, into: &out)
            out.append("\",\n")
        }
        out.member("fade_in", a.fadeIn)
        if a.fallbackSound != nil || hasNext { out.member("fallback_sound", a.fallbackSound) }
        if let from = a.from { out.member("from", from.description) }
        out.member("id", a.id)
        out.member("label", a.label)
        switch a.maxSnoozes {
        case .limited(let n)?: out.member("max_snoozes", n)
        case .unlimited?: out.member("max_snoozes", "unlimited")
        case nil: if hasNext { out.member("max_snoozes", nil as String?) }
        }
        out.member("mode", a.mode.rawValue)
        if hasNext {
            out.key("next")
            if let next = next ?? nil {
                out.quotedDate(next.date, in: next.zone, milliseconds: false)
            } else {
                out.append("null,\n")
            }
        }
        out.member("once", a.once)
        out.member("paused", a.pause != nil)
        if a.pause != nil { out.member("paused_until", a.pausedUntilBound?.description) }
        if a.preAlarm != nil || hasNext { out.member("pre_alarm", a.preAlarm?.description) }
        out.member("ring", a.ring)
        if a.skipHolidays { out.member("skip_holidays", true) }
        out.member("skip_next", a.skipNext)
        out.member("snooze", a.snooze)
        out.member("sound", a.sound)
        if let until = a.until { out.member("until", until.description) }
        out.member("volume", a.volume)
        if a.volumeFrom != nil || hasNext { out.member("volume_from", a.volumeFrom) }
        if a.whenIgnored != nil || hasNext { out.member("when_ignored", a.whenIgnored?.rawValue) }
        out.key("zone")
        if let zone = a.zone { quoted(zone, into: &out) } else { out.append("null") }
        out.append("\n  }")
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A JSON string as `JSONEncoder` writes it without escaping slashes: `"` and `\` escaped,
    /// the control characters as `\b \t \n \f \r` or `\u00XX` (lower-case hex), the rest as is.
    static func quoted<Sink: ByteSink & ~Copyable>(_ s: String, into out: inout Sink) {
        out.append(UInt8(ascii: "\""))
        // Most strings (ids, sounds, zones, labels) have nothing to escape: copied whole.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out.append(utf8: s)
            out.append(UInt8(ascii: "\""))
            return
        }
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out.append("\\\"")
            case UInt8(ascii: "\\"): out.append("\\\\")
            case 0x08: out.append("\\b")
            case 0x09: out.append("\\t")
            case 0x0A: out.append("\\n")
            case 0x0C: out.append("\\f")
            case 0x0D: out.append("\\r")
            case 0..<0x20:
                out.append("\\u00")
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// The pieces of one alarm object: `    "key" : value,\n`.
extension JSONBytes {
    fileprivate mutating func key(_ k: StaticString) {
        append("    \"")
        append(k)
        append("\" : ")
    }

    fileprivate mutating func member(_ k: StaticString, _ v: String?) {
        key(k)
        if let v { AlarmListWriter.quoted(v, into: &self) } else { append("null") }
        append(",\n")
    }

    fileprivate mutating func member(_ k: StaticString, _ v: Bool) {
        key(k)
        append(v ? "true,\n" : "false,\n")
    }

    fileprivate mutating func member(_ k: StaticString, _ v: Int?) {
        key(k)
        if let v { append(utf8: String(v)) } else { append("null") }
        append(",\n")
    }

    /// Finite (`AlarmListWriter.write` checked), as Swift prints it without a trailing `.0`.
    fileprivate mutating func member(_ k: StaticString, _ v: Double?) {
        key(k)
        if let v {
            var text = v.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            append(utf8: text)
        } else {
            append("null")
        }
        append(",\n")
    }

    /// RFC 3339: ASCII digits and punctuation, nothing to escape.
    fileprivate mutating func quotedDate(_ d: Date, in zone: Zone, milliseconds: Bool) {
        append(UInt8(ascii: "\""))
        RFC3339.write(d, in: zone, milliseconds: milliseconds, into: &self)
        append("\",\n")
    }
}

import FoundationEssentials

// history.jsonl's form of `HistoryEntry`, and the RFC 3339 timestamps the JSON forms share.

extension HistoryEntry: Codable {
    enum CodingKeys: String, CodingKey {
        case alarm, scheduled, started, ended, outcome, sound, reason, late, fallback, mixer
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (scheduled, zone) = try TimestampCoding.decode(c, .scheduled)
        self.init(
            alarm: try c.decodeIfPresent(String.self, forKey: .alarm),
            scheduled: scheduled,
            started: try TimestampCoding.decodeIfPresent(c, .started),
            ended: try TimestampCoding.decodeIfPresent(c, .ended),
            outcome: try c.decode(RingOutcome.self, forKey: .outcome),
            sound: try c.decodeIfPresent(String.self, forKey: .sound),
            reason: try c.decodeIfPresent(String.self, forKey: .reason),
            late: try c.decodeIfPresent(Bool.self, forKey: .late) ?? false,
            zone: zone, fallback: try c.decodeIfPresent(String.self, forKey: .fallback),
            mixer: try c.decodeIfPresent(String.self, forKey: .mixer))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func time(_ d: Date) -> String { RFC3339.format(d, in: zone, milliseconds: true) }
        try c.encodeEach([
            .alarm: alarm, .scheduled: time(scheduled), .started: started.map(time), .ended: ended.map(time),
            .outcome: outcome, .sound: sound, .reason: reason, .late: late,
        ])
        // Only when there is one: the entries of other rings keep their keys.
        try c.encodeEach([.fallback: fallback, .mixer: mixer], omittingNil: true)
    }
}

/// RFC 3339 strings in JSON, read back with the offset they were written in.
enum TimestampCoding {
    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> (Date, Zone) {
        let text = try c.decode(String.self, forKey: key)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "'\(text)' is not an RFC 3339 timestamp")
        }
        return (date, zone(of: text))
    }

    static func decodeIfPresent<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Date? {
        guard c.contains(key), try c.decodeNil(forKey: key) == false else { return nil }
        return try decode(c, key).0
    }

    /// A fixed-offset zone from a timestamp's `Z` or `±HH:MM` suffix (UTC if unreadable).
    static func zone(of text: String) -> Zone {
        let utc = Zone.utc
        let s = Array(text.trimmingBlanks().utf8)
        guard s.count >= 6 else { return utc }
        let tail = Array(s.suffix(6))
        guard tail[0] == UInt8(ascii: "+") || tail[0] == UInt8(ascii: "-"), tail[3] == UInt8(ascii: ":") else {
            return utc
        }
        func d(_ i: Int) -> Int { Int(tail[i]) - 48 }
        let seconds = ((d(1) * 10 + d(2)) * 60 + d(4) * 10 + d(5)) * 60
        guard seconds <= 18 * 3600 else { return utc }
        return Zone(secondsFromGMT: tail[0] == UInt8(ascii: "-") ? -seconds : seconds)
    }
}

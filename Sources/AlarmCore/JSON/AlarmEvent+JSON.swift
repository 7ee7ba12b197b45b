import FoundationEssentials

// The event log's line form of `AlarmEvent` (events.jsonl, `alarm watch --json`, hooks' stdin).

extension AlarmEvent: Codable {
    enum CodingKeys: String, CodingKey {
        case seq, event, at, alarm, label, scheduled, sound, late, reason, until, zone, from, count, lead
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (at, zone) = try TimestampCoding.decode(c, .at)
        self.init(
            try c.decode(String.self, forKey: .event), at: at,
            alarm: try c.decodeIfPresent(String.self, forKey: .alarm),
            label: try c.decodeIfPresent(String.self, forKey: .label),
            scheduled: try TimestampCoding.decodeIfPresent(c, .scheduled),
            sound: try c.decodeIfPresent(String.self, forKey: .sound),
            late: try c.decodeIfPresent(Bool.self, forKey: .late),
            reason: try c.decodeIfPresent(String.self, forKey: .reason),
            until: try TimestampCoding.decodeIfPresent(c, .until),
            zone: try c.decodeIfPresent(String.self, forKey: .zone),
            from: try c.decodeIfPresent(String.self, forKey: .from),
            count: try c.decodeIfPresent(Int.self, forKey: .count),
            lead: try c.decodeIfPresent(TimeInterval.self, forKey: .lead),
            timeZone: zone, seq: try c.decodeIfPresent(Int.self, forKey: .seq))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func time(_ d: Date) -> String { RFC3339.format(d, in: timeZone, milliseconds: true) }
        // The keys every event has (null where they do not apply), so scripts can rely on them.
        try c.encodeEach([
            .seq: seq, .event: event, .at: time(at), .alarm: alarm, .label: label, .scheduled: scheduled.map(time),
            .sound: sound,
        ])
        // The others only where they say something.
        try c.encodeEach(
            [
                .late: late, .reason: reason, .until: until.map(time), .zone: zone, .from: from, .count: count,
                .lead: lead,
            ],
            omittingNil: true)
    }

    /// One JSON object on one line (sorted keys, no newline), as the event log writes it.
    public func jsonLine() throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try e.encode(self))
    }
}

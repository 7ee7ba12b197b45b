import FoundationEssentials

// status.json's form of `EngineStatus` (keys in snake_case, timestamps in RFC 3339 with the
// offset of `zone`), kept beside the other JSON forms.

extension EngineStatus: Codable {
    enum CodingKeys: String, CodingKey {
        case state, alarm, sound, reason, next, warnings, paused, snoozes, label, commands
        case snoozedUntil = "snoozed_until"
        case maxSnoozes = "max_snoozes"
    }

    enum NextKeys: String, CodingKey {
        case id, at
    }

    enum PausedKeys: String, CodingKey {
        case id, until
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var zone = Zone.utc
        var next: Next?
        if c.contains(.next), try c.decodeNil(forKey: .next) == false {
            let n = try c.nestedContainer(keyedBy: NextKeys.self, forKey: .next)
            let (at, z) = try TimestampCoding.decode(n, .at)
            next = Next(id: try n.decode(String.self, forKey: .id), at: at)
            zone = z
        }
        var snoozedUntil: Date?
        if c.contains(.snoozedUntil), try c.decodeNil(forKey: .snoozedUntil) == false {
            let (u, z) = try TimestampCoding.decode(c, .snoozedUntil)
            snoozedUntil = u
            zone = z
        }
        var paused: [Paused] = []
        if c.contains(.paused), try c.decodeNil(forKey: .paused) == false {
            var list = try c.nestedUnkeyedContainer(forKey: .paused)
            while !list.isAtEnd {
                let p = try list.nestedContainer(keyedBy: PausedKeys.self)
                paused.append(
                    Paused(
                        id: try p.decode(String.self, forKey: .id),
                        until: try TimestampCoding.decodeIfPresent(p, .until)))
            }
        }
        self.init(
            state: try c.decode(State.self, forKey: .state),
            alarm: try c.decodeIfPresent(String.self, forKey: .alarm),
            sound: try c.decodeIfPresent(String.self, forKey: .sound),
            reason: try c.decodeIfPresent(String.self, forKey: .reason),
            snoozedUntil: snoozedUntil, next: next,
            warnings: try c.decodeIfPresent([String].self, forKey: .warnings) ?? [], paused: paused, zone: zone,
            snoozes: try c.decodeIfPresent(Int.self, forKey: .snoozes),
            maxSnoozes: try c.decodeIfPresent(Int.self, forKey: .maxSnoozes),
            label: try c.decodeIfPresent(String.self, forKey: .label))
        commands = try c.decodeIfPresent(Int.self, forKey: .commands)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEach([
            .state: state, .alarm: alarm, .sound: sound, .reason: reason,
            .snoozedUntil: snoozedUntil.map { RFC3339.format($0, in: zone) },
        ])
        if let next {
            var n = c.nestedContainer(keyedBy: NextKeys.self, forKey: .next)
            try n.encode(next.id, forKey: .id)
            try n.encode(RFC3339.format(next.at, in: zone), forKey: .at)
        } else {
            try c.encodeNil(forKey: .next)
        }
        try c.encode(warnings, forKey: .warnings)
        try c.encodeIfPresent(commands, forKey: .commands)
        if state != .idle {
            try c.encodeEach([.snoozes: snoozes ?? 0, .maxSnoozes: maxSnoozes, .label: label])
        }
        // Only when an alarm is paused: the status of everyone else keeps its keys.
        guard !paused.isEmpty else { return }
        var list = c.nestedUnkeyedContainer(forKey: .paused)
        for p in paused {
            var o = list.nestedContainer(keyedBy: PausedKeys.self)
            try o.encode(p.id, forKey: .id)
            try o.encode(p.until.map { RFC3339.format($0, in: zone) }, forKey: .until)
        }
    }
}

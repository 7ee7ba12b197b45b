import AlarmCore
import FoundationEssentials

extension AlarmContext {
    /// What `list --json` and `export` print: the store format, plus each alarm's next ring
    /// (`"next"`), written by `AlarmListWriter` (byte for byte `JSONEncoder`'s output).
    package func json(_ alarms: [Alarm]) throws -> String {
        // A pause that is over shows as none (alarmd forgets it at the alarm's next occurrence).
        var alarms = alarms
        for i in alarms.indices where alarms[i].pause != nil {
            if case .until = alarms[i].pause, !alarms[i].isPaused(at: now, systemZone: zone) { alarms[i].pause = nil }
        }
        // Each pinned zone looked up once, not once per alarm (`Alarm.displayZone`).
        var zones: [String: Zone] = [:]
        let bytes = try AlarmListWriter.encode(alarms) { a in
            guard let next = nextRing(a) else { return nil }
            guard let name = a.zone else { return RFC3339.format(next, in: zone) }
            if zones[name] == nil { zones[name] = a.displayZone(systemZone: zone) }
            return RFC3339.format(next, in: zones[name]!)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension AlarmContext {
    /// What `alarm next --json` prints for the alarm that rings next: `{"at", "id", "in"}`.
    package func nextJSON(_ alarm: Alarm, at: Date) throws -> String {
        struct Next: Encodable { let id: String, at: String, `in`: Int }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let next = Next(id: alarm.id, at: rfc3339(at, for: alarm), in: Int(at.timeIntervalSince(now).rounded(.up)))
        return String(decoding: try encoder.encode(next), as: UTF8.self)
    }
}

/// What `alarm history --json` prints.
package func historyJSON(_ entries: [HistoryEntry]) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(entries), as: UTF8.self)
}

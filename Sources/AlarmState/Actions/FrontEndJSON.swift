import AlarmCore
import AlarmSystem
import FoundationEssentials

extension AlarmContext {
    /// What `list --json` and `export` print: the store format, plus each alarm's next ring
    /// (`"next"`), written by `AlarmListWriter` (byte for byte `JSONEncoder`'s output).
    package func json(_ alarms: [Alarm]) throws -> String {
        String(decoding: try AlarmListWriter.encode(listed(alarms), next: next(zones: ZoneMemo())), as: UTF8.self)
    }

    /// `json(alarms)` and a newline on standard output, written piece by piece as it is made:
    /// 10,000 alarms are 5 MB that need not be held whole, nor copied into a String (issue #29).
    package func printJSON(_ alarms: [Alarm]) throws {
        var written = true
        try AlarmListWriter.write(listed(alarms), next: next(zones: ZoneMemo())) { piece in
            if written { written = StandardOutput.write(bytes: piece) }
        }
        if written { written = StandardOutput.write("") }  // the newline `print` added
        if !written { throw UserError("the alarms could not be written to standard output") }
    }

    /// A pause that is over shows as none (alarmd forgets it at the alarm's next occurrence).
    private func listed(_ alarms: [Alarm]) -> [Alarm] {
        var alarms = alarms
        for i in alarms.indices where alarms[i].pause != nil {
            if case .until = alarms[i].pause, !alarms[i].isPaused(at: now, systemZone: zone) { alarms[i].pause = nil }
        }
        return alarms
    }

    /// Each alarm's `"next"`: its next ring, in its pinned zone or the system's.
    private func next(zones: ZoneMemo) -> (Alarm) -> AlarmListWriter.Next? {
        { a in
            guard let next = nextRing(a) else { return nil }
            guard let name = a.zone else { return (next, zone) }
            return (next, zones.zone(name) { a.displayZone(systemZone: zone) })
        }
    }
}

/// Each pinned zone looked up once, not once per alarm (`Alarm.displayZone`).
private final class ZoneMemo {
    private var zones: [String: Zone] = [:]

    func zone(_ name: String, _ lookUp: () -> Zone) -> Zone {
        if let known = zones[name] { return known }
        let found = lookUp()
        zones[name] = found
        return found
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

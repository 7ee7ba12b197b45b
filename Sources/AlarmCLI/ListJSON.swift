import AlarmCore
import FoundationEssentials

extension Context {
    /// What `list --json` and `export` print: the store format, plus each alarm's next ring
    /// (`"next"`), written by `AlarmListWriter` (byte for byte `JSONEncoder`'s output).
    func json(_ alarms: [Alarm]) throws -> String {
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

import FoundationEssentials
import Synchronization

/// Remembers each alarm's next ring, so that an event costs the engine a dictionary look-up per
/// alarm instead of a schedule search: with 10,000 alarms every timer, command and reload would
/// otherwise search 10,000 schedules several times over.
///
/// Why it is safe: if the first ring strictly after `from` is `at`, then the first ring strictly
/// after any `x` in `[from, at)` is `at` too (no ring lies between). An entry answers only for
/// the same trigger and, for floating alarms, the same system zone (name and rules); `clear()`
/// drops everything when a pinned zone's rules may have changed too (a zone event). Results
/// never depend on the memo, only the cost does, so copies of an engine may share one.
final class NextRingMemo: Sendable {
    private struct Entry {
        var trigger: AlarmTrigger
        /// The floating alarm's system zone, as a token from `token(for:)`; nil when pinned.
        var zone: Int?
        var from: Date
        var at: Date?
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Zones seen lately and their tokens: comparing a zone (name and rules) once per pass,
    /// not once per alarm.
    private let zones = Mutex<(list: [(Zone, Int)], next: Int)>(([], 0))

    /// A number that stands for `zone` (name and rules) in this memo.
    func token(for zone: Zone) -> Int {
        zones.withLock { z in
            if let hit = z.list.first(where: { $0.0 == zone }) { return hit.1 }
            z.next += 1
            z.list.insert((zone, z.next), at: 0)
            if z.list.count > 4 { z.list.removeLast() }
            return z.next
        }
    }

    /// The first ring of `alarm` strictly after `after`, skip flags not applied.
    /// `token`: `token(for: zone)`, when the caller asks for many alarms in one zone.
    func next(_ alarm: Alarm, after: Date, zone: Zone, token: Int? = nil) -> Date? {
        guard case .calendar(let expr) = alarm.trigger else { return alarm.nextRing(after: after, systemZone: zone) }
        // Floating alarms: the system zone, rules included (a tzdata update keeps the name).
        let zoneKey = expr.zone == nil ? (token ?? self.token(for: zone)) : nil
        let hit: Date?? = entries.withLock { map in
            guard let e = map[alarm.id], e.trigger == alarm.trigger, e.zone == zoneKey, e.from <= after else { return nil }
            if let at = e.at { return after < at ? .some(at) : nil }
            return .some(nil)
        }
        if let hit { return hit }
        let at = alarm.nextRing(after: after, systemZone: zone)
        entries.withLock { $0[alarm.id] = Entry(trigger: alarm.trigger, zone: zoneKey, from: after, at: at) }
        return at
    }

    /// Forgets the alarms of `ids`.
    func forget(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        entries.withLock { map in for id in ids { map[id] = nil } }
    }

    func clear() {
        entries.withLock { $0.removeAll() }
        zones.withLock { $0.list.removeAll() }
    }
}

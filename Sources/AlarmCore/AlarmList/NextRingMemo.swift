import FoundationEssentials
import Synchronization

/// Remembers each alarm's next ring, so that an event costs the engine a dictionary look-up per
/// alarm instead of a schedule search: with 10,000 alarms every timer, command and reload would
/// otherwise search 10,000 schedules several times over.
///
/// Why it is safe: if the first ring strictly after `from` is `at`, then the first ring strictly
/// after any `x` in `[from, at)` is `at` too (no ring lies between). An entry answers only for
/// the same schedule (`Alarm.ScheduleKey`) and, for floating alarms, the same system zone (name
/// and rules); `clear()` drops everything when a pinned zone's rules may have changed too (a
/// zone event). Results never depend on the memo, only the cost does, so copies of an engine may
/// share one.
///
/// Two entries per alarm: `.first` for the occurrence after the engine's mark, `.later` for
/// searches past a pause or a holiday (issue #12), so that a paused alarm costs a look-up too.
final class NextRingMemo: Sendable {
    enum Slot { case first, later }

    private struct Entry {
        var key: Alarm.ScheduleKey
        /// The floating alarm's system zone, as a token from `token(for:)`; nil when pinned.
        var zone: Int?
        var from: Date
        var at: Date?
    }

    /// The next ring that sounds (`Alarm.nextSounding`): valid as an `Entry` is, and only for
    /// the same fate inputs: the pause, `skipHolidays`, the holidays (a token from `uniqueToken`).
    private struct Sounding {
        var entry: Entry
        var pause: Pause?
        var skipHolidays: Bool
        var holidays: Int
    }

    private let entries = Mutex<(first: [String: Entry], later: [String: Entry])>(([:], [:]))
    private let soundings = Mutex<[String: Sounding]>([:])
    private static let tokens = Mutex(0)

    /// A number never handed out before in this process: stands for one holiday calendar.
    static func uniqueToken() -> Int {
        tokens.withLock { n in
            n += 1
            return n
        }
    }
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

    /// The first occurrence of `alarm` strictly after `after` (`Alarm.nextRing`).
    /// `token`: `token(for: zone)`, when the caller asks for many alarms in one zone.
    func next(_ alarm: Alarm, after: Date, zone: Zone, token: Int? = nil, slot: Slot = .first) -> Date? {
        // Instants (with an exact interval or not) are arithmetic: nothing to remember.
        guard case .calendar(let expr) = alarm.trigger else { return alarm.nextRing(after: after, systemZone: zone) }
        // Floating alarms: the system zone, rules included (a tzdata update keeps the name).
        let zoneKey = expr.zone == nil ? (token ?? self.token(for: zone)) : nil
        let hit: Date?? = entries.withLock { maps in
            let map = slot == .first ? maps.first : maps.later
            guard let e = map[alarm.id], e.zone == zoneKey, e.from <= after, Self.same(e.key, alarm) else { return nil }
            if let at = e.at { return after < at ? .some(at) : nil }
            return .some(nil)
        }
        if let hit { return hit }
        let at = alarm.nextRing(after: after, systemZone: zone)
        let entry = Entry(key: alarm.scheduleKey, zone: zoneKey, from: after, at: at)
        entries.withLock { maps in
            if slot == .first { maps.first[alarm.id] = entry } else { maps.later[alarm.id] = entry }
        }
        return at
    }

    /// `alarm.nextSounding(after:...)`, as `compute` finds it, remembered like `next`.
    /// `holidays`: the token of the calendar `compute` uses.
    func sounding(
        _ alarm: Alarm, after: Date, zone: Zone, token: Int? = nil, holidays: Int, compute: () -> Date?
    ) -> Date? {
        // Fates of floating alarms and of instants are read on the system zone's wall clock.
        var zoneKey: Int? = token ?? self.token(for: zone)
        if case .calendar(let e) = alarm.trigger, e.zone != nil { zoneKey = nil }
        let hit: Date?? = soundings.withLock { map in
            guard let s = map[alarm.id], s.entry.zone == zoneKey, s.entry.from <= after, s.holidays == holidays,
                s.skipHolidays == alarm.skipHolidays, s.pause == alarm.pause, Self.same(s.entry.key, alarm)
            else { return nil }
            if let at = s.entry.at { return after < at ? .some(at) : nil }
            return .some(nil)
        }
        if let hit { return hit }
        let at = compute()
        let s = Sounding(
            entry: Entry(key: alarm.scheduleKey, zone: zoneKey, from: after, at: at), pause: alarm.pause,
            skipHolidays: alarm.skipHolidays, holidays: holidays)
        soundings.withLock { $0[alarm.id] = s }
        return at
    }

    private static func same(_ k: Alarm.ScheduleKey, _ a: Alarm) -> Bool {
        k.trigger == a.trigger && k.every == a.every && k.from == a.from && k.until == a.until
    }

    /// Forgets the alarms of `ids`.
    func forget(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        entries.withLock { maps in
            for id in ids {
                maps.first[id] = nil
                maps.later[id] = nil
            }
        }
        soundings.withLock { map in for id in ids { map[id] = nil } }
    }

    func clear() {
        entries.withLock { $0 = ([:], [:]) }
        soundings.withLock { $0.removeAll() }
        zones.withLock { $0.list.removeAll() }
    }
}

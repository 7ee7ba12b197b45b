import FoundationEssentials

// Issue #12 in the engine: what it records for occurrences that do not ring by request (a pause,
// a holiday) and for an alarm whose last occurrence has passed. The visit of each alarm
// (`catchUp`) decides when; these say what.
extension Engine {
    /// Records the `count`-th occurrence of this visit that a pause or a holiday passes over
    /// (`fate`): one `paused` or `skipped` entry each, up to `missedListLimit`, then a warning
    /// for the rest. Returns where the alarm's mark may jump to: past the rest of a pause, once
    /// the limit is reached (a long pause of an often-repeating alarm, caught up at once).
    func passOver(
        _ a: Alarm, at t: Date, fate: OccurrenceFate, count: Int, now: Date, zone: Zone, _ fx: inout Effects
    ) -> Date? {
        let displayZone = a.displayZone(systemZone: zone)
        if count <= Self.missedListLimit {
            let (outcome, reason): (RingOutcome, String)
            switch fate {
            case .holiday(let name):
                (outcome, reason) = (.skipped, HolidayCalendar.reason(name, on: t, in: displayZone))
            default: (outcome, reason) = (.paused, a.pauseReason(systemZone: zone))
            }
            fx.record(
                HistoryEntry(
                    alarm: a.id, scheduled: t, started: nil, ended: nil, outcome: outcome, sound: nil, reason: reason,
                    late: false,
                    zone: displayZone))
            fx.log(
                .notice, "'\(a.id)': the occurrence at \(RFC3339.format(t, in: displayZone)) does not ring: \(reason)")
            return nil
        }
        if count == Self.missedListLimit + 1 {
            fx.log(
                .warning,
                "'\(a.id)': more than \(Self.missedListLimit) paused or skipped occurrences at once; the rest up to \(RFC3339.format(now, in: displayZone)) are not listed one by one"
            )
        }
        guard fate == .paused else { return nil }
        return min(now, a.pauseEnd(systemZone: zone)?.addingTimeInterval(-1) ?? now)
    }

    /// The alarm's last occurrence has passed (`until`, or an expression that runs out): history
    /// says so with an `ended` entry (`scheduled`: that occurrence; `now` if none was handled in
    /// this visit). The caller removes the alarm.
    func recordEnded(_ a: Alarm, last: Date?, now: Date, zone: Zone, _ fx: inout Effects) {
        let displayZone = a.displayZone(systemZone: zone)
        let why =
            a.until.map { "its last occurrence (until \($0.spoken(in: displayZone))) has passed" }
            ?? "its schedule has no occurrence after this one"
        fx.record(
            HistoryEntry(
                alarm: a.id, scheduled: last ?? now, started: nil, ended: nil, outcome: .ended, sound: nil,
                reason: why + ": the alarm ends and was removed", late: false, zone: displayZone))
        fx.log(.notice, "'\(a.id)' ended: \(why); removed")
    }
}

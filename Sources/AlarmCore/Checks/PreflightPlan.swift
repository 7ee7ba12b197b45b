import FoundationEssentials

/// When alarmd runs its pre-flight checks (config `preflight`, default 10 minutes): from that long
/// before the next ring, at once and then again every `recheckInterval` until the ring, so a
/// problem fixed meanwhile (the card plugged back in) clears. Pure: the daemon arms a timer at
/// what `nextCheck` returns.
public enum PreflightPlan {
    /// Between two checks of the same ring: a tenth of the lead, at least 1 s, at most 1 min.
    public static func recheckInterval(lead: TimeInterval) -> TimeInterval {
        min(60, max(1, lead / 10))
    }

    /// When the next check is due, nil for none. `lead` 0 turns the checks off. `lastCheck` is the
    /// last check made for this same ring (nil if none yet). No check is made while a ring is
    /// sounding (`ringing`: its device is in use), nor at or after the ring itself.
    public static func nextCheck(ring: Date?, lead: TimeInterval, lastCheck: Date?, ringing: Bool, now: Date) -> Date? {
        guard lead > 0, !ringing, let ring, now < ring else { return nil }
        let start = ring.addingTimeInterval(-lead)
        if now < start { return start }
        guard let last = lastCheck, last >= start else { return now }
        let next = max(now, last.addingTimeInterval(recheckInterval(lead: lead)))
        return next < ring ? next : nil
    }

    /// Whether `now` lies in the pre-flight window of a ring at `ring`.
    public static func inWindow(ring: Date?, lead: TimeInterval, now: Date) -> Bool {
        guard lead > 0, let ring else { return false }
        return now >= ring.addingTimeInterval(-lead) && now < ring
    }
}

import FoundationEssentials

// Catching up: everything due up to an event's `now`. First the ring state's own deadlines (a
// ring that ran its length, a playback retry, a snooze that ended), then each alarm's
// occurrences since its mark (passed over, skipped, missed or due; an alarm that ended or rang
// once is removed), last the newest due occurrence rings, the others with it.
extension Engine {

    /// Handles everything due up to `now`: in the zone in force until this event, then adopts the
    /// event's zone for what follows. `unseen`: occurrences already passed went by while the
    /// engine could not ring them (it was not running, the clock jumped, the alarm was not known
    /// yet), so any delay marks them late; otherwise the timer rang them and only a delay past
    /// `lateTolerance` does.
    mutating func advance(
        now: Date, zone eventZone: Zone, unseen: Bool = false, only: [Int]? = nil, _ fx: inout Effects
    ) {
        if let seen = state.processedThrough, seen.timeIntervalSince(now) > settings.backwardJumpLimit {
            fx.log(
                .warning,
                "clock moved back by \(Durations.format(seen.timeIntervalSince(now).rounded())) (from "
                    + "\(RFC3339.format(seen, in: eventZone))): more than "
                    + "\(Durations.format(settings.backwardJumpLimit)), so the old clock is taken as wrong and "
                    + "occurrences after now will ring")
            state.rewoundFrom = max(state.rewoundFrom ?? seen, seen)
            for (id, m) in state.marks { state.marks[id] = min(m, now) }
            dueHint = nil
            state.processedThrough = now
        }
        if let rewound = state.rewoundFrom, now >= rewound {
            for (id, m) in state.marks { state.marks[id] = max(m, rewound) }
            state.rewoundFrom = nil
            dueHint = nil
            fx.log(
                .notice,
                "the clock is past \(RFC3339.format(rewound, in: eventZone)) again, where it was before it was set back: occurrences up to then were handled already"
            )
        }
        let oldZone = zone ?? eventZone
        // Nothing is due before the first occurrence the last event found (`dueHint`), as long
        // as the zone stays: then the alarms need no visit and their marks may stay behind (see
        // `dueHint`). A new zone (or new rules) brings every mark up to `now` first, by a visit.
        var visit = only
        if visit == nil, let hint = dueHint, !(hint.at.map { $0 <= now } ?? false) {
            let token = memo.token(for: oldZone)
            if hint.token == token && memo.token(for: eventZone) == token { visit = [] }
        }
        catchUp(now: now, zone: oldZone, unseen: unseen, only: visit, &fx)
        if oldZone.identifier != eventZone.identifier {
            fx.log(
                .notice,
                "system zone changed from \(oldZone.identifier) to \(eventZone.identifier): floating alarms follow it")
        }
        zone = eventZone
        state.processedThrough = max(state.processedThrough ?? now, now)
        pruneMarks(now: now)
    }

    private typealias DueOccurrence = (alarm: Alarm, at: Date)

    private mutating func catchUp(now: Date, zone: Zone, unseen: Bool, only: [Int]?, _ fx: inout Effects) {
        // 1. The ring state's own deadlines.
        clampRingDeadlines(now: now)
        handleRingDeadlines(now: now, &fx)
        // 2. Occurrences in (mark, now] of every alarm, or of those at `only` (indices).
        let due = visitAlarms(only, now: now, zone: zone, &fx)
        // 3. Ring the newest due occurrence; the others ring with it.
        ringDue(due, now: now, zone: zone, unseen: unseen, &fx)
    }

    // MARK: 1. The ring state's deadlines

    /// The ring state's own deadlines, which a backward clock jump must not stretch: a 9-minute
    /// snooze never lasts more than 9 minutes from now.
    private mutating func clampRingDeadlines(now: Date) {
        switch state.ring {
        case .idle:
            break
        case .ringing(var r):
            r.deadline = min(r.deadline, now.addingTimeInterval(r.ringLength))
            r.retryAt = r.retryAt.map { min($0, now.addingTimeInterval(settings.retryDelay)) }
            state.ring = .ringing(r)
        case .snoozed(let r, let until):
            state.ring = .snoozed(r, until: min(until, now.addingTimeInterval(r.snoozedFor ?? r.snoozeLength)))
        }
    }

    /// What the ring state's deadlines bring at `now`: a ring past its length was not answered
    /// (`ignored`), a failed playback is retried, a snooze that ran out ends.
    private mutating func handleRingDeadlines(now: Date, _ fx: inout Effects) {
        switch state.ring {
        case .idle:
            break
        case .ringing(var r):
            if now >= r.deadline {
                fx.stopAudio()
                ignored(r, now: now, &fx)
            } else if let t = r.retryAt, now >= t {
                r.retryAt = nil
                state.ring = .ringing(r)
                fx.startRinging(request(r))
                fx.log(.notice, "retrying playback for \(Self.name(r.occurrence.alarm))")
            }
        case .snoozed(let r, let until):
            if now >= until { resumeAfterSnooze(r, until: until, now: now, &fx) }
        }
    }

    /// A snooze that ran out rings again, as a new episode (late past `lateTolerance`); one that
    /// ended more than `grace` ago (the daemon was down) is recorded missed instead.
    private mutating func resumeAfterSnooze(_ r: Ringing, until: Date, now: Date, _ fx: inout Effects) {
        let late = now.timeIntervalSince(until)
        if late <= settings.grace {
            let next = newEpisode(r, now: now, late: late > settings.lateTolerance)
            state.ring = .ringing(next)
            fx.startRinging(request(next))
            fx.log(
                .notice,
                "snooze of \(Self.name(r.occurrence.alarm)) ended: ringing again"
                    + (late > settings.lateTolerance ? " (late by \(Durations.format(late.rounded())))" : ""))
        } else {
            let reason =
                "snooze ended at \(RFC3339.format(until, in: r.zone)), more than \(Durations.format(settings.grace)) ago"
            for o in [r.occurrence] + r.merged {
                fx.record(
                    HistoryEntry(
                        alarm: o.alarm, scheduled: o.scheduled, started: nil, ended: nil, outcome: .missed, sound: nil,
                        reason: reason, late: true, zone: r.zone))
            }
            state.ring = .idle
            fx.log(.warning, "\(Self.name(r.occurrence.alarm)): \(reason); recorded as missed")
        }
    }

    // MARK: 2. Each alarm's occurrences

    /// Visits every alarm, or those at `only` (indices), and drops from the list those that
    /// ended or rang once. Returns the occurrences due to ring now, in the order found.
    private mutating func visitAlarms(_ only: [Int]?, now: Date, zone: Zone, _ fx: inout Effects) -> [DueOccurrence] {
        var due: [DueOccurrence] = []
        var removedAt: [Int] = []
        let token = memo.token(for: zone)
        func visit(_ i: Int) {
            if visitAlarm(at: i, now: now, zone: zone, token: token, due: &due, &fx) { removedAt.append(i) }
        }
        if let only {
            for i in only { visit(i) }
        } else {
            for i in alarms.indices { visit(i) }
        }
        for i in removedAt.sorted(by: >) {
            alarmIDs.remove(alarms[i].id)
            alarms.remove(at: i)
        }
        return due
    }

    /// Handles the alarm at `i`: its occurrences in (mark, now] (`walkOccurrences`), its mark up
    /// to `now`, then what they leave. Returns true when the alarm is removed (it ended or rang
    /// once; the caller drops it from the list); otherwise a pause that is over, or a skip used
    /// up, is cleared in the store.
    private mutating func visitAlarm(
        at i: Int, now: Date, zone: Zone, token: Int, due: inout [DueOccurrence], _ fx: inout Effects
    ) -> Bool {
        let original = alarms[i]
        var a = original
        let (mark, last, removed) = walkOccurrences(&a, now: now, zone: zone, token: token, due: &due, &fx)
        state.marks[a.id] = max(state.marks[a.id] ?? now, now)
        // After its last occurrence an alarm ends (issue #12): `until` passed, or its
        // expression ran out. Asked only when something could have ended it.
        if !removed, last != nil || a.until != nil,
            memo.next(a, after: max(mark, now), zone: zone, token: token) == nil
        {
            recordEnded(a, last: last, now: now, zone: zone, &fx)
            fx.remove(original)
            orphans.insert(a.id)
            return true
        }
        if removed {
            fx.remove(original)
            orphans.insert(a.id)
            fx.log(.info, "'\(a.id)' rings once: removed")
            return true
        }
        if case .until? = a.pause, let last, let end = a.pauseEnd(systemZone: zone), last >= end {
            // The pause is over, and an occurrence after it was handled: the store forgets
            // it (as `skip_next` is cleared when its occurrence passes). Decided by the
            // occurrences handled, so a visit of every alarm clears it at the same event.
            a.pause = nil
            fx.clearPause(original)
            fx.log(.info, "'\(a.id)': the pause has ended")
        }
        if a.skipNext != original.skipNext {
            var cleared = original
            cleared.skipNext = false
            fx.clearSkipNext(cleared)
        }
        if a != original { alarms[i] = a }
        return false
    }

    /// Walks the alarm's occurrences in (mark, now]: a pause or a holiday passes one over, a skip
    /// asked for uses one up, one passed more than `grace` ago is missed, the others are `due`.
    /// `a` comes back as they leave it (its skip used up). Returns where the walk got to, the last
    /// occurrence handled, and whether the alarm is to be removed (it rings once, and its
    /// occurrence was handled).
    private func walkOccurrences(
        _ a: inout Alarm, now: Date, zone: Zone, token: Int, due: inout [DueOccurrence], _ fx: inout Effects
    ) -> (mark: Date, last: Date?, removed: Bool) {
        var mark = state.marks[a.id] ?? now
        var removed = false
        var missed = 0
        var passedOver = 0  // paused and skipped, recorded one by one up to the limit
        var last: Date? = nil
        let decides = a.pause != nil || a.skipHolidays
        while mark < now, let t = memo.next(a, after: mark, zone: zone, token: token), t <= now {
            mark = t
            last = t
            let displayZone = a.displayZone(systemZone: zone)
            // A pause or a holiday decides first: such an occurrence never rings, is never
            // missed, and does not use up a skip (`alarm skip` skips the next that would ring).
            let fate = decides ? a.fate(of: t, systemZone: zone, holidays: holidays) : .rings
            if fate != .rings {
                passedOver += 1
                if let jump = passOver(a, at: t, fate: fate, count: passedOver, now: now, zone: zone, &fx) {
                    mark = max(mark, jump)
                }
                if a.ringsOnce && a.nextRing(after: t, systemZone: zone) == nil {
                    removed = true
                    break
                }
                continue
            }
            if a.skipNext {
                a.skipNext = false
                fx.log(.notice, "'\(a.id)': skipped the occurrence at \(RFC3339.format(t, in: displayZone)) as asked")
                if a.ringsOnce && a.nextRing(after: t, systemZone: zone) == nil {
                    removed = true
                    break
                }
                continue
            }
            if now.timeIntervalSince(t) > settings.grace {
                missed += 1
                if let jump = recordMissed(a, at: t, count: missed, now: now, zone: displayZone, &fx) {
                    mark = max(mark, jump)
                }
            } else {
                due.append((a, t))
            }
            if a.ringsOnce {
                removed = true
                break
            }
        }
        return (mark, last, removed)
    }

    /// Records the `count`-th occurrence of this visit that passed unrung more than `grace` ago
    /// (`displayZone`: the alarm's): one `missed` entry each, up to `missedListLimit`; then one
    /// entry stands for the rest, and the result is where the alarm's mark jumps to.
    private func recordMissed(
        _ a: Alarm, at t: Date, count: Int, now: Date, zone displayZone: Zone, _ fx: inout Effects
    ) -> Date? {
        if count <= Self.missedListLimit {
            fx.record(
                HistoryEntry(
                    alarm: a.id, scheduled: t, started: nil, ended: nil, outcome: .missed, sound: nil,
                    reason:
                        "passed \(Durations.format(now.timeIntervalSince(t).rounded())) ago, more than the \(Durations.format(settings.grace)) grace",
                    late: true, zone: displayZone))
            fx.log(.warning, "'\(a.id)': missed the occurrence at \(RFC3339.format(t, in: displayZone))")
            return nil
        }
        // A repeating alarm that passed unrung very often (a long downtime, a
        // clock that started in 1970): one entry stands for the rest.
        let until = now.addingTimeInterval(-settings.grace)
        let reason =
            "this and every later occurrence up to \(RFC3339.format(until, in: displayZone)) passed unrung (daemon down or clock set); more than \(Self.missedListLimit) are not listed one by one"
        fx.record(
            HistoryEntry(
                alarm: a.id, scheduled: t, started: nil, ended: nil, outcome: .missed, sound: nil,
                reason: reason, late: true, zone: displayZone))
        fx.log(.warning, "'\(a.id)': \(reason)")
        return until
    }

    // MARK: 3. What rings

    /// Rings the newest of `due`; the others ring with it, and whatever rang or was snoozed is
    /// superseded. `unseen`: see `advance`.
    private mutating func ringDue(_ due: [DueOccurrence], now: Date, zone: Zone, unseen: Bool, _ fx: inout Effects) {
        guard !due.isEmpty else { return }
        var primary = due[0]
        for d in due.dropFirst() where d.at > primary.at { primary = d }
        let merged = due.filter { !($0.alarm.id == primary.alarm.id && $0.at == primary.at) }
            .map { Occurrence(alarm: $0.alarm.id, scheduled: $0.at) }
        let late = now.timeIntervalSince(primary.at) > (unseen ? 0 : settings.lateTolerance)
        let r = makeRinging(primary.alarm, scheduled: primary.at, merged: merged, now: now, late: late, zone: zone)
        preempt(by: "alarm '\(primary.alarm.id)'", now: now, &fx)
        state.ring = .ringing(r)
        fx.startRinging(request(r))
        var text = "ringing '\(primary.alarm.id)' scheduled \(RFC3339.format(primary.at, in: r.zone))"
        if late { text += ", late by \(Durations.format(now.timeIntervalSince(primary.at).rounded()))" }
        if !merged.isEmpty {
            text +=
                ", together with "
                + merged.map { "\(Self.name($0.alarm)) at \(RFC3339.format($0.scheduled, in: r.zone))" }.joined(
                    separator: ", ")
        }
        fx.log(.notice, text)
    }
}

import FoundationEssentials

/// The ring engine: a value that takes events and returns the actions its driver performs, in the
/// manner of swift-service-lifecycle's state machines. No clock, no I/O: `now` comes with every
/// event, so tests drive it with a fake clock.
///
/// What the caller may rely on:
/// - **Every occurrence is handled exactly once.** Per alarm the engine keeps a mark: every
///   occurrence at or before it has been rung, skipped or recorded as missed. Each event moves the
///   marks up to its `now`, never back, so a backward clock jump (up to
///   `EngineSettings.backwardJumpLimit`) or a restart never rings an occurrence twice. The engine
///   only learns that time passed through events: after a backward jump, a floating occurrence
///   that the *new* zone puts between the new time and the latest event (one that never existed
///   in the old zone) still rings.
/// - **Late, not lost.** An occurrence passed by at most `grace` (clock jumped forward over it,
///   daemon down, CLI change noticed late) rings at once, marked late (it passed unseen: any
///   delay counts); older ones are recorded as `missed`. One the timer rings is late only past
///   `lateTolerance`. The same holds for a snooze that ended while the daemon was down.
/// - **One sound at a time, newest wins.** Occurrences due together ring once (the latest one
///   plays; the others share its history entries). An occurrence that comes due while another
///   rings or is snoozed takes over: the ringing episode ends as `silenced` ("superseded by ..."),
///   a pending snooze is dropped and recorded `silenced` too. A bedside alarm never stays silent
///   because an older one was still ringing or snoozed.
/// - **History says how every ring ended.** Each occurrence that rang ends with an entry other
///   than `snoozed`: `stopped` (also "stopped while snoozed"), `silenced` (ring length, or
///   superseded), `ignored`, `failed`, or `missed` (a snooze that ended while alarmd was down
///   past the grace window).
/// - **Zone changes move floating alarms only**, from the moment they are seen: occurrences up to
///   the event are computed in the old zone, later ones in the new zone. Pinned and absolute
///   alarms keep their instants.
/// - A ringing or snoozed occurrence carries everything it needs (sound, lengths): removing or
///   editing its alarm meanwhile does not silence it; `stop` does.
/// - Impossible commands (stop or snooze while idle, a snooze of zero length) return a log
///   action saying why and change nothing.
public struct Engine: Sendable {
    public internal(set) var settings: EngineSettings
    /// The alarms as the engine knows them (once alarms disappear when they ring, skip flags clear).
    public internal(set) var alarms: [Alarm] = []
    /// The persistent part: ring state and marks.
    public internal(set) var state = EngineState()
    /// The system zone floating alarms were last computed in.
    public internal(set) var zone: Zone?
    /// The holidays alarms with `skipHolidays` do not ring on (issue #12). Holidays decide the
    /// fate of occurrences, never which instants are occurrences: a change needs no visit.
    public internal(set) var holidays: HolidayCalendar
    /// Stands for `holidays` in the memo (`NextRingMemo.uniqueToken`).
    var holidaysToken = NextRingMemo.uniqueToken()
    var lastStatus: EngineStatus?
    /// Ids with a mark but no alarm (removed, or rung once): their marks are kept for a while
    /// (see `pruneMarks`). Derived from the state, not saved.
    var orphans = Set<String>()
    /// Next rings already searched for (a cache; see `NextRingMemo`).
    let memo = NextRingMemo()
    /// The ids of `alarms`.
    var alarmIDs = Set<String>()
    /// The first occurrence of any alarm after the last event (`upcoming(...).first`, nil: none
    /// at all), found in the zone of `token` (`memo.token(for:)`).
    ///
    /// Before that instant no alarm has an occurrence, so an event in the same zone visits no
    /// alarm: with 10,000 alarms a reload or a command costs the alarms it changes, not a look-up
    /// each. Marks then stay where they were instead of moving up to `now`, which changes nothing
    /// while the zone stays (no occurrence lies between a mark left behind and the last event);
    /// they are all brought up to `now` before they could matter: when the zone or its rules
    /// change (a visit of every alarm), when they are saved, and when an alarm is removed.
    /// Anything that moves marks back (a backward clock jump) drops the hint.
    var dueHint: DueHint?

    struct DueHint: Sendable {
        var at: Date?
        var token: Int
    }

    /// At most this many missed occurrences of one alarm are recorded one by one per catch-up;
    /// one more entry stands for the rest (a long downtime of an often-repeating alarm).
    static let missedListLimit = 100

    public init(settings: EngineSettings = .defaults, holidays: HolidayCalendar = .empty) {
        self.settings = settings
        self.holidays = holidays
    }

    public mutating func handle(_ kind: EngineEvent.Kind, now: Date, zone: Zone) -> [EngineAction] {
        handle(EngineEvent(kind, now: now, zone: zone))
    }

    public mutating func handle(_ event: EngineEvent) -> [EngineAction] {
        var fx = Effects()
        let before = state
        let now = event.now
        switch event.kind {
        case .start(let list, let saved):
            start(alarms: list, saved: saved, now: now, zone: event.zone, &fx)
        case .timerFired:
            advance(now: now, zone: event.zone, &fx)
        case .zoneChanged:
            // The zone, or only its rules (a tzdata upgrade): next rings are searched anew.
            memo.clear()
            advance(now: now, zone: event.zone, &fx)
        case .clockChanged:
            advance(now: now, zone: event.zone, unseen: true, &fx)
        case .alarmsChanged(let list):
            advance(now: now, zone: event.zone, &fx)
            let fresh = replaceAlarms(list, now: now, &fx)
            advance(now: now, zone: event.zone, unseen: true, only: fresh, &fx)
        case .snooze(let duration):
            advance(now: now, zone: event.zone, &fx)
            snooze(duration, now: now, &fx)
        case .stop:
            advance(now: now, zone: event.zone, &fx)
            stop(now: now, &fx)
        case .ringNow(let sound):
            advance(now: now, zone: event.zone, &fx)
            ringNow(sound: sound, now: now, zone: event.zone, &fx)
        case .playbackStarted(let sound, let reason):
            playbackStarted(sound: sound, reason: reason, now: now, &fx)
            advance(now: now, zone: event.zone, &fx)
        case .playbackFailed(let reason):
            playbackFailed(reason: reason, now: now, &fx)
            advance(now: now, zone: event.zone, &fx)
        case .fallbackRan(let note):
            fallbackRan(note: note, &fx)
        case .mixerRaised(let note):
            mixerRaised(note)
            advance(now: now, zone: event.zone, &fx)
        case .holidaysChanged(let new):
            advance(now: now, zone: event.zone, &fx)
            holidays = new
            holidaysToken = NextRingMemo.uniqueToken()
            fx.log(.info, "holidays changed: \(new.count) day(s)")
        case .settingsChanged(let new):
            advance(now: now, zone: event.zone, &fx)
            settings = new
            fx.log(
                .info,
                "settings changed: snooze \(Durations.format(new.snooze)), ring \(Durations.format(new.ring)), volume \(new.volume)%, grace \(Durations.format(new.grace))"
            )
        case .shutdown:
            advance(now: now, zone: event.zone, &fx)
            if case .ringing = state.ring { fx.stopAudio() }
            fx.log(.notice, "shutting down in state \(stateName); it resumes at the next start")
        }
        // Marks brought up to `now` (below) leave `upcoming` unchanged: it looks after `now`.
        let up = upcoming(now: now, zone: event.zone)
        let preAlarmWake = preAlarms(up.leads, now: now, zone: event.zone, &fx)
        let persist = mustPersist(event.kind, before: before, fx)
        if persist { bringMarksUp(to: now) }
        var actions = fx.actions(persist: persist ? state : nil)
        dueHint = DueHint(at: up.first, token: memo.token(for: event.zone))
        let status = self.status(next: up.next, paused: up.paused, zone: event.zone)
        if status != lastStatus {
            lastStatus = status
            actions.insert(.publishStatus(status), at: actions.endIndex)
        }
        let wake = [nextWakeUp(firstOccurrence: up.first), preAlarmWake].compactMap { $0 }.min()
        actions.append(.armTimer(at: wake))
        return actions
    }

    /// Whether the state must be saved after this event. Marks move up to `now` at every event,
    /// but saving them only matters when an occurrence was handled (it rang, was missed or
    /// skipped: the ring state, history or store changed) or the frame of reference changed
    /// (start, zone, clock, shutdown). Between such saves no alarm had an occurrence, so marks
    /// from the last save lead a restart to the same place; with 10,000 alarms this keeps a
    /// reload or a command from rewriting every mark.
    func mustPersist(_ kind: EngineEvent.Kind, before: EngineState, _ fx: Effects) -> Bool {
        switch kind {
        case .start(_, let saved):
            // Saved anew when there was none, or its journal was replayed (and must go); else
            // only when something happened: a restart that handled nothing leaves the file as
            // it was (10,000 marks are most of a start's cost to write).
            if saved == nil || saved?.journal != nil { return true }
        case .zoneChanged, .clockChanged, .shutdown: return state != before
        default: break
        }
        return fx.hasRecords || state.ring != before.ring || state.rewoundFrom != before.rewoundFrom
            || state.journal != before.journal || state.preAlarms != before.preAlarms
    }

    /// Every alarm's mark up to `now` (see `dueHint`): what a visit of each alarm would leave.
    mutating func bringMarksUp(to now: Date) {
        for a in alarms {
            if let m = state.marks[a.id], m >= now { continue }
            state.marks[a.id] = now
        }
    }

    // MARK: Queries

    /// The next ring (skip flags applied) strictly after everything already handled.
    public func nextRing(now: Date, zone: Zone) -> EngineStatus.Next? {
        upcoming(now: now, zone: zone).next
    }

    /// One pass over the alarms: the next ring (pauses, holidays and skip flags applied), the
    /// first occurrence of any alarm (paused, skipped and holiday ones too: each is visited at
    /// its instant, to be recorded or to clear its flag), and the alarms paused now.
    ///
    /// `leads`: for each alarm with pre-alarm leads (its own, else the settings'), its next ring
    /// with all of those applied: the ring its pre-alarms are for.
    func upcoming(
        now: Date, zone: Zone
    ) -> (
        next: EngineStatus.Next?, first: Date?, paused: [EngineStatus.Paused], leads: [UpcomingPreAlarms]
    ) {
        var leads: [UpcomingPreAlarms] = []
        var best: EngineStatus.Next?
        var first: Date?
        var paused: [EngineStatus.Paused] = []
        let token = memo.token(for: zone)
        for a in alarms {
            if a.pause != nil, a.isPaused(at: now, systemZone: zone) {
                paused.append(.init(id: a.id, until: a.pauseEnd(systemZone: zone)))
            }
            let after = max(state.marks[a.id] ?? now, now)
            guard let raw = memo.next(a, after: after, zone: zone, token: token) else { continue }
            if first == nil || raw < first! { first = raw }
            var t = raw
            if a.pause != nil || (a.skipHolidays && !holidays.isEmpty) {
                let sounding = memo.sounding(a, after: after, zone: zone, token: token, holidays: holidaysToken) {
                    a.nextSounding(after: after, systemZone: zone, holidays: holidays) { x in
                        x == after ? raw : self.memo.next(a, after: x, zone: zone, token: token, slot: .later)
                    }
                }
                guard let s = sounding else { continue }
                t = s
            }
            if a.skipNext {
                guard let t2 = a.nextSounding(after: t, systemZone: zone, holidays: holidays) else { continue }
                t = t2
            }
            if best == nil || t < best!.at { best = .init(id: a.id, at: t) }
            if let l = a.preAlarm ?? settings.preAlarm { leads.append(.init(alarm: a, ring: t, leads: l.seconds)) }
        }
        return (best, first, paused.sorted { $0.id < $1.id }, leads)
    }

    /// The ring the next occurrence starts if nothing changes before it (the daemon pre-rolls
    /// it, issue #11): nil while something rings or is snoozed (the sound card is busy, and a
    /// snooze's end may come first), or when no alarm is due. `late` is false.
    public func upcomingRing(now: Date, zone: Zone) -> RingRequest? {
        guard case .idle = state.ring, let next = (lastStatus?.next ?? nextRing(now: now, zone: zone)),
            let a = alarms.first(where: { $0.id == next.id })
        else { return nil }
        return request(makeRinging(a, scheduled: next.at, merged: [], now: next.at, late: false, zone: zone))
    }

    public func status(now: Date, zone: Zone) -> EngineStatus {
        let up = upcoming(now: now, zone: zone)
        return status(next: up.next, paused: up.paused, zone: zone)
    }

    func status(next: EngineStatus.Next?, paused: [EngineStatus.Paused], zone: Zone) -> EngineStatus {
        switch state.ring {
        case .idle:
            return EngineStatus(state: .idle, next: next, paused: paused, zone: zone)
        case .ringing(let r):
            return EngineStatus(
                state: .ringing, alarm: r.occurrence.alarm, sound: r.playing ?? r.sound ?? "default", reason: r.reason,
                next: next, paused: paused, zone: zone, snoozes: r.snoozes ?? 0, maxSnoozes: r.maxSnoozes,
                label: r.label)
        case .snoozed(let r, let until):
            return EngineStatus(
                state: .snoozed, alarm: r.occurrence.alarm, sound: r.playing ?? r.sound ?? "default", reason: r.reason,
                snoozedUntil: until, next: next, paused: paused, zone: zone, snoozes: r.snoozes ?? 0,
                maxSnoozes: r.maxSnoozes, label: r.label)
        }
    }

    /// The earliest instant at which something is due: an occurrence (`firstOccurrence`, from
    /// `upcoming`), a snooze end, an auto-silence, a playback retry.
    func nextWakeUp(firstOccurrence: Date?) -> Date? {
        var times: [Date] = firstOccurrence.map { [$0] } ?? []
        switch state.ring {
        case .idle: break
        case .ringing(let r):
            times.append(r.deadline)
            if let t = r.retryAt { times.append(t) }
        case .snoozed(_, let until):
            times.append(until)
        }
        return times.min()
    }

    var stateName: String {
        switch state.ring {
        case .idle: return "idle"
        case .ringing(let r): return "ringing \(Self.name(r.occurrence.alarm))"
        case .snoozed(let r, let until):
            return "snoozed \(Self.name(r.occurrence.alarm)) until \(RFC3339.format(until, in: r.zone))"
        }
    }

    static func name(_ id: String?) -> String { id.map { "'\($0)'" } ?? "manual ring" }
}

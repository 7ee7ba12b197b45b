import FoundationEssentials

// The engine's transitions. Each takes the event's `now` and records actions in `fx`.
extension Engine {
    mutating func start(alarms list: [Alarm], saved: EngineState?, now: Date, zone: Zone, _ fx: inout Effects) {
        state = saved ?? EngineState()
        if let journal = state.journal {
            // The last run saved this state but may have died before its history and store
            // changes: carry them out again (they are idempotent).
            state.journal = nil
            fx.replay(journal)
            fx.log(
                .info,
                "replaying \(journal.history.count) history entr(ies) and \(journal.store.count) store change(s) saved with the state"
            )
        }
        // The first of each id (one set built serves both).
        var seen = Set<String>(minimumCapacity: list.count)
        alarms = list.filter { seen.insert($0.id).inserted }
        alarmIDs = seen
        dueHint = nil
        lastStatus = nil
        self.zone = zone
        // Every occurrence after an alarm's `created` is owed: one the saved state has not handled
        // (the alarm was added or changed while the daemon was down, or there is no saved state)
        // rings now, late, or is recorded missed. Only alarms from stores that predate `created`
        // fall back to when the daemon last ran.
        let legacyBase = min(state.processedThrough ?? now, now)
        for a in alarms {
            state.marks[a.id] = firstMark(for: a, saved: state.marks[a.id], fallback: legacyBase, now: now)
        }
        orphans = Set(state.marks.keys.lazy.filter { !seen.contains($0) })
        if saved == nil {
            fx.log(.notice, "no saved state: starting fresh at \(RFC3339.format(now, in: zone))")
        }
        if case .ringing(var r) = state.ring {
            if now < r.deadline {
                r.retryAt = nil
                state.ring = .ringing(r)
                fx.startRinging(request(r))
                fx.log(.notice, "resuming ringing of \(Self.name(r.occurrence.alarm)) after a restart")
            } else {
                end(r, .silenced, now: now, reason: "ring length passed while the daemon was down", &fx)
                state.ring = .idle
            }
        }
        advance(now: now, zone: zone, unseen: true, &fx)
        fx.log(.info, "started with \(alarms.count) alarm(s), \(stateName)")
    }

    /// Ends whatever rings or waits, because something newer rings now.
    mutating func preempt(by what: String, now: Date, _ fx: inout Effects) {
        switch state.ring {
        case .idle:
            break
        case .ringing(let r):
            end(r, .silenced, now: now, reason: "superseded by \(what)", &fx)
            fx.stopAudio()
            fx.log(.notice, "\(Self.name(r.occurrence.alarm)) superseded by \(what)")
        case .snoozed(let r, let until):
            endSnooze(
                r, .silenced, now: now,
                reason: "snooze until \(RFC3339.format(until, in: r.zone)) dropped: superseded by \(what)", &fx)
            fx.log(
                .notice,
                "snooze of \(Self.name(r.occurrence.alarm)) until \(RFC3339.format(until, in: r.zone)) dropped: superseded by \(what)"
            )
        }
        state.ring = .idle
    }

    /// Takes `list` as the alarms (the first of each id) and returns the indices, in the new
    /// list, of the alarms that are new or have a new trigger: their marks start afresh.
    ///
    /// A reload after a one-alarm change must not cost a look-up per alarm (issue #9): the lists
    /// are compared in place first (same ids at the start and at the end), and only the part in
    /// between is matched by id.
    @discardableResult
    mutating func replaceAlarms(_ list: [Alarm], now: Date, _ fx: inout Effects) -> [Int] {
        let old = alarms
        var list = list
        let shortest = min(old.count, list.count)
        var p = 0
        while p < shortest && old[p].id == list[p].id { p += 1 }
        var s = 0
        while s < shortest - p && old[old.count - 1 - s].id == list[list.count - 1 - s].id { s += 1 }
        // The middles: matched by id. An id of the new middle that the old list holds outside
        // its own middle, or twice, is a duplicate: then the whole lists are matched instead.
        var oldMiddle = [String: Int](minimumCapacity: old.count - s - p)
        for j in p..<(old.count - s) { oldMiddle[old[j].id] = j }
        var middleIDs = Set<String>(minimumCapacity: list.count - s - p)
        let duplicates = list[p..<(list.count - s)].contains {
            !middleIDs.insert($0.id).inserted || (oldMiddle[$0.id] == nil && alarmIDs.contains($0.id))
        }
        if duplicates {
            list = Self.unique(list)
            (p, s) = (0, 0)
            oldMiddle = Dictionary(old.indices.map { (old[$0].id, $0) }, uniquingKeysWith: { a, _ in a })
            middleIDs = Set(list.map(\.id))
        }
        var fresh: [Int] = []
        var added = 0
        for i in 0..<p where !old[i].sameSchedule(as: list[i]) { fresh.append(i) }
        for (i, a) in zip(p..<(list.count - s), list[p..<(list.count - s)]) {
            if let j = oldMiddle[a.id] {
                if !old[j].sameSchedule(as: a) { fresh.append(i) }
            } else {
                fresh.append(i)
                added += 1
            }
        }
        for k in 0..<s where !old[old.count - 1 - k].sameSchedule(as: list[list.count - 1 - k]) {
            fresh.append(list.count - 1 - k)
        }
        for i in fresh {
            let a = list[i]
            if alarmIDs.contains(a.id) {
                // A new trigger is a new alarm: its occurrences count from its own `created`.
                state.marks[a.id] = firstMark(for: a, saved: nil, fallback: now, now: now)
            } else {
                // New, or back after a removal: from its `created`, and never again what was
                // handled under this id before.
                state.marks[a.id] = firstMark(for: a, saved: state.marks[a.id], fallback: now, now: now)
            }
            orphans.remove(a.id)
        }
        // Gone: their marks come up to `now` (they may have stayed behind, see `dueHint`) and are
        // kept a while, so the id coming back does not ring what was handled.
        var gone: [String] = []
        for (id, _) in oldMiddle where !middleIDs.contains(id) {
            gone.append(id)
            state.marks[id] = max(state.marks[id] ?? now, now)
            orphans.insert(id)
            alarmIDs.remove(id)
        }
        for i in fresh { alarmIDs.insert(list[i].id) }
        alarms = list
        memo.forget(gone)
        fx.log(.info, "alarms changed: \(list.count) alarm(s), \(added) new, \(gone.count) removed")
        return fresh
    }

    mutating func snooze(_ duration: TimeInterval?, now: Date, _ fx: inout Effects) {
        if let duration, !(duration > 0) {
            fx.log(.warning, "snooze ignored: the length must be positive, got \(duration) s")
            return
        }
        switch state.ring {
        case .idle:
            fx.log(.warning, "snooze ignored: nothing is ringing or snoozed")
        case .ringing(var r):
            if let refusal = snoozeRefusal(r) {
                fx.log(.warning, refusal)
                return
            }
            r.snoozes = (r.snoozes ?? 0) + 1
            let until = now.addingTimeInterval(duration ?? r.snoozeLength)
            fx.stopAudio()
            end(r, .snoozed, now: now, reason: nil, &fx)
            r.snoozedFor = duration ?? r.snoozeLength
            state.ring = .snoozed(r, until: until)
            fx.log(.notice, "\(Self.name(r.occurrence.alarm)) snoozed until \(RFC3339.format(until, in: r.zone))")
        case .snoozed(var r, _):
            // A snooze restarted while snoozed counts too, or the limit could be stretched.
            if let refusal = snoozeRefusal(r) {
                fx.log(.warning, refusal)
                return
            }
            r.snoozes = (r.snoozes ?? 0) + 1
            let until = now.addingTimeInterval(duration ?? r.snoozeLength)
            r.snoozedFor = duration ?? r.snoozeLength
            state.ring = .snoozed(r, until: until)
            fx.log(
                .notice, "\(Self.name(r.occurrence.alarm)) snooze restarted: until \(RFC3339.format(until, in: r.zone))"
            )
        }
    }

    /// Why `alarm snooze` is refused for `r` (its snooze limit is used up), or nil. The ring
    /// goes on: refusing a snooze must never silence an alarm.
    func snoozeRefusal(_ r: Ringing) -> String? {
        SnoozeLimit.refusal(
            who: r.label.map { "'\($0)'" } ?? Self.name(r.occurrence.alarm), snoozes: r.snoozes ?? 0, max: r.maxSnoozes)
    }

    /// The ring length passed with nobody answering. `when_ignored = snooze`: it snoozes itself
    /// (history `snoozed`, with the reason) while its snoozes allow (`max_snoozes` in all, or
    /// `WhenIgnored.unlimitedSelfSnoozes` of its own when unlimited), then it is silenced and
    /// recorded `ignored`. `silence` (and a ring saved before the option existed): `silenced`.
    mutating func ignored(_ r: Ringing, now: Date, _ fx: inout Effects) {
        let name = Self.name(r.occurrence.alarm)
        guard r.whenIgnored == .snooze else {
            end(r, .silenced, now: now, reason: nil, &fx)
            state.ring = .idle
            fx.log(.notice, "\(name) silenced after ringing \(Durations.format(r.ringLength))")
            return
        }
        let snoozes = r.snoozes ?? 0
        let own = r.selfSnoozes ?? 0
        let (done, limit) = r.maxSnoozes.map { (snoozes, $0) } ?? (own, WhenIgnored.unlimitedSelfSnoozes)
        let unanswered = "nobody answered in \(Durations.format(r.ringLength))"
        if done < limit {
            var next = r
            next.snoozes = snoozes + 1
            next.selfSnoozes = own + 1
            next.snoozedFor = r.snoozeLength
            let until = now.addingTimeInterval(r.snoozeLength)
            end(r, .snoozed, now: now, reason: "\(unanswered): snoozed itself (\(done + 1) of \(limit))", &fx)
            state.ring = .snoozed(next, until: until)
            fx.log(
                .notice,
                "\(name): \(unanswered); snoozed itself until \(RFC3339.format(until, in: r.zone)) (\(done + 1) of \(limit))"
            )
        } else {
            let reason =
                "\(unanswered); rang \(own + 1) time(s) unanswered"
                + (own > 0 ? " (snoozed itself \(own) time(s))" : "")
                + ": silenced"
            end(r, .ignored, now: now, reason: reason, &fx)
            state.ring = .idle
            fx.log(.notice, "\(name) ignored: \(reason)")
        }
    }

    mutating func stop(now: Date, _ fx: inout Effects) {
        switch state.ring {
        case .idle:
            fx.log(.warning, "stop ignored: nothing is ringing or snoozed")
        case .ringing(let r):
            fx.stopAudio()
            end(r, .stopped, now: now, reason: nil, &fx)
            state.ring = .idle
            fx.log(.notice, "\(Self.name(r.occurrence.alarm)) stopped")
        case .snoozed(let r, _):
            endSnooze(r, .stopped, now: now, reason: "stopped while snoozed", &fx)
            state.ring = .idle
            fx.log(.notice, "\(Self.name(r.occurrence.alarm)) stopped while snoozed: it will not ring again")
        }
    }

    mutating func ringNow(sound: String?, now: Date, zone: Zone, _ fx: inout Effects) {
        preempt(by: "ring now", now: now, &fx)
        let r = Ringing(
            occurrence: Occurrence(alarm: nil, scheduled: now), merged: [], label: nil, sound: sound,
            volume: settings.volume, fadeIn: settings.fadeIn, snoozeLength: settings.snooze, ringLength: settings.ring,
            zoneIdentifier: zone.identifier, late: false, episodeStart: now,
            deadline: now.addingTimeInterval(settings.ring),
            firstFrame: nil, playing: nil, reason: nil, failed: false, retryAt: nil, snoozedFor: nil,
            volumeFrom: settings.volumeFrom, maxSnoozes: settings.maxSnoozes, whenIgnored: settings.whenIgnored)
        state.ring = .ringing(r)
        fx.startRinging(request(r))
        fx.log(.notice, "ringing now" + (sound.map { " with '\($0)'" } ?? " with the default tone"))
    }

    mutating func playbackStarted(sound: String?, reason: String?, now: Date, _ fx: inout Effects) {
        guard case .ringing(var r) = state.ring else {
            fx.stopAudio()
            fx.log(.warning, "playback started while \(stateName): stopping it")
            return
        }
        if r.firstFrame == nil { r.firstFrame = now }
        r.playing = sound ?? "default"
        r.reason = reason
        r.retryAt = nil
        state.ring = .ringing(r)
        if let reason {
            fx.log(
                .warning,
                "\(Self.name(r.occurrence.alarm)): playing \(sound.map { "'\($0)'" } ?? "the default tone"): \(reason)")
        }
    }

    mutating func playbackFailed(reason: String, now: Date, _ fx: inout Effects) {
        guard case .ringing(var r) = state.ring else {
            fx.log(.warning, "playback failure while \(stateName) ignored: \(reason)")
            return
        }
        r.failed = true
        r.reason = reason
        let retry = now.addingTimeInterval(settings.retryDelay)
        r.retryAt = retry < r.deadline ? retry : nil
        state.ring = .ringing(r)
        fx.log(
            .error,
            "\(Self.name(r.occurrence.alarm)): playback failed: \(reason)"
                + (r.retryAt != nil ? "; retrying in \(Durations.format(settings.retryDelay))" : ""))
    }

    /// Notes what the daemon did to the mixer on the episode, for its history. Ignored when no
    /// ring is on (the daemon puts the mixer back when it stops the sound), and when the episode
    /// has the same note already (a ring resumed after a crash raises the mixer again).
    mutating func mixerRaised(_ note: String) {
        guard case .ringing(var r) = state.ring else { return }
        let notes = r.mixer.map { $0.split(separator: "; ").map(String.init) } ?? []
        guard !notes.contains(note) else { return }
        r.mixer = (notes + [note]).joined(separator: "; ")
        state.ring = .ringing(r)
    }

    // MARK: Helpers

    /// Writes the history of one ring episode: one entry for its occurrence and one for each
    /// occurrence that rang with it. An episode in which nothing ever played is `failed`.
    func end(_ r: Ringing, _ outcome: RingOutcome, now: Date, reason extra: String?, _ fx: inout Effects) {
        let failed = r.failed && r.firstFrame == nil
        let reason = [r.reason, extra].compactMap { $0 }.joined(separator: "; ")
        for (i, o) in ([r.occurrence] + r.merged).enumerated() {
            var why = reason
            if i > 0 {
                why = ([why] + ["rang together with \(Self.name(r.occurrence.alarm))"]).filter { !$0.isEmpty }.joined(
                    separator: "; ")
            }
            fx.record(
                HistoryEntry(
                    alarm: o.alarm, scheduled: o.scheduled, started: r.firstFrame, ended: now,
                    outcome: failed ? .failed : outcome, sound: r.playing, reason: why.isEmpty ? nil : why,
                    late: r.late, zone: r.zone, fallback: r.fallback, mixer: r.mixer))
        }
    }

    /// The last entry of an occurrence ended while snoozed (`alarm stop`, a newer ring): its
    /// `snoozed` entry is not the end of it. Nothing sounded in this episode (`started`, `sound`
    /// nil); `ended` is when the snooze was ended.
    func endSnooze(_ r: Ringing, _ outcome: RingOutcome, now: Date, reason: String, _ fx: inout Effects) {
        for (i, o) in ([r.occurrence] + r.merged).enumerated() {
            let why = i == 0 ? reason : "\(reason); rang together with \(Self.name(r.occurrence.alarm))"
            fx.record(
                HistoryEntry(
                    alarm: o.alarm, scheduled: o.scheduled, started: nil, ended: now, outcome: outcome, sound: nil,
                    reason: why,
                    late: false, zone: r.zone))
        }
    }

    func makeRinging(_ a: Alarm, scheduled: Date, merged: [Occurrence], now: Date, late: Bool, zone: Zone) -> Ringing {
        let length = a.ring ?? settings.ring
        return Ringing(
            occurrence: Occurrence(alarm: a.id, scheduled: scheduled), merged: merged, label: a.label, sound: a.sound,
            volume: a.volume ?? settings.volume, fadeIn: a.fadeIn ?? settings.fadeIn,
            snoozeLength: a.snooze ?? settings.snooze, ringLength: length,
            zoneIdentifier: a.displayZone(systemZone: zone).identifier, late: late, episodeStart: now,
            deadline: now.addingTimeInterval(length), firstFrame: nil, playing: nil, reason: nil, failed: false,
            retryAt: nil, snoozedFor: nil, volumeFrom: a.volumeFrom ?? settings.volumeFrom,
            maxSnoozes: a.maxSnoozes.map { $0.count } ?? settings.maxSnoozes,
            whenIgnored: a.whenIgnored ?? settings.whenIgnored, fallbackSound: a.fallbackSound)
    }

    func newEpisode(_ r: Ringing, now: Date, late: Bool) -> Ringing {
        var n = r
        n.late = late
        n.episodeStart = now
        n.deadline = now.addingTimeInterval(r.ringLength)
        n.firstFrame = nil
        n.playing = nil
        n.reason = nil
        n.failed = false
        n.retryAt = nil
        n.snoozedFor = nil
        n.fallback = nil
        n.mixer = nil
        return n
    }

    func request(_ r: Ringing) -> RingRequest {
        RingRequest(
            alarm: r.occurrence.alarm, label: r.label, sound: r.sound, volume: r.volume, fadeIn: r.fadeIn,
            scheduled: r.occurrence.scheduled, late: r.late, volumeFrom: r.volumeFrom ?? 0,
            fallbackSound: r.fallbackSound)
    }

    /// Marks of alarms no longer stored are kept (an alarm removed and re-added must not ring
    /// again) until a backward jump could no longer reach them.
    mutating func pruneMarks(now: Date) {
        guard !orphans.isEmpty else { return }
        let horizon = now.addingTimeInterval(-settings.backwardJumpLimit)
        for id in orphans where (state.marks[id].map { $0 <= horizon } ?? true) {
            state.marks[id] = nil
            orphans.remove(id)
        }
    }

    /// Where handling starts for an alarm the engine has not followed yet: every occurrence at or
    /// before the result counts as handled. That is the alarm's `created` (never earlier than
    /// what `saved` says was handled under its id); `fallback` for an alarm without `created`.
    ///
    /// A `created` ahead of `now` is trusted (a Pi booting with its clock in 1970 must still owe
    /// what came after the alarm was made), unless the engine saw the clock set back by more than
    /// the backward-jump limit (`rewoundFrom`): then the stamp came from the clock taken as wrong,
    /// like the marks that jump reset, and the alarm counts from `now`.
    func firstMark(for a: Alarm, saved: Date?, fallback: Date, now: Date) -> Date {
        var created = a.created
        if let c = created, c > now, state.rewoundFrom != nil { created = now }
        switch (saved, created) {
        case (let s?, let c?): return max(s, c)
        case (let s?, nil): return s
        case (nil, let c?): return c
        case (nil, nil): return fallback
        }
    }

    static func unique(_ list: [Alarm]) -> [Alarm] {
        var seen = Set<String>()
        return list.filter { seen.insert($0.id).inserted }
    }
}

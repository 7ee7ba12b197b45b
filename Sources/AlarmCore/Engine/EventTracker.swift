import FoundationEssentials

/// Turns what the engine did for one event into `AlarmEvent`s (issue #13), from what the daemon
/// already has: the engine's actions and its ring state before and after. Pure: no clock, no I/O.
///
/// - `startRinging` → `ringing`, once per ring episode: a playback retry within the episode asks
///   for the sound again but is not a new ring. After a restart a resumed ring is announced again.
/// - Each history entry → an event named by its outcome (`stopped`, `snoozed`, `silenced`,
///   `missed`, `failed`, and whatever outcomes `RingOutcome` gains later), with the label of its
///   alarm and, for `snoozed`, the end of the snooze.
/// - Changes that leave no history entry: `alarm stop` while snoozed → `stopped`; a snooze
///   restarted while snoozed → `snoozed` with the new end; a snoozed ring superseded by a newer
///   one → `silenced` (before the newer one's `ringing`), its reason saying so.
///
/// - The engine events that are news themselves, first: `clockChanged` → `clock-changed`,
///   `zoneChanged` → `zone-changed` (the zone in force and the one before; the same zone when
///   only its rules changed), `alarmsChanged` → `alarms-changed` (how many alarms there are).
///
/// - `preAlarm` → `pre-alarm` (issue #43), with `scheduled` (the ring's instant), `lead` and
///   `late`.
///
/// Pre-flight warnings come from the daemon's pre-flight, not from the engine.
public struct EventTracker: Sendable {
    /// The ring episode last announced as `ringing`.
    private var announced: Episode?

    struct Episode: Equatable, Sendable {
        var occurrence: Occurrence
        var start: Date
    }

    public init() {}

    /// The events of one engine event.
    /// - `before`, `after`: the ring state before and after the engine handled `kind`.
    /// - `zone`, `zoneBefore`: the system zone of the event, and the one in force before it.
    /// - `label`: the label of an alarm by id, where the ring states do not have it (the
    ///   daemon looks in its lists before and after the event: a `--once` alarm is gone after).
    /// - `sound`: the name of what the daemon started for a ring (`default` for the default
    ///   tone), when it knows better than the request (a sound that will not play).
    public mutating func events(
        for kind: EngineEvent.Kind, actions: [EngineAction], before: RingState, after: RingState, now: Date,
        zone: Zone, zoneBefore: Zone? = nil, label: (String) -> String?, sound: (RingRequest) -> String? = { _ in nil }
    ) -> [AlarmEvent] {
        var out: [AlarmEvent] = []
        switch kind {
        case .clockChanged:
            out.append(AlarmEvent(AlarmEvent.Name.clockChanged, at: now, timeZone: zone))
        case .zoneChanged:
            out.append(
                AlarmEvent(
                    AlarmEvent.Name.zoneChanged, at: now, zone: zone.identifier, from: (zoneBefore ?? zone).identifier,
                    timeZone: zone))
        case .alarmsChanged(let list):
            out.append(AlarmEvent(AlarmEvent.Name.alarmsChanged, at: now, count: list.count, timeZone: zone))
        default:
            break
        }
        let rings = [Self.ringing(before), Self.ringing(after)].compactMap { $0 }
        func labelOf(_ id: String?) -> String? {
            guard let id else { return nil }
            if let r = rings.first(where: { $0.occurrence.alarm == id || $0.merged.contains { $0.alarm == id } }) {
                return r.label
            }
            return label(id)
        }
        for action in actions {
            switch action {
            case .startRinging(let request):
                guard case .ringing(let r) = after else { continue }
                let episode = Episode(occurrence: r.occurrence, start: r.episodeStart)
                if episode == announced { continue }  // a retry of the sound, not a new ring
                announced = episode
                out.append(
                    AlarmEvent(
                        AlarmEvent.Name.ringing, at: now, alarm: request.alarm, label: request.label,
                        scheduled: request.scheduled, sound: sound(request) ?? request.sound ?? "default",
                        late: request.late,
                        timeZone: r.zone))
            case .recordHistory(let entry):
                var e = AlarmEvent(
                    entry.outcome.rawValue, at: entry.ended ?? now, alarm: entry.alarm, label: labelOf(entry.alarm),
                    scheduled: entry.scheduled, sound: entry.sound, late: entry.late, reason: entry.reason,
                    timeZone: entry.zone)
                if entry.outcome == .snoozed, case .snoozed(_, let until) = after { e.until = until }
                out.append(e)
            case .preAlarm(let n):
                out.append(
                    AlarmEvent(
                        AlarmEvent.Name.preAlarm, at: now, alarm: n.alarm, label: n.label, scheduled: n.scheduled,
                        late: n.late, lead: n.lead, timeZone: Zone(identifier: n.zoneIdentifier) ?? zone))
            case .stopAudio:
                announced = nil
            default:
                continue
            }
        }
        switch (kind, before, after) {
        case (.snooze, .snoozed(_, let old), .snoozed(let r, let until)) where until != old:
            out.append(
                AlarmEvent(
                    AlarmEvent.Name.snoozed, at: now, alarm: r.occurrence.alarm, label: r.label,
                    scheduled: r.occurrence.scheduled,
                    until: until, timeZone: r.zone))
        default:
            break
        }
        return out
    }

    static func ringing(_ s: RingState) -> Ringing? {
        switch s {
        case .idle: return nil
        case .ringing(let r), .snoozed(let r, _): return r
        }
    }
}

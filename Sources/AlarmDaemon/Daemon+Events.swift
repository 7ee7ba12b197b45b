import AlarmState
import AlarmCore
import AlarmSystem
import FoundationEssentials

/// Events out (issue #13): after each engine event the daemon writes what happened to the event
/// log (`EventLog`, `<runtime-dir>/events.jsonl`) for `alarm watch` and the hooks runner
/// (`alarm-hooks`, a service of its own). The events are derived from what the daemon already
/// has (`EventTracker`: the engine's actions and ring states; the pre-flight's new problems).
///
/// Written on the loop's thread after the actions are carried out, so the sound has started
/// and status.json is current when a reader sees the event. Nothing here can hold up a ring:
/// the log is a file in the runtime directory (a tmpfs) appended with one write, hooks run in
/// another process, and a failed write is logged and dropped.
extension Daemon {
    func recordEvents(
        _ kind: EngineEvent.Kind, actions: [EngineAction], before: RingState, alarmsBefore: [Alarm], zoneBefore: Zone?,
        now: Date
    ) {
        let after = engine.state.ring
        let started = startedSound
        // Labels: the list now, before, and the one the event brought (at start, a `--once`
        // alarm missed while alarmd was down is in none of the engine's lists).
        var given: [Alarm] = []
        switch kind {
        case .start(let list, _), .alarmsChanged(let list): given = list
        default: break
        }
        var events = eventTracker.events(
            for: kind, actions: actions, before: before, after: after, now: now, zone: zone, zoneBefore: zoneBefore,
            label: { [engine] id in
                (engine.alarms.first { $0.id == id } ?? alarmsBefore.first { $0.id == id }
                    ?? given.first { $0.id == id })?.label
            },
            sound: { _ in started })
        if case .zoneChanged = kind, let reason = zoneChangeReason {
            for i in events.indices where events[i].event == AlarmEvent.Name.zoneChanged { events[i].reason = reason }
        }
        zoneChangeReason = nil
        writeEvents(events)
    }

    /// The pre-flight found `problems` that were not there at its last check.
    func recordPreflightWarnings(_ problems: [String], for ring: EngineStatus.Next, now: Date = Date()) {
        let alarm = engine.alarms.first { $0.id == ring.id }
        let shown = alarm?.displayZone(systemZone: zone) ?? zone
        writeEvents(
            problems.map {
                AlarmEvent(
                    AlarmEvent.Name.preflightWarning, at: now, alarm: ring.id, label: alarm?.label, scheduled: ring.at,
                    sound: alarm.map { $0.sound ?? "default" }, reason: $0, timeZone: shown)
            })
    }

    func writeEvents(_ events: [AlarmEvent]) {
        guard !events.isEmpty else { return }
        do { try eventLog.append(events) } catch {
            logger.error(
                "writing \(events.count) event(s) to \(eventLog.path) failed: \(error); `alarm watch` and hooks miss them"
            )
        }
    }
}

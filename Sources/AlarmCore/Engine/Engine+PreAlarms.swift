import FoundationEssentials

/// One alarm's next ring and the leads of its pre-alarms (from `Engine.upcoming`).
struct UpcomingPreAlarms {
    var alarm: Alarm
    /// The next ring that will happen: pauses, holidays and `skip_next` applied.
    var ring: Date
    /// Seconds, longest first.
    var leads: [TimeInterval]
}

// Pre-alarms (issue #43): a `pre-alarm` event at each lead before each ring that will happen.
//
// What the caller may rely on:
// - **Only rings that will happen.** The ring a pre-alarm is for is the alarm's next ring as
//   `alarm next` and the status show it: a skipped (`skip_next`), paused or holiday occurrence
//   has none; `alarm skip` or `alarm pause` after a pre-alarm was written writes nothing more for
//   that occurrence (there is no "cancel" event: the `skipped` or `paused` event at the ring's
//   instant says it will not ring). A snooze's re-ring is not an occurrence: no pre-alarm.
// - **Exactly once per alarm, ring instant and lead.** Each pre-alarm written is marked in the
//   persisted state (`pre_alarms`) until its ring's instant passes, so neither a later event nor
//   a restart writes it again. An alarm edited without changing its ring keeps its marks; a
//   change that moves the ring (a new schedule, a zone change moving a floating alarm, a clock
//   change) makes a new ring instant, whose pre-alarms are written (late when already inside
//   the lead): the light follows the ring that will really happen.
// - **Late, not lost.** A pre-alarm whose time passed unseen (alarmd started inside the lead,
//   the alarm was added or its leads changed inside it, the clock jumped forward) is written at
//   once with `late`, as long as its ring is still ahead. Once the ring's instant has come, its
//   pre-alarms are never written.
// - Only each alarm's next ring is looked at: with a lead longer than the gap between two rings
//   the next ring's pre-alarm is written, late, as soon as the ring before it is handled.
// - A pre-alarm is marked written in the state persisted before the daemon writes the event: a
//   crash between the two loses it rather than writing it twice.
extension Engine {
    /// Writes the pre-alarms due at `now` (marks them in the state, asks for their events) and
    /// returns the next instant one falls due (nil: none ahead).
    mutating func preAlarms(_ upcoming: [UpcomingPreAlarms], now: Date, zone: Zone, _ fx: inout Effects) -> Date? {
        var marks = (state.preAlarms ?? []).filter { $0.scheduled >= now }
        var wake: Date?
        for u in upcoming where u.ring > now {
            for lead in u.leads {
                let due = u.ring.addingTimeInterval(-lead)
                if due > now {
                    if wake == nil || due < wake! { wake = due }
                    continue
                }
                let mark = PreAlarmMark(alarm: u.alarm.id, scheduled: u.ring, lead: lead)
                if marks.contains(mark) { continue }
                marks.append(mark)
                let displayZone = u.alarm.displayZone(systemZone: zone)
                let late = now.timeIntervalSince(due) > settings.lateTolerance
                fx.preAlarm(
                    PreAlarmNotice(
                        alarm: u.alarm.id, label: u.alarm.label, scheduled: u.ring, lead: lead, late: late,
                        zoneIdentifier: displayZone.identifier))
                fx.log(
                    .notice,
                    "'\(u.alarm.id)': pre-alarm \(Durations.format(lead)) before the ring at \(RFC3339.format(u.ring, in: displayZone))"
                        + (late ? " (late by \(Durations.format(now.timeIntervalSince(due).rounded())))" : ""))
            }
        }
        state.preAlarms = marks.isEmpty ? nil : marks
        return wake
    }
}

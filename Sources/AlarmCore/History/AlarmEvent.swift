import FoundationEssentials

/// One thing alarmd did, as `alarm watch` shows it and hooks receive it (issue #13): one line of
/// `<runtime-dir>/events.jsonl`.
///
/// JSON keys: `seq` (1, 2, 3, … in the order alarmd wrote them), `event` (the name), `at` (when it
/// happened), and `alarm`, `label`, `scheduled`, `sound` where they apply (null where not). More
/// keys only where they say something: `late` (a ring after its instant), `reason` (why it was
/// missed, silenced or failed; the pre-flight's problem), `until` (the end of a snooze), `zone`
/// and `from` (a zone change), `count` (the number of alarms after a change), `lead` (a
/// `pre-alarm`'s lead in seconds: how long before `scheduled`, issue #43). Instants are RFC 3339
/// with milliseconds, in the alarm's zone (its history's zone), else the system zone.
///
/// The names are open: an outcome added to `RingOutcome` later (`skipped`, `paused`, `ignored`)
/// becomes an event of that name with no change here, and readers must accept names they do not
/// know (they pass them on like any other).
public struct AlarmEvent: Equatable, Sendable {
    /// The names alarmd writes today, and those other parts of issue #13 add (readers accept
    /// any name; these are for documentation and discovery lists).
    public enum Name {
        public static let ringing = "ringing"
        public static let snoozed = "snoozed"
        public static let stopped = "stopped"
        public static let silenced = "silenced"
        public static let ignored = "ignored"
        public static let missed = "missed"
        public static let failed = "failed"
        public static let skipped = "skipped"
        public static let paused = "paused"
        public static let preflightWarning = "preflight-warning"
        public static let zoneChanged = "zone-changed"
        public static let clockChanged = "clock-changed"
        public static let alarmsChanged = "alarms-changed"
        /// Issue #43: at each lead before a ring that will happen (`lead`, `scheduled`).
        public static let preAlarm = "pre-alarm"
        /// Every name of issue #13's list, in its order.
        public static let all = [
            ringing, snoozed, stopped, silenced, ignored, missed, failed, skipped, paused, preflightWarning,
            zoneChanged, clockChanged, alarmsChanged, preAlarm,
        ]
    }

    /// Given by the event log when the event is written; nil before.
    public var seq: Int?
    public var event: String
    public var at: Date
    /// The alarm's id; nil for `alarm ring` and for events about no alarm (zone, clock, list).
    public var alarm: String?
    public var label: String?
    /// The occurrence's instant (for `alarm ring`: when it was asked for).
    public var scheduled: Date?
    /// The sound file that plays or played, `default` for the default tone; nil when none did.
    public var sound: String?
    public var late: Bool?
    public var reason: String?
    public var until: Date?
    /// The zone in force after a zone change (or the zones whose rules changed).
    public var zone: String?
    /// The zone in force before a zone change.
    public var from: String?
    public var count: Int?
    /// A `pre-alarm`'s lead: seconds before `scheduled`.
    public var lead: TimeInterval?
    /// The zone instants are written in; not part of the JSON (each timestamp has its offset).
    public var timeZone: Zone

    public init(
        _ event: String, at: Date, alarm: String? = nil, label: String? = nil, scheduled: Date? = nil,
        sound: String? = nil, late: Bool? = nil, reason: String? = nil, until: Date? = nil, zone: String? = nil,
        from: String? = nil, count: Int? = nil, lead: TimeInterval? = nil, timeZone: Zone, seq: Int? = nil
    ) {
        self.lead = lead
        self.seq = seq
        self.event = event
        self.at = at
        self.alarm = alarm
        self.label = label
        self.scheduled = scheduled
        self.sound = sound
        self.late = late
        self.reason = reason
        self.until = until
        self.zone = zone
        self.from = from
        self.count = count
        self.timeZone = timeZone
    }
}

extension AlarmEvent {
    /// The event as one readable line (`alarm watch` without `--json`):
    ///
    ///     2026-11-23T06:30:00.004+01:00 ringing work "Work" scheduled 2026-11-23T06:30:00.000+01:00 sound chime.flac
    ///     2026-11-23T06:31:10.551+01:00 snoozed work "Work" scheduled … until 2026-11-23T06:40:10.551+01:00
    ///     2026-11-23T07:20:00.120+05:30 zone-changed Asia/Kolkata from Europe/Berlin
    ///
    /// Words in a fixed order: the instant, the name, the alarm (`ring` for `alarm ring`), the label
    /// in quotes, then `scheduled`, `lead`, `sound`, `until`, `late`, the zone change, the count of alarms,
    /// and after a colon the reason. A line never holds a newline.
    public var text: String {
        func time(_ d: Date) -> String { RFC3339.format(d, in: timeZone, milliseconds: true) }
        var words = [time(at), event]
        if let alarm { words.append(alarm) } else if scheduled != nil { words.append("ring") }
        if let label, !label.isEmpty { words.append("\"" + label + "\"") }
        if let scheduled { words += ["scheduled", time(scheduled)] }
        if let lead { words += ["lead", Durations.format(lead)] }
        if let sound { words += ["sound", sound] }
        if let until { words += ["until", time(until)] }
        if late == true { words.append("late") }
        if let zone { words.append(zone) }
        if let from { words += ["from", from] }
        if let count { words.append(count == 1 ? "1 alarm" : "\(count) alarms") }
        var line = words.joined(separator: " ")
        if let reason, !reason.isEmpty { line += ": " + reason }
        return String(line.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

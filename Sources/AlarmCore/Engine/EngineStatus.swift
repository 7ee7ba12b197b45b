import FoundationEssentials

/// What `status.json` shows: the engine's state now and the next ring.
///
/// JSON keys: `state` (`idle`, `ringing`, `snoozed`), `alarm` (id or null), `sound` (file name,
/// `default`, or null when idle), `reason` (why the default tone, or null), `snoozed_until`, and
/// `next` (`{"id": ..., "at": ...}` or null), `warnings` (what alarmd's pre-flight checks found
/// wrong before the next ring, one line each: `"device: ..."`; empty when nothing is), and
/// `paused` only while some alarm is paused (the alarms `alarm pause` holds now:
/// `[{"id": ..., "until": ...}]`, `until` null for "until alarm resume"), and `commands` when
/// alarmd wrote it (how many control lines it has handled since it started, so that the CLI knows
/// when its own line was handled). Instants are RFC 3339 in `zone`.
public struct EngineStatus: Equatable, Sendable {
    public enum State: String, Codable, Sendable {
        case idle, ringing, snoozed
    }

    public struct Next: Equatable, Sendable {
        public var id: String
        public var at: Date
        public init(id: String, at: Date) {
            self.id = id
            self.at = at
        }
    }

    /// An alarm paused now (issue #12): until when, nil for "until `alarm resume`".
    public struct Paused: Equatable, Sendable {
        public var id: String
        public var until: Date?
        public init(id: String, until: Date?) {
            self.id = id
            self.until = until
        }
    }

    public var state: State
    public var alarm: String?
    public var sound: String?
    public var reason: String?
    public var snoozedUntil: Date?
    public var next: Next?
    /// Set by the daemon from its pre-flight checks; the engine leaves it empty.
    public var warnings: [String]
    /// The alarms paused now, by id.
    public var paused: [Paused]
    /// While ringing or snoozed (issue #13): how often this occurrence was snoozed, and its
    /// limit (nil: unlimited). JSON `snoozes`, `max_snoozes` (null: unlimited), only then.
    public var snoozes: Int?
    public var maxSnoozes: Int?
    /// While ringing or snoozed: the alarm's label (JSON `label`), for messages such as a
    /// refused snooze.
    public var label: String?
    /// Set by the daemon: the control lines (snooze, stop, ring, reload) it has handled since it
    /// started; JSON `commands`, only when set. The engine leaves it nil.
    public var commands: Int?
    /// The zone timestamps are written in (the system zone); not part of the JSON.
    public var zone: Zone

    public init(
        state: State, alarm: String? = nil, sound: String? = nil, reason: String? = nil, snoozedUntil: Date? = nil,
        next: Next? = nil, warnings: [String] = [], paused: [Paused] = [], zone: Zone, snoozes: Int? = nil,
        maxSnoozes: Int? = nil, label: String? = nil
    ) {
        self.snoozes = snoozes
        self.maxSnoozes = maxSnoozes
        self.label = label
        self.state = state
        self.alarm = alarm
        self.sound = sound
        self.reason = reason
        self.snoozedUntil = snoozedUntil
        self.next = next
        self.warnings = warnings
        self.paused = paused
        self.zone = zone
    }
}

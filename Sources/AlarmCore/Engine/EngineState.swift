import FoundationEssentials

/// One occurrence of one alarm: the alarm's id (nil for a manual `ring`) and its instant.
public struct Occurrence: Hashable, Sendable, Codable {
    public var alarm: String?
    public var scheduled: Date

    public init(alarm: String?, scheduled: Date) {
        self.alarm = alarm
        self.scheduled = scheduled
    }
}

/// Everything needed to ring, snooze and re-ring one occurrence, copied from the alarm and the
/// settings when it starts, so that a snoozed or ringing alarm survives its alarm being removed
/// (a `--once` alarm is removed when it starts ringing) and a restart.
public struct Ringing: Equatable, Sendable, Codable {
    public var occurrence: Occurrence
    /// Other occurrences due together with this one (same instant, or caught up at once): they
    /// ring as one and share its history.
    public var merged: [Occurrence]
    public var label: String?
    /// The requested sound; nil for the default tone.
    public var sound: String?
    public var volume: Int
    public var fadeIn: TimeInterval
    public var snoozeLength: TimeInterval
    public var ringLength: TimeInterval
    /// The zone this occurrence's history is written in.
    public var zoneIdentifier: String
    /// Started after its instant by more than the tolerance.
    public var late: Bool
    /// When this episode was asked to start (the engine's clock).
    public var episodeStart: Date
    /// When this episode silences itself: `episodeStart + ringLength`.
    public var deadline: Date
    /// When the first frame went to the device (from `playbackStarted`).
    public var firstFrame: Date?
    /// What actually plays: a file name, or `default`; nil until playback has started.
    public var playing: String?
    /// Why the default tone plays, or why playback failed.
    public var reason: String?
    /// Playback failed in this episode (recorded once in history).
    public var failed: Bool
    /// When to ask for the sound again after a failure.
    public var retryAt: Date?
    /// The length of the snooze in force, when snoozed.
    public var snoozedFor: TimeInterval?
    /// What became of `fallback_command`, run in this episode because no device would play
    /// (issue #11); nil when it did not run.
    public var fallback: String? = nil
    /// What the daemon did to the mixer in this episode (the volume floor), for its history.
    public var mixer: String? = nil
    /// Issue #13, optional so that a state saved before reads unchanged. The volume the fade-in
    /// starts at (nil: 0).
    public var volumeFrom: Int? = nil
    /// How often this occurrence was snoozed so far, by `alarm snooze` or by itself (nil: 0).
    public var snoozes: Int? = nil
    /// How often it snoozed itself because nobody answered (nil: 0).
    public var selfSnoozes: Int? = nil
    /// The snooze limit copied from the alarm or the settings; nil: unlimited.
    public var maxSnoozes: Int? = nil
    /// What it does when nobody answers; nil (a state saved before): `silence`, as it did then.
    public var whenIgnored: WhenIgnored? = nil
    /// Issue #43: what plays when the alarm's stream fails, copied from the alarm (nil: the
    /// default tone).
    public var fallbackSound: String? = nil

    var zone: Zone { Zone(identifier: zoneIdentifier) ?? Zone.utc }
}

/// The ring state machine's state: idle → ringing → snoozed → ringing → … → idle.
public enum RingState: Equatable, Sendable {
    case idle
    case ringing(Ringing)
    case snoozed(Ringing, until: Date)
}

extension RingState: Codable {
    enum CodingKeys: String, CodingKey {
        case state, ringing, until
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .state) {
        case "idle": self = .idle
        case "ringing": self = .ringing(try c.decode(Ringing.self, forKey: .ringing))
        case "snoozed":
            self = .snoozed(
                try c.decode(Ringing.self, forKey: .ringing), until: try c.decode(Date.self, forKey: .until))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .state, in: c, debugDescription: "unknown ring state '\(other)'")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .idle:
            try c.encode("idle", forKey: .state)
        case .ringing(let r):
            try c.encode("ringing", forKey: .state)
            try c.encode(r, forKey: .ringing)
        case .snoozed(let r, let until):
            try c.encode("snoozed", forKey: .state)
            try c.encode(r, forKey: .ringing)
            try c.encode(until, forKey: .until)
        }
    }
}

/// What the daemon persists (`state.json`) so that a restart or a crash neither loses a ring or a
/// snooze nor rings an occurrence twice.
///
/// Dates use `Date`'s own Codable form (a Double), so marks survive a round trip exactly: a mark
/// rounded up by a millisecond could swallow an occurrence due on the next second.
public struct EngineState: Equatable, Sendable, Codable {
    public var ring: RingState
    /// Per alarm id: every occurrence at or before this instant has been handled (rung, skipped
    /// or recorded as missed). It only moves forward (a backward clock jump leaves it in place),
    /// which is what makes "never ring twice" hold across clock jumps and restarts.
    public var marks: [String: Date]
    /// The latest instant the engine has seen: the mark for alarms it has not seen yet when it
    /// starts (added while the daemon was down), and the reference for backward jumps.
    public var processedThrough: Date?
    /// Set when the clock went back by more than the backward-jump limit: the latest instant
    /// handled before. Should the clock come forward past it again (the low clock was the wrong
    /// one, e.g. 1970 until NTP synced), everything up to it counts as handled, so nothing rings
    /// twice and nothing from the wrong time is caught up.
    public var rewoundFrom: Date?
    /// Only in a persisted copy: the history entries and store changes of the event that produced
    /// it. The daemon saves the state first (so nothing rings twice) and carries these out after;
    /// a crash in between is mended at the next start, which carries them out again.
    public var journal: Journal?
    /// The pre-alarms written whose ring has not passed yet (issue #43; nil: none), so that none
    /// is written twice, across events and restarts. Optional: a state saved before reads unchanged.
    public var preAlarms: [PreAlarmMark]? = nil

    public init(
        ring: RingState = .idle, marks: [String: Date] = [:], processedThrough: Date? = nil, rewoundFrom: Date? = nil
    ) {
        self.ring = ring
        self.marks = marks
        self.processedThrough = processedThrough
        self.rewoundFrom = rewoundFrom
    }
}

/// The effects that must follow a persisted state (see `EngineState.journal`). Replaying them is
/// harmless: history skips an entry it already has, and store changes match id and schedule.
public struct Journal: Equatable, Sendable, Codable {
    public var history: [HistoryEntry]
    public var store: [StoreEffect]

    public init(history: [HistoryEntry], store: [StoreEffect]) {
        self.history = history
        self.store = store
    }

    public var isEmpty: Bool { history.isEmpty && store.isEmpty }
}

/// A store change the engine asks for.
public enum StoreEffect: Equatable, Sendable, Codable {
    case removeAlarm(Alarm)
    case clearSkipNext(Alarm)
    case clearPause(Alarm)

    init?(_ action: EngineAction) {
        switch action {
        case .removeAlarm(let a): self = .removeAlarm(a)
        case .clearSkipNext(let a): self = .clearSkipNext(a)
        case .clearPause(let a): self = .clearPause(a)
        default: return nil
        }
    }

    var action: EngineAction {
        switch self {
        case .removeAlarm(let a): return .removeAlarm(a)
        case .clearSkipNext(let a): return .clearSkipNext(a)
        case .clearPause(let a): return .clearPause(a)
        }
    }
}

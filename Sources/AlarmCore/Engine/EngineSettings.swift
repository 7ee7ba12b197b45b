import FoundationEssentials

/// The defaults an alarm falls back to when it leaves a setting nil, and the engine's own
/// tolerances. The daemon reads these from its config file; alarm fields override them.
public struct EngineSettings: Equatable, Sendable, Codable {
    /// Snooze length when neither the command nor the alarm gives one (9 min).
    public var snooze: TimeInterval
    /// How long an alarm rings before it silences itself (10 min).
    public var ring: TimeInterval
    /// Volume in percent.
    public var volume: Int
    /// Seconds from `volumeFrom` to full volume.
    public var fadeIn: TimeInterval
    /// The volume in percent the fade-in starts at (config `volume_from`, default 0: silence).
    public var volumeFrom: Int = 0
    /// How many snoozes a ring allows (config `max_snoozes`); nil: unlimited.
    public var maxSnoozes: Int? = nil
    /// What a ring nobody answers does (config `when_ignored`, default `snooze`; see `WhenIgnored`).
    public var whenIgnored: WhenIgnored = .snooze
    /// The pre-alarm leads of alarms without their own (config `pre_alarm`, issue #43); nil: none.
    public var preAlarm: PreAlarmLeads? = nil
    /// An occurrence (or a snooze end) passed by at most this much still rings, late; older ones
    /// are recorded as missed (10 min).
    public var grace: TimeInterval
    /// An occurrence rung more than this after its instant is marked `late` in history.
    public var lateTolerance: TimeInterval
    /// After a playback failure, the engine asks for the sound again after this long, until the
    /// ring length has passed: a bedside alarm keeps trying.
    public var retryDelay: TimeInterval
    /// A backward clock jump up to this far never rings an occurrence twice. A larger one is taken
    /// as a correction of a clock that was wrong (an RTC reset far into the future): the engine
    /// forgets what it processed beyond the new time rather than stay silent until then.
    public var backwardJumpLimit: TimeInterval

    public init(
        snooze: TimeInterval = 9 * 60, ring: TimeInterval = 10 * 60, volume: Int = 100, fadeIn: TimeInterval = 0,
        grace: TimeInterval = 10 * 60, lateTolerance: TimeInterval = 2, retryDelay: TimeInterval = 5,
        backwardJumpLimit: TimeInterval = 24 * 3600, volumeFrom: Int = 0, maxSnoozes: Int? = nil,
        whenIgnored: WhenIgnored = .snooze, preAlarm: PreAlarmLeads? = nil
    ) {
        self.preAlarm = preAlarm
        self.volumeFrom = volumeFrom
        self.maxSnoozes = maxSnoozes
        self.whenIgnored = whenIgnored
        self.snooze = snooze
        self.ring = ring
        self.volume = volume
        self.fadeIn = fadeIn
        self.grace = grace
        self.lateTolerance = lateTolerance
        self.retryDelay = retryDelay
        self.backwardJumpLimit = backwardJumpLimit
    }

    public static let defaults = EngineSettings()
}

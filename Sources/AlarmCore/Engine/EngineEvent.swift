import FoundationEssentials

/// Something that happened, with the instant it happened at and the system zone then. The engine
/// never reads a clock: `now` is the only time it knows.
public struct EngineEvent: Sendable {
    public enum Kind: Sendable {
        /// The daemon started: the alarms from the store and the state it persisted (nil the
        /// first time, or when the state file was unreadable).
        case start(alarms: [Alarm], state: EngineState?)
        /// The timer armed with `armTimer` expired (or woke early: harmless).
        case timerFired
        /// The realtime clock was set (the timerfd was cancelled).
        case clockChanged
        /// The system zone changed; the event's `zone` is the new one.
        case zoneChanged
        /// The store changed: the full new list.
        case alarmsChanged([Alarm])
        /// `alarm snooze [DURATION]`.
        case snooze(TimeInterval?)
        /// `alarm stop`.
        case stop
        /// `alarm ring [SOUND]`: ring now.
        case ringNow(sound: String?)
        /// The first frame went to the device at `now`. `sound` is what plays (a file name, or
        /// nil for the default tone) and `reason` why the default tone plays instead.
        case playbackStarted(sound: String?, reason: String?)
        /// Nothing could be played (not even the default tone).
        case playbackFailed(reason: String)
        /// The daemon ran `fallback_command` for the ringing episode, or it finished: `note` says
        /// what became of it, for the episode's history entry.
        case fallbackRan(note: String)
        /// The daemon raised the card's mixer to the volume floor for this ring ("mixer 'Master'
        /// raised from 12 %, muted, to 50 %"): kept with the episode and written to its history.
        case mixerRaised(String)
        /// The holidays file changed (or `holidays =` names another): alarms with `skipHolidays`
        /// skip these days from now on. What passed before was decided with the old ones.
        case holidaysChanged(HolidayCalendar)
        /// The config file was reloaded (SIGHUP): new defaults for rings that start from now on;
        /// a ringing or snoozed alarm keeps the lengths it started with.
        case settingsChanged(EngineSettings)
        /// SIGTERM: stop the sound, keep the state so the next start resumes.
        case shutdown
    }

    public var kind: Kind
    public var now: Date
    public var zone: Zone

    public init(_ kind: Kind, now: Date, zone: Zone) {
        self.kind = kind
        self.now = now
        self.zone = zone
    }
}

/// What the engine asks its driver to do, in the order given.
public enum EngineAction: Equatable, Sendable {
    /// Arm the one realtime timer at this instant (nil: disarm). Emitted after every event.
    case armTimer(at: Date?)
    /// Start playing (replacing whatever plays).
    case startRinging(RingRequest)
    /// Stop playing.
    case stopAudio
    /// Write `state.json`: the state changed.
    case persistState(EngineState)
    /// Clear `skip_next` of the stored alarm with this id: its skipped occurrence has passed.
    /// Skipped if the alarm's schedule was changed meanwhile (same id, other trigger).
    case clearSkipNext(Alarm)
    /// Remove the stored alarm with this id: it rang once (`--once`, a dated or absolute alarm),
    /// or it ended (its last occurrence passed). Skipped if its schedule was changed meanwhile
    /// (same id, another `Alarm.ScheduleKey`): a new alarm.
    case removeAlarm(Alarm)
    /// Clear the pause of the stored alarm with this id: it has ended. Skipped if the schedule
    /// or the pause was changed meanwhile.
    case clearPause(Alarm)
    /// Append to history.
    case recordHistory(HistoryEntry)
    /// A pre-alarm is due (issue #43): the daemon writes a `pre-alarm` event. Emitted after the
    /// state that marks it written is persisted, so a restart never writes it again.
    case preAlarm(PreAlarmNotice)
    /// Rewrite `status.json`: the status changed.
    case publishStatus(EngineStatus)
    case log(LogLevel, String)
}

/// Syslog-like levels; the daemon maps them to `<N>` prefixes.
public enum LogLevel: String, Equatable, Sendable {
    case error, warning, notice, info, debug
}

/// What to play for a ring.
public struct RingRequest: Equatable, Sendable {
    /// The alarm's id; nil for a manual `ring`.
    public var alarm: String?
    public var label: String?
    /// The sound as the alarm names it (a file name, a comma-separated list, `*`: the daemon
    /// picks one file for each ring, see `SoundSelection`); nil for the default tone.
    public var sound: String?
    public var volume: Int
    public var fadeIn: TimeInterval
    public var scheduled: Date
    public var late: Bool
    /// The volume in percent the fade-in starts at (issue #13).
    public var volumeFrom: Int
    /// What plays when the stream `sound` fails (issue #43); nil: the default tone.
    public var fallbackSound: String?

    public init(
        alarm: String?, label: String?, sound: String?, volume: Int, fadeIn: TimeInterval, scheduled: Date, late: Bool,
        volumeFrom: Int = 0, fallbackSound: String? = nil
    ) {
        self.volumeFrom = volumeFrom
        self.fallbackSound = fallbackSound
        self.alarm = alarm
        self.label = label
        self.sound = sound
        self.volume = volume
        self.fadeIn = fadeIn
        self.scheduled = scheduled
        self.late = late
    }
}

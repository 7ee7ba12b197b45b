import FoundationEssentials

/// How a ring episode ended, or why an occurrence never rang.
public enum RingOutcome: String, Codable, Sendable {
    /// `alarm stop`.
    case stopped
    /// `alarm snooze`, or the ring snoozed itself because nobody answered it within its ring
    /// length (`when_ignored = snooze`; the reason says so): a later episode of the same
    /// occurrence follows.
    case snoozed
    /// The ring length passed (auto-silence), or a newer alarm took over the speaker.
    case silenced
    /// Passed by more than the grace window (daemon down, clock jump, snooze end while down).
    case missed
    /// Neither the sound nor the default tone could be played.
    case failed
    /// `alarm pause` covered the occurrence: it did not ring, by request (issue #12).
    case paused
    /// The occurrence fell on a holiday of the holidays file and the alarm skips holidays; the
    /// reason names the holiday.
    case skipped
    /// The alarm's last occurrence (`--until`, or an expression that runs out) has passed: the
    /// alarm ends and leaves the list. `scheduled` is that last occurrence.
    case ended
    /// Nobody answered (issue #13, `when_ignored = snooze`): the ring snoozed itself as often as
    /// allowed and rang its ring length once more; then it was silenced for good.
    case ignored
}

/// One line of history: one ring episode of one occurrence (an occurrence snoozed twice and
/// stopped has three entries, `snoozed`, `snoozed`, `stopped`, with the same `scheduled`), or one
/// missed occurrence.
///
/// JSON keys: `alarm`, `scheduled`, `started`, `ended`, `outcome`, `sound`, `reason`, `late`, and
/// `fallback` only when `fallback_command` ran; `mixer` only in entries of rings that raised the
/// mixer to the volume floor. Instants are RFC 3339 with milliseconds, in `zone` (the alarm's
/// display zone).
public struct HistoryEntry: Equatable, Sendable {
    /// The alarm's id; nil for `alarm ring` (ring now).
    public var alarm: String?
    /// The occurrence's instant (the instant `alarm ring` was asked for a manual ring).
    public var scheduled: Date
    /// When the first frame went to the sound device; nil if none did.
    public var started: Date?
    /// When the sound stopped (or the occurrence was given up).
    public var ended: Date?
    public var outcome: RingOutcome
    /// The sound file played, or `default` for the default tone; nil when nothing played.
    public var sound: String?
    /// Why the default tone played instead of the alarm's sound, why playback failed, or why the
    /// occurrence was missed or superseded.
    public var reason: String?
    /// Rung after its instant by more than the engine's tolerance (a clock jump, a restart).
    public var late: Bool
    /// What the ring did to the sound card's mixer: "mixer 'Master' raised from 12 %, muted, to
    /// 50 %" (put back when it ended); nil when it left the mixer alone.
    public var mixer: String?
    /// The zone the instants are written in; not part of the JSON (each timestamp has its offset).
    public var zone: Zone
    /// What `fallback_command` did when no device would play ("'buzz' exited with status 0");
    /// the key is left out when it did not run.
    public var fallback: String?

    public init(
        alarm: String?, scheduled: Date, started: Date?, ended: Date?, outcome: RingOutcome, sound: String?,
        reason: String?, late: Bool, zone: Zone, fallback: String? = nil, mixer: String? = nil
    ) {
        self.alarm = alarm
        self.scheduled = scheduled
        self.started = started
        self.ended = ended
        self.outcome = outcome
        self.sound = sound
        self.reason = reason
        self.late = late
        self.zone = zone
        self.fallback = fallback
        self.mixer = mixer
    }
}

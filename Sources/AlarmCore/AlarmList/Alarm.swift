import FoundationEssentials

/// When an alarm rings: a calendar expression on a wall clock, or one absolute instant.
public enum AlarmTrigger: Hashable, Sendable {
    /// Floating when the expression has no zone (the system zone's wall clock, whatever it is
    /// at the time), pinned when it names one.
    indirect case calendar(CalendarExpression)
    /// An instant (`--in 20m`, `--at ...`): unaffected by zone changes, rings once.
    case instant(Date)
}

/// How an alarm's time relates to time zones (the seeds' `timeZone` semantics).
public enum ZoneMode: String, Codable, Sendable {
    /// Wall-clock time in the system's current zone: 07:00 stays 07:00 when the zone changes.
    case floating
    /// Wall-clock time in a named zone.
    case pinned
    /// An instant, like the seeds' nil `timeZone` ("suitable for countdown timers").
    case absolute
}

/// An alarm request: an identifier (adding an existing id replaces it), content and a trigger.
///
/// Optional settings left nil take the configured defaults when the alarm rings.
public struct Alarm: Hashable, Sendable {
    public var id: String
    public var trigger: AlarmTrigger
    public var label: String?
    /// A sound file name (looked up in the sound directories), a comma-separated list of them
    /// (one picked at random for each ring), `*` (any playable sound), or nil for the default
    /// tone. Kept as given; `SoundSelection` reads it.
    public var sound: String?
    /// Ring at the next match only, then the alarm is removed (the seeds' `repeats: false`).
    public var once: Bool
    /// Snooze length in seconds.
    public var snooze: TimeInterval?
    /// How long it rings before it silences itself, in seconds.
    public var ring: TimeInterval?
    /// Volume in percent (0...100).
    public var volume: Int?
    /// Seconds from quiet to full volume.
    public var fadeIn: TimeInterval?
    /// Skip the next occurrence only; cleared when that occurrence passes.
    public var skipNext: Bool
    /// When this alarm's trigger was made: set when the CLI's change is acknowledged (the store
    /// write), kept through edits that leave the trigger alone, reset when the trigger changes.
    /// Occurrences at or before it never ring; every later one rings once, rings late or is
    /// recorded missed. Nil only in stores written before alarms kept it: the daemon then counts
    /// from when it first sees the alarm.
    public var created: Date?
    /// `--every` (issue #12): days and weeks thin out a calendar expression's days, counted from
    /// `from`; an exact interval repeats an instant trigger. Nil: the trigger alone.
    public var every: RepeatInterval?
    /// `--from`: no occurrence before it (and the first day of an `every` cycle).
    public var from: ScheduleBound?
    /// `--until`: no occurrence after it (a date is included whole). After its last occurrence
    /// the alarm ends: the engine removes it and records `ended`.
    public var until: ScheduleBound?
    /// `--skip-holidays`: an occurrence on a day of the holidays file is recorded `skipped`.
    public var skipHolidays: Bool
    /// `alarm pause`: occurrences while it lasts are recorded `paused`; nil when not paused.
    public var pause: Pause?
    /// `--volume-from` (issue #13): the volume in percent the fade-in starts at (default 0).
    public var volumeFrom: Int?
    /// `--max-snoozes`: after this many snoozes `alarm snooze` is refused; nil: the config's.
    public var maxSnoozes: SnoozeLimit?
    /// `--when-ignored`: what a ring nobody answers does; nil: the config's.
    public var whenIgnored: WhenIgnored?
    /// `--pre-alarm` (issue #43): a `pre-alarm` event this long before each ring that will
    /// happen, per lead; nil: the config's `pre_alarm` (none by default).
    public var preAlarm: PreAlarmLeads?
    /// `--fallback-sound` (issue #43): the sound file that plays when the alarm's stream gives no
    /// audio (a file name as `--sound` takes one); nil: the default tone.
    public var fallbackSound: String?

    public init(
        id: String, trigger: AlarmTrigger, label: String? = nil, sound: String? = nil, once: Bool = false,
        snooze: TimeInterval? = nil, ring: TimeInterval? = nil, volume: Int? = nil, fadeIn: TimeInterval? = nil,
        skipNext: Bool = false, created: Date? = nil, every: RepeatInterval? = nil, from: ScheduleBound? = nil,
        until: ScheduleBound? = nil, skipHolidays: Bool = false, pause: Pause? = nil, volumeFrom: Int? = nil,
        maxSnoozes: SnoozeLimit? = nil, whenIgnored: WhenIgnored? = nil, preAlarm: PreAlarmLeads? = nil,
        fallbackSound: String? = nil
    ) {
        self.id = id
        self.trigger = trigger
        self.label = label
        self.sound = sound
        self.once = once
        self.snooze = snooze
        self.ring = ring
        self.volume = volume
        self.fadeIn = fadeIn
        self.skipNext = skipNext
        self.created = created.map(Alarm.stamp)
        self.every = every
        self.from = from
        self.until = until
        self.skipHolidays = skipHolidays
        self.pause = pause
        self.volumeFrom = volumeFrom
        self.maxSnoozes = maxSnoozes
        self.whenIgnored = whenIgnored
        self.preAlarm = preAlarm
        self.fallbackSound = fallbackSound
    }

    /// `created` as stored: whole milliseconds, so that the value read back from the store
    /// (RFC 3339 with milliseconds) is exactly the value the CLI computed its "next ring" from.
    public static func stamp(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// The first ring this alarm can have: strictly after `created` (and after `after`).
    public func firstRing(after: Date, systemZone: Zone) -> Date? {
        nextRing(after: max(after, created ?? after), systemZone: systemZone)
    }

    /// What decides an alarm's occurrences: equal keys, equal occurrences (in one zone). A new
    /// key is a new alarm to the engine (its marks start afresh) and to the store's
    /// compare-and-swap edits; a pause, `skip_holidays` or a label are not part of it.
    public struct ScheduleKey: Hashable, Sendable {
        public var trigger: AlarmTrigger
        public var every: RepeatInterval?
        public var from: ScheduleBound?
        public var until: ScheduleBound?
    }

    public var scheduleKey: ScheduleKey { ScheduleKey(trigger: trigger, every: every, from: from, until: until) }

    /// Whether `other` has the same occurrences (the same `scheduleKey`), cheaply.
    public func sameSchedule(as other: Alarm) -> Bool {
        trigger == other.trigger && every == other.every && from == other.from && until == other.until
    }

    public var mode: ZoneMode {
        switch trigger {
        case .instant: return .absolute
        case .calendar(let e): return e.zone == nil ? .floating : .pinned
        }
    }

    /// The pinned zone's name, if any.
    public var zone: String? {
        if case .calendar(let e) = trigger { return e.zone }
        return nil
    }

    /// True when the alarm rings at most once more: `once`, an instant (without `every`), or a
    /// fully dated expression.
    public var ringsOnce: Bool {
        switch trigger {
        case .instant: return once || every == nil
        case .calendar(let e): return once || e.isSingleOccurrence
        }
    }

    /// The zone in which this alarm's instants are shown to a user.
    public func displayZone(systemZone: Zone) -> Zone {
        zone.flatMap { try? Zones.zone(named: $0) } ?? systemZone
    }

    /// Ids are what users type: letters, digits, `-`, `_`, `.`, 1...64 characters, not starting with `.`.
    public static func validate(id: String) throws {
        let ok =
            !id.isEmpty && id.count <= 64 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy {
                $0.isASCII
                    && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || "-_.".unicodeScalars.contains($0))
            }
        if !ok {
            throw AlarmError.invalid(
                "alarm id '\(id)' must be 1-64 letters, digits, '-', '_' or '.', not starting with '.'")
        }
    }
}

public enum AlarmError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let m): return m
        }
    }
}

// MARK: JSON (the `alarm list --json` / export / store format)

extension Alarm: Codable {
    enum CodingKeys: String, CodingKey {
        case id, expression, zone, at, mode, label, sound, once, snooze, ring, volume
        case fadeIn = "fade_in"
        case skipNext = "skip_next"
        case created
        case every, from, until
        case skipHolidays = "skip_holidays"
        case paused
        case pausedUntil = "paused_until"
        case volumeFrom = "volume_from"
        case maxSnoozes = "max_snoozes"
        case whenIgnored = "when_ignored"
        case preAlarm = "pre_alarm"
        case fallbackSound = "fallback_sound"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(String.self, forKey: .id)
        let trigger: AlarmTrigger
        if let at = try c.decodeIfPresent(String.self, forKey: .at) {
            guard let date = RFC3339.parse(at) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .at, in: c, debugDescription: "'\(at)' is not an RFC 3339 timestamp")
            }
            trigger = .instant(date)
        } else {
            let text = try c.decode(String.self, forKey: .expression)
            var expr: CalendarExpression
            do { expr = try CalendarExpression(text) } catch {
                throw DecodingError.dataCorruptedError(forKey: .expression, in: c, debugDescription: "\(error)")
            }
            if let zone = try c.decodeIfPresent(String.self, forKey: .zone) {
                do { expr.zone = try Zones.canonicalName(zone) } catch {
                    throw DecodingError.dataCorruptedError(forKey: .zone, in: c, debugDescription: "\(error)")
                }
            }
            trigger = .calendar(expr)
        }
        self.init(
            id: id, trigger: trigger,
            label: try c.decodeIfPresent(String.self, forKey: .label),
            sound: try c.decodeIfPresent(String.self, forKey: .sound),
            once: try c.decodeIfPresent(Bool.self, forKey: .once) ?? false,
            snooze: try c.decodeIfPresent(TimeInterval.self, forKey: .snooze),
            ring: try c.decodeIfPresent(TimeInterval.self, forKey: .ring),
            volume: try c.decodeIfPresent(Int.self, forKey: .volume),
            fadeIn: try c.decodeIfPresent(TimeInterval.self, forKey: .fadeIn),
            skipNext: try c.decodeIfPresent(Bool.self, forKey: .skipNext) ?? false,
            created: try Self.decodeCreated(c))
        func text<T>(_ key: CodingKeys, _ parse: (String) throws(AlarmError) -> T) throws -> T? {
            guard let t = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            do { return try parse(t) } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(error)")
            }
        }
        every = try text(.every, RepeatInterval.parse)
        from = try text(.from, ScheduleBound.parse)
        until = try text(.until, ScheduleBound.parse)
        skipHolidays = try c.decodeIfPresent(Bool.self, forKey: .skipHolidays) ?? false
        let paused = try c.decodeIfPresent(Bool.self, forKey: .paused) ?? false
        let pausedUntil = try text(.pausedUntil, ScheduleBound.parse)
        pause = pausedUntil.map { .until($0) } ?? (paused ? .indefinitely : nil)
        volumeFrom = try c.decodeIfPresent(Int.self, forKey: .volumeFrom)
        if (try? c.decodeNil(forKey: .maxSnoozes)) == false {
            if let n = try? c.decode(Int.self, forKey: .maxSnoozes) {
                maxSnoozes = .limited(n)
            } else {
                maxSnoozes = try text(.maxSnoozes, SnoozeLimit.parse)
            }
        }
        whenIgnored = try text(.whenIgnored, WhenIgnored.parse)
        preAlarm = try text(.preAlarm, PreAlarmLeads.parse)
        fallbackSound = try c.decodeIfPresent(String.self, forKey: .fallbackSound)
        if let problem = Self.whyRulesDoNotFit(trigger: trigger, every: every) {
            throw DecodingError.dataCorruptedError(forKey: .every, in: c, debugDescription: problem)
        }
    }

    /// Why `every` cannot go with `trigger`, or nil when it can: calendar days thin out an
    /// expression's days; an exact interval repeats an instant.
    public static func whyRulesDoNotFit(trigger: AlarmTrigger, every: RepeatInterval?) -> String? {
        guard let every else { return nil }
        switch (trigger, every.isCalendar) {
        case (.instant, true):
            return "an interval of days or weeks (\(every)) needs a calendar expression for the time of day"
        case (.calendar, false):
            return "an exact interval (\(every)) repeats an instant ('at'), not a calendar expression"
        default: return nil
        }
    }

    private static func decodeCreated(_ c: KeyedDecodingContainer<CodingKeys>) throws -> Date? {
        guard let text = try c.decodeIfPresent(String.self, forKey: .created) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .created, in: c, debugDescription: "'\(text)' is not an RFC 3339 timestamp")
        }
        return date
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        switch trigger {
        case .instant(let t):
            try c.encode(RFC3339.format(t, in: Zone.utc), forKey: .at)
        case .calendar(let e):
            try c.encode(e.print(withZone: false), forKey: .expression)
        }
        try c.encodeEach([
            .zone: zone, .mode: mode, .label: label, .sound: sound, .once: once, .snooze: snooze, .ring: ring,
            .volume: volume, .fadeIn: fadeIn, .skipNext: skipNext,
        ])
        try c.encodeIfPresent(created.map { RFC3339.format($0, in: .utc, milliseconds: true) }, forKey: .created)
        // Issue #12's keys only when set (`paused` always, `paused_until` while paused: null for
        // "until alarm resume"): 10,000 alarms without them keep the store as small as before.
        try c.encodeEach(
            [.every: every?.description, .from: from?.description, .until: until?.description], omittingNil: true)
        if skipHolidays { try c.encode(true, forKey: .skipHolidays) }
        try c.encode(pause != nil, forKey: .paused)
        if pause != nil { try c.encode(pausedUntilBound?.description, forKey: .pausedUntil) }
        // Issue #13's ringing options, likewise only when set (`list --json` and `export` show
        // them always: `AlarmListWriter`).
        try c.encodeIfPresent(volumeFrom, forKey: .volumeFrom)
        switch maxSnoozes {
        case .limited(let n)?: try c.encode(n, forKey: .maxSnoozes)
        case .unlimited?: try c.encode("unlimited", forKey: .maxSnoozes)
        case nil: break
        }
        try c.encodeIfPresent(whenIgnored, forKey: .whenIgnored)
        try c.encodeIfPresent(preAlarm?.description, forKey: .preAlarm)
        try c.encodeIfPresent(fallbackSound, forKey: .fallbackSound)
    }

    /// The pause's end, when it has one.
    public var pausedUntilBound: ScheduleBound? {
        if case .until(let b)? = pause { return b }
        return nil
    }
}

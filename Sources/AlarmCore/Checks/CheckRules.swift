import FoundationEssentials

/// The checks of `alarm check` and of alarmd's pre-flight, one pure function each: facts in,
/// `{name, status, message}` out. Each message says what was found and what to do about it.
///
/// Names are stable words: `alarm` (only when no ring is coming), `daemon`, `sound`, `device`,
/// `mixer`, `clock`, `zone`, `storage`.
public enum CheckRules {
    /// Below this much free space in the state directory, history and ring state may not be saved.
    public static let minimumFreeBytes: Int64 = 10 * 1024 * 1024

    // MARK: alarm

    /// No alarm is set at all: nothing will ring.
    public static func noAlarm() -> Check {
        Check("alarm", .fail, "no alarm is set: nothing will ring (add one: alarm add 'Mon..Fri 06:30')")
    }

    /// `alarm check ID` for an id that is not stored.
    public static func unknownAlarm(_ id: String) -> Check {
        Check("alarm", .fail, "there is no alarm '\(id)' (alarm list shows the ids): nothing will ring for it")
    }

    /// An alarm whose expression has no occurrence left.
    public static func neverRings(_ id: String) -> Check {
        Check("alarm", .fail, "'\(id)' will not ring again: its schedule has no occurrence after now")
    }

    /// An alarm paused until `alarm resume` (issue #12).
    public static func pausedUntilResume(_ id: String) -> Check {
        Check("alarm", .fail, "'\(id)' is paused until alarm resume: it will not ring (alarm resume \(id))")
    }

    /// The holidays file cannot be used (issue #12): alarms ring on holidays too.
    public static func holidaysUnusable(_ problem: String) -> Check {
        Check(
            "holidays", .warning,
            "\(problem): holidays are not skipped until it is fixed (alarmd keeps the holidays it read before)")
    }

    /// The alarms could not be read; only what alarmd says it will ring is known. `asked`: the id
    /// the user named, if any.
    public static func alarmsUnreadable(_ why: String, next: EngineStatus.Next?, asked: String? = nil) -> Check {
        if let asked, next?.id != asked {
            return Check(
                "alarm", .warning,
                "the alarms cannot be read here (\(why)) and '\(asked)' is not the next ring alarmd reports: it cannot be checked as this user; ask as a member of group alarm"
            )
        }
        if let next {
            return Check(
                "alarm", .warning,
                "the alarms cannot be read here (\(why)); alarmd says '\(next.id)' rings next: its sound was not checked"
            )
        }
        return Check("alarm", .fail, "the alarms cannot be read here (\(why)) and alarmd reports no next ring")
    }

    // MARK: daemon

    /// alarmd runs and will ring `alarm` at `at`.
    public static func daemon(_ facts: CheckFacts.Daemon, alarm: String?, at: Date?, now: Date, zone: Zone) -> Check {
        let status: EngineStatus?
        switch facts {
        case .notRunning(let why):
            let what = why.hasPrefix("alarmd") ? why : "alarmd cannot be reached (\(why))"
            return Check("daemon", .fail, "\(what): no alarm rings; start it (sudo systemctl start alarmd)")
        case .running(let s):
            status = s
        }
        let doing =
            status.map { s -> String in
                switch s.state {
                case .idle: return ""
                case .ringing: return "; ringing \(s.alarm.map { "'\($0)'" } ?? "now") at the moment"
                case .snoozed: return "; '\(s.alarm ?? "ring")' is snoozed"
                }
            } ?? ""
        guard let alarm, let at else { return Check("daemon", .ok, "alarmd runs" + doing) }
        let when = "\(RFC3339.format(at, in: zone)) (in \(Durations.spoken(at.timeIntervalSince(now))))"
        guard let status else {
            return Check(
                "daemon", .warning, "alarmd runs but has written no status.json yet; '\(alarm)' is due at \(when)")
        }
        if let next = status.next {
            let delta = next.at.timeIntervalSince(at)
            if abs(delta) < 1 {
                let together = next.id == alarm ? "" : ", together with '\(next.id)'"
                return Check("daemon", .ok, "alarmd runs and will ring '\(alarm)' at \(when)\(together)\(doing)")
            }
            if delta < 0 {
                return Check(
                    "daemon", .ok,
                    "alarmd runs and will ring '\(alarm)' at \(when); '\(next.id)' rings before it\(doing)")
            }
        }
        let theirs = status.next.map { "'\($0.id)' at \(RFC3339.format($0.at, in: zone))" } ?? "none"
        return Check(
            "daemon", .warning,
            "alarmd runs, but its next ring is \(theirs), not '\(alarm)' at \(when): it has not taken the alarm in yet (alarm status shows what it will do; sudo systemctl reload alarmd)"
        )
    }

    // MARK: sound

    public static func sound(_ facts: CheckFacts.Sound) -> Check {
        switch facts {
        case .defaultTone:
            return Check("sound", .ok, "the default tone (880 Hz beeps) plays")
        case .plays(let name, let detail):
            return Check("sound", .ok, "'\(name)' plays (\(detail))")
        case .replaced(_, let problem):
            return Check(
                "sound", .warning,
                "\(problem): the default tone (880 Hz beeps) plays instead; fix or replace the file (alarm sounds lists what plays)"
            )
        case .streamFails(_, let problem):
            return Check(
                "sound", .warning,
                "\(problem): if it is so at the ring, the alarm's fallback sound (else the default tone) plays instead"
            )
        }
    }

    // MARK: device

    /// The chain in the order the player tries it. `ringingNow`: alarmd is ringing, so its device
    /// being busy is expected.
    public static func device(_ chain: [CheckFacts.Device], ringingNow: Bool = false) -> Check {
        func card(_ c: CheckFacts.Device.Card?) -> String { c.map { " (card \($0.index) '\($0.name)')" } ?? "" }
        func error(_ d: CheckFacts.Device) -> String {
            switch d.result {
            case .opens: return "opens"
            case .busy(let e), .denied(let e), .fails(let e): return e
            }
        }
        guard let first = chain.first else {
            return Check("device", .fail, "no ALSA device is configured: set device in alarm.conf")
        }
        if let i = chain.firstIndex(where: { if case .opens = $0.result { true } else { false } }),
            case .opens(let c) = chain[i].result
        {
            if i == 0 { return Check("device", .ok, "ALSA device '\(first.name)' opens\(card(c))") }
            let failed = chain[..<i].map { "'\($0.name)': \(error($0))" }.joined(separator: "; ")
            return Check(
                "device", .warning,
                "the configured device does not open (\(failed)): '\(chain[i].name)' of the chain will be used\(card(c)); check device in alarm.conf (aplay -L lists the names)"
            )
        }
        let all = chain.map { "'\($0.name)': \(error($0))" }.joined(separator: "; ")
        if let busy = chain.first(where: { if case .busy = $0.result { true } else { false } }) {
            if ringingNow { return Check("device", .ok, "ALSA device '\(busy.name)' is in use by the ringing alarm") }
            return Check(
                "device", .warning,
                "no device of the chain is free now (\(all)): another program holds '\(busy.name)'; it rings only if that program lets go by then"
            )
        }
        if chain.contains(where: { if case .denied = $0.result { true } else { false } }) {
            return Check(
                "device", .warning,
                "this user may not open the sound devices (\(all)): run alarm check as root or as a member of group audio to test them (alarmd's user is in it)"
            )
        }
        return Check(
            "device", .fail,
            "no ALSA device of the chain opens (\(all)): the alarm will be silent; check the card (aplay -l) and device in alarm.conf"
        )
    }

    // MARK: mixer

    /// The card's playback control against the floor (`mixer_floor`, percent; 0 is off).
    public static func mixer(_ facts: CheckFacts.Mixer, floor: Int) -> Check {
        switch facts {
        case .reading(let control, let card, let percent, let muted):
            let now = "'\(control)' on card '\(card)' is at \(percent) %" + (muted ? ", muted" : "")
            if floor > 0 {
                if muted || percent < floor {
                    return Check(
                        "mixer", .warning, "\(now): it will be raised to \(floor) % (mixer_floor) while the alarm rings"
                    )
                }
                return Check("mixer", .ok, "\(now), not muted (mixer_floor \(floor) %)")
            }
            if muted || percent == 0 {
                return Check(
                    "mixer", .fail,
                    "\(now) and mixer_floor is 0 (off): the ring will not be heard; raise it (alsamixer) or set mixer_floor"
                )
            }
            return Check("mixer", .ok, "\(now), not muted (mixer_floor is 0: it is never raised)")
        case .none(let why):
            return Check("mixer", .ok, why)
        case .unreadable(let why):
            return Check("mixer", .warning, "the mixer cannot be read (\(why)): its volume is not known")
        case .noDevice:
            return Check("mixer", .ok, "not checked: no device opens (see device)")
        }
    }

    // MARK: clock

    public static func clock(_ facts: CheckFacts.Clock) -> Check {
        switch facts {
        case .synchronized(let how):
            return Check("clock", .ok, "the system clock is synchronized (\(how))")
        case .unsynchronized(let how):
            return Check(
                "clock", .warning,
                "the system clock is not synchronized (\(how)): a jump may still come when it syncs; an alarm it jumps over rings late (within grace) or is missed; check NTP (timedatectl)"
            )
        case .unknown(let why):
            return Check("clock", .ok, "not checked: \(why)")
        }
    }

    // MARK: zone

    public static func zone(_ facts: CheckFacts.Zones, alarm: String?) -> Check {
        if !facts.systemKnown {
            return Check(
                "zone", .warning,
                "the system zone cannot be read from \(facts.source): UTC is used; set it (sudo timedatectl set-timezone Europe/Berlin)"
            )
        }
        let system = "system zone \(facts.system) (\(facts.source))"
        let offset = facts.offset.map { ", \($0) at the ring" } ?? ""
        guard let alarm, let mode = facts.mode else { return Check("zone", .ok, system) }
        switch mode {
        case .floating:
            return Check("zone", .ok, "\(system); '\(alarm)' follows it (floating\(offset))")
        case .pinned:
            let name = facts.pinned ?? "?"
            if !facts.pinnedKnown {
                return Check(
                    "zone", .fail,
                    "\(system); '\(alarm)' is pinned to \(name), which the tz database here does not have: it cannot be scheduled"
                )
            }
            return Check("zone", .ok, "\(system); '\(alarm)' is pinned to \(name)\(offset)")
        case .absolute:
            return Check("zone", .ok, "\(system); '\(alarm)' is an instant, not moved by zone changes")
        }
    }

    // MARK: storage

    public static func storage(_ facts: CheckFacts.Storage) -> Check {
        let dir = facts.directory
        let free = facts.freeBytes.map { "\(bytes($0)) free" } ?? "free space unknown (\(facts.freeError ?? "?"))"
        if case .no(let why) = facts.writable {
            return Check(
                "storage", .warning,
                "the state directory \(dir) cannot be written (\(why)): alarms still ring, but history and ring state are not saved; make it writable"
            )
        }
        if let b = facts.freeBytes, b < minimumFreeBytes {
            return Check(
                "storage", .warning,
                "only \(bytes(b)) free in \(dir) (less than \(bytes(minimumFreeBytes))): history and ring state may not be saved; free some space"
            )
        }
        if facts.freeBytes == nil {
            return Check("storage", .warning, "\(dir): \(free)")
        }
        if case .notChecked(let why) = facts.writable {
            return Check("storage", .ok, "\(dir): \(free); whether alarmd can write it is not checked here (\(why))")
        }
        return Check("storage", .ok, "\(dir) is writable, \(free)")
    }

    /// "850 MB", "1.2 GB", "512 kB" (powers of 1024, as df -h).
    public static func bytes(_ n: Int64) -> String {
        let kb = Double(n) / 1024
        let mb = kb / 1024
        let gb = mb / 1024
        if gb >= 1 { return Text.fixed(gb, 1) + " GB" }
        if mb >= 1 { return Text.fixed(mb, 0) + " MB" }
        return Text.fixed(kb, 0) + " kB"
    }
}

import AlarmCore
import FoundationEssentials

/// Where the checks get their facts from. `LivePreflightProbes` asks the system; tests hand in
/// made-up facts. The mixer reading is one method, so a fuller mixer module can take its place.
public protocol PreflightProbes {
    /// The devices tried in order when `configured` will not play.
    func deviceChain(configured: String) -> [String]
    /// Opens `device` as a ring would (the clip's channels and rate) and closes it, silently.
    func probeDevice(_ device: String, channels: Int, rate: Int) -> CheckFacts.Device
    /// The playback mixer of `card` (`control`, else its first playback volume control).
    func mixer(card: CheckFacts.Device.Card, control: String?) -> CheckFacts.Mixer
    func clock() -> CheckFacts.Clock
    func storage(_ directory: String) -> CheckFacts.Storage
    /// What `name` plays (nil: the default tone was asked for), and the format the device must take.
    func sound(_ name: String?) -> (facts: CheckFacts.Sound, channels: Int, rate: Int)
}

/// The checks behind `alarm check` and alarmd's pre-flight, run the same way by both: for one
/// alarm (or none), gather the facts through `probes` and apply `CheckRules`.
public struct Preflight {
    /// What is checked: an alarm with its next ring (nil: it never rings again), an id that is
    /// not stored, nothing at all, or, when the alarms cannot be read, the ring alarmd reports.
    public enum Target: Equatable, Sendable {
        case alarm(Alarm, at: Date?)
        case unknown(String)
        case nothing
        case unreadable(why: String, next: EngineStatus.Next?, asked: String? = nil)
    }

    /// The system zone in force and where it came from.
    public struct SystemZoneFacts: Sendable {
        public var zone: Zone
        public var known: Bool
        public var source: String
        public init(zone: Zone, known: Bool, source: String) {
            self.zone = zone
            self.known = known
            self.source = source
        }
    }

    public var probes: PreflightProbes
    public var device: String
    public var mixerFloor: Int
    public var mixerControl: String?
    public var stateDir: String
    /// What an alarm without its own sound plays (config `sound`, issue #43); nil: the default tone.
    public var defaultSound: String?

    public init(config: Configuration, probes: PreflightProbes) {
        self.probes = probes
        device = config.device
        mixerFloor = config.mixerFloor
        mixerControl = config.mixerControl
        stateDir = config.stateDir
        defaultSound = config.sound
    }

    /// Every check for `target`, in a fixed order: `alarm` (only when no ring is coming),
    /// `daemon`, `sound` (when an alarm is known), `device`, `mixer`, `clock`, `zone`, `storage`.
    public func report(_ target: Target, daemon: CheckFacts.Daemon, system: SystemZoneFacts, now: Date) -> CheckReport {
        var checks: [Check] = []
        var id: String?
        var at: Date?
        var alarm: Alarm?
        var zone = system.zone
        switch target {
        case .alarm(let a, let next):
            (id, at, alarm) = (a.id, next, a)
            zone = a.displayZone(systemZone: system.zone)
            if next == nil {
                checks.append(
                    a.pause == .indefinitely ? CheckRules.pausedUntilResume(a.id) : CheckRules.neverRings(a.id))
            }
        case .unknown(let name):
            id = name
            checks.append(CheckRules.unknownAlarm(name))
        case .nothing:
            checks.append(CheckRules.noAlarm())
        case .unreadable(let why, let next, let asked):
            if let asked, asked != next?.id { (id, at) = (asked, nil) } else { (id, at) = (next?.id, next?.at) }
            checks.append(CheckRules.alarmsUnreadable(why, next: next, asked: asked))
        }
        let ringing: Bool
        if case .running(let s?) = daemon { ringing = s.state == .ringing } else { ringing = false }
        checks.append(CheckRules.daemon(daemon, alarm: id, at: at, now: now, zone: zone))

        var format = (channels: 1, rate: 48_000)
        if let alarm {
            let sound = probes.sound(alarm.sound ?? defaultSound)
            format = (sound.channels, sound.rate)
            checks.append(CheckRules.sound(sound.facts))
        }
        // In the player's order, up to the first device that opens: the one the ring will use.
        var chain: [CheckFacts.Device] = []
        for name in probes.deviceChain(configured: device) {
            chain.append(probes.probeDevice(name, channels: format.channels, rate: format.rate))
            if case .opens = chain.last!.result { break }
        }
        checks.append(CheckRules.device(chain, ringingNow: ringing))
        checks.append(CheckRules.mixer(mixerFacts(chain), floor: mixerFloor))
        checks.append(CheckRules.clock(probes.clock()))
        checks.append(CheckRules.zone(zoneFacts(alarm, at: at, system: system), alarm: alarm?.id))
        checks.append(CheckRules.storage(probes.storage(stateDir)))
        return CheckReport(alarm: id, at: at, zone: zone, checks: checks)
    }

    /// The mixer of the card the ring will use: the first device of the chain that opens.
    func mixerFacts(_ chain: [CheckFacts.Device]) -> CheckFacts.Mixer {
        for d in chain {
            guard case .opens(let card) = d.result else { continue }
            guard let card else {
                return .none("'\(d.name)' is not a sound card of its own: there is no card mixer to check")
            }
            return probes.mixer(card: card, control: mixerControl)
        }
        return .noDevice
    }

    func zoneFacts(_ alarm: Alarm?, at: Date?, system: SystemZoneFacts) -> CheckFacts.Zones {
        var facts = CheckFacts.Zones(
            system: system.zone.identifier, systemKnown: system.known, source: system.source, mode: alarm?.mode)
        guard let alarm else { return facts }
        if let pinned = alarm.zone {
            facts.pinned = pinned
            facts.pinnedKnown = (try? Zones.zone(named: pinned)) != nil
        }
        if let at, alarm.mode != .absolute {
            facts.offset = Self.offset(alarm.displayZone(systemZone: system.zone).secondsFromGMT(for: at))
        }
        return facts
    }

    /// "+01:00", "-05:00", "+05:30".
    static func offset(_ seconds: Int) -> String {
        let m = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + Text.zeroPadded(m / 60, 2) + ":" + Text.zeroPadded(m % 60, 2)
    }
}

import AlarmCore
import AlarmState
import Foundation
import Testing

/// Issue #11: the checks as `alarm check` and alarmd's pre-flight run them, over made-up system
/// facts (a fake is the point here: every combination, no sound card needed).
@Suite("Preflight: the checks over fake system facts (issue #11)")
struct PreflightTests {
    final class FakeProbes: PreflightProbes, @unchecked Sendable {
        var chain = ["hw:1", "default", "plughw:0,0"]
        var devices: [String: CheckFacts.Device.Result] = [:]
        var mixers: [Int: CheckFacts.Mixer] = [:]
        var clockFacts = CheckFacts.Clock.synchronized("adjtimex: STA_UNSYNC clear")
        var writable = CheckFacts.Storage.Writable.yes
        var free: Int64? = 5 << 30
        var sounds: [String: (CheckFacts.Sound, Int, Int)] = [:]
        private(set) var probed: [(String, Int, Int)] = []
        private(set) var mixerAsked: [(Int, String?)] = []

        func deviceChain(configured: String) -> [String] { [configured] + chain.filter { $0 != configured } }
        func probeDevice(_ device: String, channels: Int, rate: Int) -> CheckFacts.Device {
            probed.append((device, channels, rate))
            return .init(
                name: device, result: devices[device] ?? .fails("snd_pcm_open failed: No such file or directory"))
        }
        func mixer(card: CheckFacts.Device.Card, control: String?) -> CheckFacts.Mixer {
            mixerAsked.append((card.index, control))
            return mixers[card.index] ?? .none("card '\(card.name)' has no playback volume control: nothing to check")
        }
        func clock() -> CheckFacts.Clock { clockFacts }
        func storage(_ directory: String) -> CheckFacts.Storage {
            .init(directory: directory, writable: writable, freeBytes: free)
        }
        func sound(_ name: String?) -> (facts: CheckFacts.Sound, channels: Int, rate: Int) {
            guard let name else { return (.defaultTone, 1, 48_000) }
            if let s = sounds[name] { return (s.0, s.1, s.2) }
            return (.replaced(name: name, problem: "sound '\(name)' was not found in /sounds"), 1, 48_000)
        }
    }

    let now = Date(timeIntervalSince1970: 1_795_000_000)
    var ring: Date { now.addingTimeInterval(8 * 3600) }
    let berlin = Zone(identifier: "Europe/Berlin")!

    func config(floor: Int = 50, control: String? = nil, device: String = "hw:1") -> Configuration {
        var c = Configuration()
        c.device = device
        c.mixerFloor = floor
        c.mixerControl = control
        c.stateDir = "/var/lib/alarm"
        return c
    }

    func work(sound: String? = nil) throws -> Alarm {
        Alarm(id: "work", trigger: .calendar(try CalendarExpression("Mon..Fri 06:30")), sound: sound)
    }

    var system: Preflight.SystemZoneFacts { .init(zone: berlin, known: true, source: "/etc/localtime") }
    func running(next id: String = "work") -> CheckFacts.Daemon {
        .running(EngineStatus(state: .idle, next: .init(id: id, at: ring), zone: berlin))
    }

    func healthy() -> FakeProbes {
        let p = FakeProbes()
        p.devices["hw:1"] = .opens(card: .init(index: 1, name: "Headphones"))
        p.mixers[1] = .reading(control: "Headphone", card: "Headphones", percent: 80, muted: false)
        p.sounds["chime.wav"] = (.plays(name: "chime.wav", detail: "WAV PCM s16, 2.0 s"), 2, 44_100)
        return p
    }

    @Test("all is well: every check ok, in the documented order, verdict ok")
    func allOK() throws {
        let p = healthy()
        let r = Preflight(config: config(), probes: p).report(
            .alarm(try work(sound: "chime.wav"), at: ring), daemon: running(), system: system, now: now)
        #expect(r.checks.map(\.name) == ["daemon", "sound", "device", "mixer", "clock", "zone", "storage"])
        #expect(r.checks.allSatisfy { $0.status == .ok }, "\(r.checks)")
        #expect(r.verdict == .ok && r.alarm == "work" && r.at == ring)
        // The device is opened as the clip will play, and only the first device that opens.
        #expect(p.probed.map(\.0) == ["hw:1"])
        #expect(p.probed.first.map { ($0.1, $0.2) } ?? (0, 0) == (2, 44_100))
        #expect(p.mixerAsked.map(\.0) == [1])
        #expect(r["zone"]?.message.contains("follows it (floating, +01:00 at the ring)") == true)
    }

    @Test("a sound that will not play: a warning (the default tone rings), exit 1")
    func missingSound() throws {
        let p = healthy()
        let r = Preflight(config: config(), probes: p).report(
            .alarm(try work(sound: "gone.wav"), at: ring), daemon: running(), system: system, now: now)
        #expect(r["sound"]?.status == .warning)
        #expect(r.verdict == .warning && r.verdict.exitCode == 1)
        #expect(
            p.probed.first.map { ($0.1, $0.2) } ?? (0, 0) == (1, 48_000),
            "the default tone's format is what will be opened")
    }

    @Test("the configured device gone, 'default' opens: warning, and the mixer of the card that will play")
    func chainFallback() throws {
        let p = healthy()
        p.devices["hw:1"] = .fails("snd_pcm_open failed: No such device")
        p.devices["default"] = .opens(card: .init(index: 0, name: "vc4hdmi"))
        p.mixers[0] = .reading(control: "PCM", card: "vc4hdmi", percent: 100, muted: false)
        let r = Preflight(config: config(control: "PCM"), probes: p).report(
            .alarm(try work(), at: ring), daemon: running(), system: system, now: now)
        #expect(r["device"]?.status == .warning)
        #expect(r["device"]?.message.contains("'default' of the chain will be used (card 0 'vc4hdmi')") == true)
        #expect(p.probed.map(\.0) == ["hw:1", "default"])
        #expect(p.mixerAsked.map(\.0) == [0] && p.mixerAsked.first?.1 == "PCM")
        #expect(r.verdict == .warning)
    }

    @Test("no device of the chain opens: fail, exit 2; the mixer is not asked")
    func noDevice() throws {
        let p = healthy()
        p.devices = [:]
        let r = Preflight(config: config(), probes: p).report(
            .alarm(try work(), at: ring), daemon: running(), system: system, now: now)
        #expect(r["device"]?.status == .fail)
        #expect(p.probed.map(\.0) == ["hw:1", "default", "plughw:0,0"])
        #expect(p.mixerAsked.isEmpty && r["mixer"]?.status == .ok)
        #expect(r.verdict == .fail && r.verdict.exitCode == 2)
    }

    @Test("a muted mixer: a warning with the floor on, a fail with mixer_floor = 0")
    func mutedMixer() throws {
        let p = healthy()
        p.mixers[1] = .reading(control: "Headphone", card: "Headphones", percent: 12, muted: true)
        let on = Preflight(config: config(floor: 50), probes: p).report(
            .alarm(try work(), at: ring), daemon: running(), system: system, now: now)
        #expect(on["mixer"]?.status == .warning && on.verdict == .warning)
        #expect(on["mixer"]?.message.contains("will be raised to 50 %") == true)
        let off = Preflight(config: config(floor: 0), probes: p).report(
            .alarm(try work(), at: ring), daemon: running(), system: system, now: now)
        #expect(off["mixer"]?.status == .fail && off.verdict == .fail)
    }

    @Test("a device that is not a card of its own has no card mixer to check")
    func notACard() throws {
        let p = healthy()
        p.devices["pulse"] = .opens(card: nil)
        let r = Preflight(config: config(device: "pulse"), probes: p).report(
            .alarm(try work(), at: ring), daemon: running(), system: system, now: now)
        #expect(
            r["mixer"] == Check("mixer", .ok, "'pulse' is not a sound card of its own: there is no card mixer to check")
        )
        #expect(p.mixerAsked.isEmpty)
    }

    @Test("alarmd down, the clock unsynchronized, the state directory read-only: fail, warning, warning")
    func systemProblems() throws {
        let p = healthy()
        p.clockFacts = .unsynchronized("adjtimex: STA_UNSYNC set")
        p.writable = .no("Read-only file system")
        let r = Preflight(config: config(), probes: p).report(
            .alarm(try work(), at: ring),
            daemon: .notRunning(why: "alarmd is not running (nobody is reading /run/alarm/control)"), system: system,
            now: now)
        #expect(r["daemon"]?.status == .fail)
        #expect(r["clock"]?.status == .warning)
        #expect(r["storage"]?.status == .warning)
        #expect(r.verdict == .fail)
        #expect(r.problems.count == 3)
    }

    @Test("no alarm, an unknown id, an alarm that never rings: an 'alarm' fail first, the system still checked")
    func targets() throws {
        let p = healthy()
        let pre = Preflight(config: config(), probes: p)
        let none = pre.report(.nothing, daemon: running(), system: system, now: now)
        #expect(none.checks.map(\.name) == ["alarm", "daemon", "device", "mixer", "clock", "zone", "storage"])
        #expect(none.alarm == nil && none.at == nil && none.verdict == .fail)
        let unknown = pre.report(.unknown("nap"), daemon: running(), system: system, now: now)
        #expect(unknown.alarm == "nap" && unknown["alarm"]?.status == .fail)
        let never = pre.report(.alarm(try work(), at: nil), daemon: running(), system: system, now: now)
        #expect(never["alarm"]?.status == .fail && never["sound"] != nil)
        let outsider = pre.report(
            .unreadable(why: "Permission denied", next: .init(id: "work", at: ring)), daemon: running(), system: system,
            now: now)
        #expect(outsider.alarm == "work" && outsider.at == ring && outsider.verdict == .warning)
        #expect(outsider["daemon"]?.status == .ok)
        let other = pre.report(
            .unreadable(why: "Permission denied", next: .init(id: "work", at: ring), asked: "nap"), daemon: running(),
            system: system, now: now)
        #expect(other.alarm == "nap" && other.at == nil && other["alarm"]?.status == .warning)
    }

    @Test("a pinned alarm: its zone and the offset at the ring")
    func pinned() throws {
        let p = healthy()
        var expr = try CalendarExpression("06:30")
        expr.zone = "America/New_York"
        let call = Alarm(id: "call", trigger: .calendar(expr))
        let next = try #require(call.nextRing(after: now, systemZone: berlin))
        let r = Preflight(config: config(), probes: p).report(
            .alarm(call, at: next), daemon: running(next: "call"), system: system, now: now)
        #expect(
            r["zone"]?.message.hasSuffix("'call' is pinned to America/New_York, -05:00 at the ring") == true,
            "\(r["zone"]?.message ?? "")")
        #expect(r.zone.identifier == "America/New_York", "`at` is written in the alarm's zone")
    }
}

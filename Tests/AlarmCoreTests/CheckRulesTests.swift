import Foundation
import Testing

@testable import AlarmCore

/// Issue #11: every check of `alarm check` as a pure rule over facts, each verdict, the JSON.
@Suite("alarm check: the rules, the verdict, the JSON (issue #11)")
struct CheckRulesTests {
    let now = at("2026-11-22T23:18:00+01:00")
    let ring = at("2026-11-23T06:30:00+01:00")
    let berlin = zone("Europe/Berlin")

    func status(next: EngineStatus.Next?, state: EngineStatus.State = .idle) -> EngineStatus {
        EngineStatus(state: state, alarm: state == .idle ? nil : "other", next: next, zone: berlin)
    }

    // MARK: daemon

    @Test("alarmd not running is a fail that says how to start it")
    func daemonDown() {
        let c = CheckRules.daemon(
            .notRunning(why: "alarmd is not running (nobody is reading /run/alarm/control)"), alarm: "work", at: ring,
            now: now, zone: berlin)
        #expect(c.name == "daemon" && c.status == .fail)
        #expect(c.message.hasPrefix("alarmd is not running (nobody is reading"))
        #expect(c.message.contains("systemctl start alarmd"))
        let odd = CheckRules.daemon(
            .notRunning(why: "open: Input/output error"), alarm: nil, at: nil, now: now, zone: berlin)
        #expect(odd.message.hasPrefix("alarmd cannot be reached (open: Input/output error)"))
    }

    @Test("alarmd runs and will ring it: the instant in RFC 3339 and in words")
    func daemonWillRing() {
        let c = CheckRules.daemon(
            .running(status(next: .init(id: "work", at: ring))), alarm: "work", at: ring, now: now, zone: berlin)
        #expect(c.status == .ok)
        #expect(c.message == "alarmd runs and will ring 'work' at 2026-11-23T06:30:00+01:00 (in 7 h 12 min)")
    }

    @Test("a later alarm is fine when alarmd's next ring comes first; an earlier one it does not know is a warning")
    func daemonOtherNext() {
        let earlier = status(next: .init(id: "early", at: ring.addingTimeInterval(-3600)))
        let later = status(next: .init(id: "late", at: ring.addingTimeInterval(3600)))
        let c1 = CheckRules.daemon(.running(earlier), alarm: "work", at: ring, now: now, zone: berlin)
        #expect(c1.status == .ok && c1.message.contains("'early' rings before it"))
        let c2 = CheckRules.daemon(.running(later), alarm: "work", at: ring, now: now, zone: berlin)
        #expect(c2.status == .warning && c2.message.contains("its next ring is 'late' at"))
        let c3 = CheckRules.daemon(.running(status(next: nil)), alarm: "work", at: ring, now: now, zone: berlin)
        #expect(c3.status == .warning && c3.message.contains("its next ring is none"))
        let together = CheckRules.daemon(
            .running(status(next: .init(id: "twin", at: ring))), alarm: "work", at: ring, now: now, zone: berlin)
        #expect(together.status == .ok && together.message.contains("together with 'twin'"))
    }

    @Test("alarmd runs without a status.json yet: a warning; ringing another alarm is said")
    func daemonNoStatus() {
        #expect(CheckRules.daemon(.running(nil), alarm: "work", at: ring, now: now, zone: berlin).status == .warning)
        let busy = CheckRules.daemon(
            .running(status(next: .init(id: "work", at: ring), state: .ringing)), alarm: "work", at: ring, now: now,
            zone: berlin)
        #expect(busy.status == .ok && busy.message.hasSuffix("; ringing 'other' at the moment"))
        #expect(
            CheckRules.daemon(.running(nil), alarm: nil, at: nil, now: now, zone: berlin)
                == Check("daemon", .ok, "alarmd runs"))
    }

    // MARK: alarm, sound

    @Test("no alarm, an unknown id, an alarm that never rings again: each a fail named 'alarm'")
    func alarmChecks() {
        for c in [CheckRules.noAlarm(), CheckRules.unknownAlarm("nap"), CheckRules.neverRings("eve")] {
            #expect(c.name == "alarm" && c.status == .fail)
        }
        #expect(CheckRules.unknownAlarm("nap").message.contains("'nap'"))
        #expect(CheckRules.alarmsUnreadable("Permission denied", next: .init(id: "work", at: ring)).status == .warning)
        #expect(CheckRules.alarmsUnreadable("Permission denied", next: nil).status == .fail)
        let asked = CheckRules.alarmsUnreadable("Permission denied", next: .init(id: "work", at: ring), asked: "nap")
        #expect(
            asked.status == .warning
                && asked.message.contains(
                    "'nap' is not the next ring alarmd reports: it cannot be checked as this user")
        )
        #expect(
            CheckRules.alarmsUnreadable("Permission denied", next: .init(id: "work", at: ring), asked: "work").status
                == .warning)
    }

    @Test("the sound: as chosen, the default tone, or which fallback plays and why")
    func sound() {
        #expect(CheckRules.sound(.defaultTone) == Check("sound", .ok, "the default tone (880 Hz beeps) plays"))
        #expect(
            CheckRules.sound(.plays(name: "chime.wav", detail: "WAV PCM s16, 2.0 s")).message
                == "'chime.wav' plays (WAV PCM s16, 2.0 s)")
        let c = CheckRules.sound(.replaced(name: "gone.wav", problem: "sound 'gone.wav' was not found in /x"))
        #expect(c.status == .warning)
        #expect(
            c.message.hasPrefix("sound 'gone.wav' was not found in /x: the default tone (880 Hz beeps) plays instead"))
    }

    // MARK: device

    @Test("the device chain: the configured one opens, a later one will be used, none opens")
    func device() {
        let card = CheckFacts.Device.Card(index: 1, name: "Headphones")
        let ok = CheckRules.device([.init(name: "plughw:CARD=Headphones", result: .opens(card: card))])
        #expect(ok == Check("device", .ok, "ALSA device 'plughw:CARD=Headphones' opens (card 1 'Headphones')"))
        let fallback = CheckRules.device([
            .init(name: "hw:9", result: .fails("snd_pcm_open failed: No such device")),
            .init(name: "default", result: .opens(card: nil)),
        ])
        #expect(fallback.status == .warning)
        #expect(fallback.message.contains("'hw:9': snd_pcm_open failed: No such device"))
        #expect(fallback.message.contains("'default' of the chain will be used"))
        let none = CheckRules.device([
            .init(name: "hw:9", result: .fails("snd_pcm_open failed: No such device")),
            .init(name: "default", result: .fails("snd_pcm_open failed: No such file or directory")),
        ])
        #expect(none.status == .fail && none.message.contains("the alarm will be silent"))
        #expect(CheckRules.device([]).status == .fail)
    }

    @Test("a busy device is a warning, or ok while alarmd itself rings; a device this user may not open is a warning")
    func deviceBusyOrDenied() {
        let busy: [CheckFacts.Device] = [
            .init(name: "hw:0", result: .busy("Device or resource busy")), .init(name: "default", result: .fails("x")),
        ]
        #expect(CheckRules.device(busy).status == .warning)
        #expect(CheckRules.device(busy, ringingNow: true).status == .ok)
        let denied: [CheckFacts.Device] = [.init(name: "hw:0", result: .denied("Permission denied"))]
        let c = CheckRules.device(denied)
        #expect(c.status == .warning && c.message.contains("group audio"))
    }

    // MARK: mixer

    @Test("the mixer with the floor on: low or muted is a warning that says it will be raised")
    func mixerFloorOn() {
        let low = CheckRules.mixer(.reading(control: "Master", card: "Headphones", percent: 12, muted: true), floor: 50)
        #expect(low.status == .warning)
        #expect(
            low.message
                == "'Master' on card 'Headphones' is at 12 %, muted: it will be raised to 50 % (mixer_floor) while the alarm rings"
        )
        #expect(
            CheckRules.mixer(.reading(control: "PCM", card: "x", percent: 49, muted: false), floor: 50).status
                == .warning)
        #expect(
            CheckRules.mixer(.reading(control: "PCM", card: "x", percent: 50, muted: false), floor: 50).status == .ok)
    }

    @Test("the mixer with the floor off: muted or at 0 % is a fail, anything else ok")
    func mixerFloorOff() {
        #expect(
            CheckRules.mixer(.reading(control: "Master", card: "x", percent: 80, muted: true), floor: 0).status == .fail
        )
        #expect(
            CheckRules.mixer(.reading(control: "Master", card: "x", percent: 0, muted: false), floor: 0).status == .fail
        )
        #expect(
            CheckRules.mixer(.reading(control: "Master", card: "x", percent: 5, muted: false), floor: 0).status == .ok)
        #expect(CheckRules.mixer(.none("'pulse' is not a sound card"), floor: 50).status == .ok)
        #expect(CheckRules.mixer(.unreadable("snd_mixer_load failed"), floor: 50).status == .warning)
        #expect(CheckRules.mixer(.noDevice, floor: 0).status == .ok)
    }

    // MARK: clock, zone, storage

    @Test("the clock: synchronized ok, STA_UNSYNC a warning, not askable ok and said")
    func clock() {
        #expect(CheckRules.clock(.synchronized("adjtimex: STA_UNSYNC clear")).status == .ok)
        let c = CheckRules.clock(.unsynchronized("adjtimex: STA_UNSYNC set"))
        #expect(c.status == .warning && c.message.contains("a jump may still come"))
        let u = CheckRules.clock(.unknown("adjtimex: Operation not permitted"))
        #expect(u.status == .ok && u.message.hasPrefix("not checked: "))
    }

    @Test("the zones: the system zone and the alarm's; an unreadable system zone is a warning")
    func zones() {
        let floating = CheckRules.zone(
            .init(
                system: "Europe/Berlin", systemKnown: true, source: "/etc/localtime", mode: .floating, offset: "+01:00"),
            alarm: "work")
        #expect(
            floating
                == Check(
                    "zone", .ok,
                    "system zone Europe/Berlin (/etc/localtime); 'work' follows it (floating, +01:00 at the ring)"))
        let pinned = CheckRules.zone(
            .init(
                system: "Europe/Berlin", systemKnown: true, source: "TZ=Europe/Berlin", mode: .pinned,
                pinned: "America/New_York", offset: "-05:00"), alarm: "call")
        #expect(pinned.message.hasSuffix("'call' is pinned to America/New_York, -05:00 at the ring"))
        let instant = CheckRules.zone(
            .init(system: "UTC", systemKnown: true, source: "/etc/localtime", mode: .absolute), alarm: "tea")
        #expect(instant.message.contains("an instant"))
        #expect(
            CheckRules.zone(.init(system: "UTC", systemKnown: false, source: "/etc/localtime", mode: nil), alarm: nil)
                .status == .warning)
        #expect(
            CheckRules.zone(
                .init(
                    system: "UTC", systemKnown: true, source: "/etc/localtime", mode: .pinned, pinned: "Mars/Olympus",
                    pinnedKnown: false), alarm: "x"
            ).status == .fail)
    }

    @Test("the state directory: writable with room is ok; read-only, or under 10 MiB free, a warning")
    func storage() {
        let ok = CheckRules.storage(.init(directory: "/var/lib/alarm", writable: .yes, freeBytes: 3 << 30))
        #expect(ok == Check("storage", .ok, "/var/lib/alarm is writable, 3.0 GB free"))
        #expect(
            CheckRules.storage(.init(directory: "/s", writable: .no("Read-only file system"), freeBytes: 1 << 30))
                .status == .warning)
        let full = CheckRules.storage(.init(directory: "/s", writable: .yes, freeBytes: 4096))
        #expect(full.status == .warning && full.message.hasPrefix("only 4 kB free in /s"))
        #expect(
            CheckRules.storage(.init(directory: "/s", writable: .yes, freeBytes: nil, freeError: "statvfs: x")).status
                == .warning)
        let outsider = CheckRules.storage(
            .init(directory: "/s", writable: .notChecked("you may not write it"), freeBytes: 1 << 30))
        #expect(outsider.status == .ok && outsider.message.contains("not checked here"))
        #expect(CheckRules.bytes(850 * 1024 * 1024) == "850 MB")
    }

    // MARK: verdict, exit status, JSON

    @Test("the verdict is the worst status; exit 0, 1, 2")
    func verdict() {
        #expect(CheckReport.verdict([]) == .ok)
        #expect(CheckReport.verdict([.ok, .ok]) == .ok)
        #expect(CheckReport.verdict([.ok, .warning, .ok]) == .warning)
        #expect(CheckReport.verdict([.warning, .fail, .ok]) == .fail)
        #expect([CheckStatus.ok, .warning, .fail].map(\.exitCode) == [0, 1, 2])
        let r = CheckReport(
            alarm: "work", at: ring, zone: berlin, checks: [Check("daemon", .ok, "a"), Check("sound", .warning, "b")])
        #expect(r.verdict == .warning)
        #expect(r.problems == ["sound: b"])
        #expect(r["sound"]?.message == "b")
    }

    @Test("JSON: alarm, at (RFC 3339 in the alarm's zone), verdict, checks of name, status, message")
    func json() throws {
        let r = CheckReport(alarm: "work", at: ring, zone: berlin, checks: [Check("device", .fail, "none opens")])
        let o = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(r)) as? [String: Any])
        #expect(Set(o.keys) == ["alarm", "at", "verdict", "checks"])
        #expect(o["alarm"] as? String == "work")
        #expect(o["at"] as? String == "2026-11-23T06:30:00+01:00")
        #expect(o["verdict"] as? String == "fail")
        let checks = try #require(o["checks"] as? [[String: Any]])
        #expect(checks.count == 1 && Set(checks[0].keys) == ["name", "status", "message"])
        #expect(checks[0]["status"] as? String == "fail")
        let none = try #require(
            JSONSerialization.jsonObject(
                with: JSONEncoder().encode(
                    CheckReport(alarm: nil, at: nil, zone: berlin, checks: [CheckRules.noAlarm()]))) as? [String: Any])
        #expect(none["alarm"] is NSNull && none["at"] is NSNull && none["verdict"] as? String == "fail")
    }

    // MARK: when alarmd checks

    @Test(
        "pre-flight plan: from the lead before the ring, then every tenth of the lead (1 s to 1 min), never while ringing"
    )
    func plan() {
        let lead: TimeInterval = 600
        #expect(
            PreflightPlan.nextCheck(ring: ring, lead: lead, lastCheck: nil, ringing: false, now: now)
                == ring.addingTimeInterval(-600))
        let inside = ring.addingTimeInterval(-300)
        #expect(PreflightPlan.nextCheck(ring: ring, lead: lead, lastCheck: nil, ringing: false, now: inside) == inside)
        #expect(
            PreflightPlan.nextCheck(ring: ring, lead: lead, lastCheck: inside, ringing: false, now: inside)
                == inside.addingTimeInterval(60))
        #expect(
            PreflightPlan.nextCheck(
                ring: ring, lead: lead, lastCheck: ring.addingTimeInterval(-30), ringing: false,
                now: ring.addingTimeInterval(-20)) == nil)
        #expect(PreflightPlan.nextCheck(ring: ring, lead: lead, lastCheck: nil, ringing: true, now: inside) == nil)
        #expect(PreflightPlan.nextCheck(ring: ring, lead: 0, lastCheck: nil, ringing: false, now: inside) == nil)
        #expect(PreflightPlan.nextCheck(ring: nil, lead: lead, lastCheck: nil, ringing: false, now: inside) == nil)
        #expect(PreflightPlan.nextCheck(ring: ring, lead: lead, lastCheck: nil, ringing: false, now: ring) == nil)
        // A check made for an earlier window does not count for this one.
        #expect(
            PreflightPlan.nextCheck(
                ring: ring, lead: lead, lastCheck: ring.addingTimeInterval(-900), ringing: false, now: inside) == inside
        )
        #expect(PreflightPlan.recheckInterval(lead: 5) == 1)
        #expect(PreflightPlan.recheckInterval(lead: 20) == 2)
        #expect(PreflightPlan.recheckInterval(lead: 3600) == 60)
        #expect(PreflightPlan.inWindow(ring: ring, lead: lead, now: inside))
        #expect(!PreflightPlan.inWindow(ring: ring, lead: lead, now: now))
    }
}

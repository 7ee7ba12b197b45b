import AlarmCore
import Testing

/// Issue #30: what a bedside button's key events mean, on recorded event streams (the kernel's
/// `EV_KEY` values: 1 down, 0 up, 2 autorepeat; times in seconds).
@Suite("the button: short press snoozes, held stops, one command per press")
struct ButtonPressesTests {
    typealias E = ButtonPresses.KeyEvent

    /// Feeds `events`, ticking at every deadline that falls before the next event (as the reader's
    /// timer does), then ticks until nothing is due; the actions with the times they came at.
    func run(_ p: inout ButtonPresses, _ events: [E], until end: Double = 100) -> [(ButtonPresses.Action, Double)] {
        var out: [(ButtonPresses.Action, Double)] = []
        for e in events {
            while let d = p.deadline, d <= e.time {
                if let a = p.tick(d) { out.append((a, d)) }
            }
            if let a = p.handle(e) { out.append((a, e.time)) }
        }
        while let d = p.deadline, d <= end {
            if let a = p.tick(d) { out.append((a, d)) }
        }
        return out
    }

    func actions(_ events: [E], keys: Set<Int> = [], hold: Double = 2) -> [ButtonPresses.Action] {
        var p = ButtonPresses(keys: keys, hold: hold)
        return run(&p, events).map(\.0)
    }

    @Test("a short press snoozes once the key has stayed up for the settle time")
    func short() {
        var p = ButtonPresses(hold: 2)
        let got = run(&p, [E(code: 256, value: 1, time: 10), E(code: 256, value: 0, time: 10.3)])
        #expect(got.map(\.0) == [.snooze])
        #expect(abs(got[0].1 - 10.35) < 1e-9)
        #expect(p.deadline == nil)
    }

    @Test("held 2 s: stop at 2 s after the press, while still held, and nothing at the release")
    func held() {
        var p = ButtonPresses(hold: 2)
        let got = run(&p, [E(code: 28, value: 1, time: 5), E(code: 28, value: 0, time: 9)])
        #expect(got.map(\.0) == [.stop])
        #expect(got[0].1 == 7)
    }

    @Test("a bouncing contact makes one press: down, up and down within the settle time are one")
    func bounce() {
        let events = [
            E(code: 256, value: 1, time: 1.000), E(code: 256, value: 0, time: 1.004),
            E(code: 256, value: 1, time: 1.009),
            E(code: 256, value: 0, time: 1.200), E(code: 256, value: 1, time: 1.203),
            E(code: 256, value: 0, time: 1.206),
        ]
        #expect(actions(events) == [.snooze])
    }

    @Test("a press that bounces before it is held still stops once, from its first edge")
    func bounceThenHold() {
        var p = ButtonPresses(hold: 2)
        let got = run(
            &p,
            [
                E(code: 256, value: 1, time: 0), E(code: 256, value: 0, time: 0.01), E(code: 256, value: 1, time: 0.02),
                E(code: 256, value: 0, time: 3), E(code: 256, value: 1, time: 3.01), E(code: 256, value: 0, time: 3.02),
            ])
        #expect(got.map(\.0) == [.stop])
        #expect(got[0].1 == 2)
    }

    @Test("autorepeat events of a held key are neither presses nor releases")
    func repeats() {
        var events = [E(code: 115, value: 1, time: 0)]
        for k in 1...20 { events.append(E(code: 115, value: 2, time: 0.25 + Double(k) * 0.033)) }
        events.append(E(code: 115, value: 0, time: 1.0))
        #expect(actions(events) == [.snooze])
        events = [E(code: 115, value: 1, time: 0)]
        for k in 1...100 { events.append(E(code: 115, value: 2, time: 0.25 + Double(k) * 0.033)) }
        events.append(E(code: 115, value: 0, time: 3.6))
        #expect(actions(events) == [.stop])
    }

    @Test("two presses in a row: two snoozes; a short one after a held one snoozes")
    func sequence() {
        let events = [
            E(code: 1, value: 1, time: 0), E(code: 1, value: 0, time: 0.2),
            E(code: 1, value: 1, time: 1), E(code: 1, value: 0, time: 1.1),
            E(code: 1, value: 1, time: 5), E(code: 1, value: 0, time: 8),
            E(code: 1, value: 1, time: 9), E(code: 1, value: 0, time: 9.5),
        ]
        #expect(actions(events) == [.snooze, .snooze, .stop, .snooze])
    }

    @Test("button_keys: other keys do nothing, and do not disturb a press of the button")
    func keyFilter() {
        let events = [
            E(code: 30, value: 1, time: 0), E(code: 30, value: 0, time: 0.1),
            E(code: 256, value: 1, time: 1), E(code: 30, value: 1, time: 1.1), E(code: 30, value: 0, time: 1.2),
            E(code: 256, value: 0, time: 1.3),
        ]
        #expect(actions(events, keys: [256]) == [.snooze])
        #expect(actions(events, keys: [257]) == [])
        // Any key when none are named: the first key's press is the one that counts.
        #expect(actions(events) == [.snooze, .snooze])
    }

    @Test("a release seen late (the timer did not fire in time) still ends as held: stop, not snooze")
    func lateTick() {
        var p = ButtonPresses(hold: 2)
        #expect(p.handle(E(code: 1, value: 1, time: 0)) == nil)
        #expect(p.handle(E(code: 1, value: 0, time: 2.5)) == .stop)
        #expect(p.tick(10) == nil)
    }

    @Test("an up without a down, or a repeat out of nowhere, does nothing")
    func stray() {
        #expect(actions([E(code: 1, value: 0, time: 0), E(code: 1, value: 2, time: 0.1)]) == [])
    }

    @Test("button_hold 500ms: a press of 0.6 s stops")
    func shortHold() {
        #expect(actions([E(code: 1, value: 1, time: 0), E(code: 1, value: 0, time: 0.6)], hold: 0.5) == [.stop])
        #expect(actions([E(code: 1, value: 1, time: 0), E(code: 1, value: 0, time: 0.4)], hold: 0.5) == [.snooze])
    }

    @Test("key names and codes: button_keys takes KEY_ENTER, enter, 28, 0x100, BTN_0; refuses the rest")
    func keyNames() throws {
        #expect(KeyCodes.code("KEY_ENTER") == 28)
        #expect(KeyCodes.code("enter") == 28)
        #expect(KeyCodes.code("key_power") == 116)
        #expect(KeyCodes.code("BTN_0") == 256)
        #expect(KeyCodes.code("0x100") == 256)
        #expect(KeyCodes.code("28") == 28)
        #expect(KeyCodes.code("0") == nil)
        #expect(KeyCodes.code("KEY_NOPE") == nil)
        #expect(KeyCodes.name(of: 116) == "KEY_POWER")
        #expect(KeyCodes.name(of: 256) == "BTN_0")
        #expect(try KeyCodes.parseList("KEY_ENTER, 256 volumedown") == [28, 256, 114])
        #expect(try KeyCodes.parseList("any") == [])
        #expect(try KeyCodes.parseList("") == [])
        #expect(throws: AlarmError.self) { try KeyCodes.parseList("KEY_ENTER, banana") }
    }
}

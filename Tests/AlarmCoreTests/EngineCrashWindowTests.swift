import Foundation
import Testing

@testable import AlarmCore

/// Deterministic replays of what the reliability suite's kill -9 rounds found (issue #6): the
/// daemon performs an event's actions in order (`persistState` first, then `recordHistory` and
/// `removeAlarm`), so a crash right after `persistState` keeps the new state but loses the rest.
@Suite struct EngineCrashWindowTests {
    /// Applies `actions` up to and including the first `persistState`, as a daemon killed right
    /// after writing state.json would have; returns that state.
    func crashAfterPersist(
        _ actions: [EngineAction], store: inout [Alarm], history: inout [HistoryEntry]
    ) -> EngineState? {
        for a in actions {
            switch a {
            case .persistState(let s): return s
            case .recordHistory(let e): history.append(e)
            case .removeAlarm(let x): store.removeAll { $0.id == x.id }
            default: break
            }
        }
        return nil
    }

    func apply(_ actions: [EngineAction], store: inout [Alarm], history: inout [HistoryEntry]) {
        for a in actions {
            switch a {
            case .recordHistory(let e): history.append(e)
            case .removeAlarm(let x): store.removeAll { $0.id == x.id }
            default: break
            }
        }
    }

    @Test(
        "kill -9 right after the state is saved: a rung --in alarm still leaves the store, its ring still reaches history"
    )
    func crashBetweenPersistAndStore() throws {
        let utc = zone("UTC")
        let t = at("2026-11-22T07:00:00Z")
        let first = instantAlarm("first", t)
        let second = instantAlarm("second", t.addingTimeInterval(120))
        var store = [first, second]
        var history: [HistoryEntry] = []
        var settings = Rig.settings
        settings.ring = 120
        var engine = Engine(settings: settings)
        apply(
            engine.handle(.start(alarms: store, state: nil), now: t.addingTimeInterval(-10), zone: utc), store: &store,
            history: &history)
        // "first" rings; the daemon performs everything.
        apply(engine.handle(.timerFired, now: t, zone: utc), store: &store, history: &history)
        apply(
            engine.handle(.playbackStarted(sound: nil, reason: nil), now: t.addingTimeInterval(0.1), zone: utc),
            store: &store, history: &history)
        // At 120 s "first" is silenced (its ring length) and "second" rings, in one event; the
        // daemon is killed right after saving the state.
        let saved = crashAfterPersist(
            engine.handle(.timerFired, now: t.addingTimeInterval(120), zone: utc), store: &store, history: &history)
        // Restart from what was saved, with the store as it was left; then stop the ring.
        var again = Engine(settings: settings)
        apply(
            again.handle(.start(alarms: store, state: saved), now: t.addingTimeInterval(121), zone: utc), store: &store,
            history: &history)
        apply(again.handle(.stop, now: t.addingTimeInterval(130), zone: utc), store: &store, history: &history)
        apply(again.handle(.timerFired, now: t.addingTimeInterval(3600), zone: utc), store: &store, history: &history)
        #expect(store.isEmpty, "rung --in alarms still stored: \(store.map(\.id))")
        #expect(
            Set(history.map { $0.alarm ?? "-" }) == ["first", "second"],
            "history: \(history.map { "\($0.alarm ?? "-") \($0.outcome)" })")
    }
}

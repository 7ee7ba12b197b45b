import Foundation
import Testing

@testable import AlarmCore

/// Issue #11, last resort: what fallback_command did goes into the episode's history entry, and
/// the daemon can tell that it already ran in this episode.
@Suite("engine: fallback_command in history (issue #11)")
struct EngineFallbackTests {
    let utc = Zone.utc

    @Test("a failed ring records what the fallback command did; the key is absent when it did not run")
    func recorded() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 12)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(!rig.engine.fallbackRanInEpisode)
        rig.send(.playbackFailed(reason: "no sound device"))
        rig.send(.fallbackRan(note: "'buzz' started (pid 42)"))
        #expect(rig.engine.fallbackRanInEpisode, "it runs once per episode, not at every retry")
        rig.run(for: 1)
        rig.send(.fallbackRan(note: "'buzz' exited with status 0"))
        rig.run(until: at("2026-05-04T07:00:12Z"))
        let entry = try #require(rig.history.first)
        #expect(entry.outcome == .failed)
        #expect(entry.fallback == "'buzz' exited with status 0")
        let o = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
        #expect(o["fallback"] as? String == "'buzz' exited with status 0")
        let back = try JSONDecoder().decode(HistoryEntry.self, from: JSONEncoder().encode(entry))
        #expect(back.fallback == entry.fallback)

        var plain = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        plain.run(until: at("2026-05-04T07:00:00Z"))
        plain.played()
        plain.send(.stop)
        let first = try #require(plain.history.first)
        let p = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(first)) as? [String: Any])
        #expect(p["fallback"] == nil, "history lines without a fallback keep their keys")
    }

    @Test("after a snooze the next episode may run it again; a note after the episode ended changes nothing")
    func perEpisode() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.playbackFailed(reason: "no sound device"))
        rig.send(.fallbackRan(note: "'buzz' started (pid 42)"))
        rig.send(.snooze(60))
        #expect(!rig.engine.fallbackRanInEpisode)
        rig.send(.fallbackRan(note: "'buzz' exited with status 0"))
        #expect(rig.logged(.info, containing: "after the ring episode ended"))
        rig.run(for: 61)
        #expect(rig.ringingState == .ringing)
        #expect(!rig.engine.fallbackRanInEpisode, "a new episode starts without it")
        rig.send(.stop)
        #expect(rig.history.map(\.fallback) == ["'buzz' started (pid 42)", nil])
    }
}

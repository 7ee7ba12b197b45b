import Foundation
import Testing

@testable import AlarmCore

/// Issue #11: what the daemon did to the mixer (the volume floor) goes into the history of the
/// episode it did it in, and survives a restart with the ring state.
@Suite struct EngineMixerTests {
    let utc = zone("UTC")
    let note = "mixer 'Master' raised from 12 %, muted, to 50 %"

    /// `wake` ringing since 07:00, its sound playing, and the daemon has just raised the mixer
    /// (`note`); `last` holds the engine's answer to that.
    func ringingWithTheMixerRaised() throws -> Rig {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.played()
        rig.send(.mixerRaised(note))
        return rig
    }

    @Test func theNoteOfARaisedMixerIsInTheEpisodesHistory() throws {
        var rig = try ringingWithTheMixerRaised()
        #expect(
            rig.last.contains {
                if case .persistState(let s) = $0, case .ringing(let r) = s.ring { r.mixer == note } else { false }
            })
        rig.send(.stop, at: at("2026-05-04T07:00:30Z"))
        #expect(rig.history.map(\.mixer) == [note])
        #expect(rig.history.first?.outcome == .stopped)
    }

    @Test func aSnoozedEpisodeKeepsItsNoteAndTheNextStartsWithout() throws {
        var rig = try ringingWithTheMixerRaised()
        rig.send(.snooze(5), at: at("2026-05-04T07:00:10Z"))
        rig.run(until: at("2026-05-04T07:00:15Z"))
        rig.played()
        rig.send(.stop, at: at("2026-05-04T07:00:20Z"))
        #expect(rig.history.map(\.outcome) == [.snoozed, .stopped])
        #expect(rig.history.map(\.mixer) == [note, nil])
    }

    @Test func theNoteSurvivesACrashAndEndsUpInHistory() throws {
        var rig = try ringingWithTheMixerRaised()
        // Down for longer than the ring length: the episode ends at the next start.
        rig.restart(at: at("2026-05-04T07:30:00Z"))
        #expect(rig.history.count == 1)
        #expect(rig.history.first?.mixer == note)
        #expect(rig.history.first?.outcome == .silenced)
    }

    @Test func aRingResumedAfterACrashDoesNotRepeatTheNote() throws {
        var rig = try ringingWithTheMixerRaised()
        rig.restart(at: at("2026-05-04T07:00:05Z"))
        #expect(rig.rings.count == 2, "the ring resumes")
        rig.played()
        rig.send(.mixerRaised(note))
        rig.send(.mixerRaised("mixer 'PCM' raised from 10 % to 50 %"))
        rig.send(.stop, at: at("2026-05-04T07:00:20Z"))
        #expect(rig.history.map(\.mixer) == [note + "; mixer 'PCM' raised from 10 % to 50 %"])
    }

    @Test func aNoteWhileIdleIsIgnored() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let before = rig.engine.state
        rig.send(.mixerRaised(note))
        #expect(rig.engine.state.ring == before.ring)
        #expect(rig.history.isEmpty)
    }

    @Test func historyJSONHasTheMixerKeyOnlyWhenTheMixerWasRaised() throws {
        let plain = HistoryEntry(
            alarm: "wake", scheduled: at("2026-05-04T07:00:00Z"), started: nil, ended: nil, outcome: .stopped,
            sound: "default", reason: nil, late: false, zone: utc)
        var raised = plain
        raised.mixer = note
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        let plainKeys = try #require(try JSONSerialization.jsonObject(with: e.encode(plain)) as? [String: Any]).keys
            .sorted()
        #expect(plainKeys == ["alarm", "ended", "late", "outcome", "reason", "scheduled", "sound", "started"])
        let raisedObject = try #require(try JSONSerialization.jsonObject(with: e.encode(raised)) as? [String: Any])
        #expect(raisedObject["mixer"] as? String == note)
        #expect(try JSONDecoder().decode(HistoryEntry.self, from: e.encode(raised)).mixer == note)
        #expect(try JSONDecoder().decode(HistoryEntry.self, from: e.encode(plain)).mixer == nil)
    }
}

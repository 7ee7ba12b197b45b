import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// Issue #11: `alarm check` opens each device of the chain without a sound (the card's mixer is
/// read through AlsaMixer, tested in AlsaMixerTests).
@Suite("PCMProbe (issue #11)")
struct ProbeTests {
    @Test("alsa-lib's null PCM opens and is no card; a card that does not exist fails with alsa-lib's reason")
    func pcm() {
        let null = PCMProbe.probe("null", channels: 2, rate: 44_100)
        #expect(null.outcome == .opens && null.error == nil)
        #expect(null.card == nil)
        let gone = PCMProbe.probe("hw:99", channels: 1, rate: 48_000)
        #expect(gone.outcome == .fails)
        #expect(gone.error?.operation == "snd_pcm_open")
        #expect(gone.error.map { "\($0)" }?.hasPrefix("ALSA device 'hw:99': snd_pcm_open failed") == true)
        #expect(PCMProbe.probe("no_such_pcm_name", channels: 1, rate: 48_000).outcome == .fails)
    }
}

import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// Issue #11: `alarm check` opens each device of the chain without a sound and reads the card's
/// playback mixer. Serialized: the mixer test points this process's alsa-lib at a PulseAudio server.
@Suite("PCMProbe and MixerProbe (issue #11)", .serialized)
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

    @Test("the mixer as PulseAudio's ALSA control plugin shows it: volume in percent and mute, as pactl set them")
    func mixer() throws {
        let sink = try PulseNullSink(sinkName: "alarmmixer")
        defer { sink.shutdown() }
        sink.exportToThisProcess()
        defer { for key in sink.environment.keys where key != "HOME" { unsetenv(key) } }
        func pactl(_ args: String...) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
            p.arguments = args
            p.environment = ProcessInfo.processInfo.environment.merging(sink.environment) { $1 }
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "pactl \(args)")
        }
        try pactl("set-sink-volume", "alarmmixer", "30%")
        try pactl("set-sink-mute", "alarmmixer", "1")
        let muted = try #require(try MixerProbe.read(device: "pulse", control: nil))
        #expect(muted.control == "Master")
        #expect(abs(muted.percent - 30) <= 1, "\(muted)")
        #expect(muted.muted)
        try pactl("set-sink-volume", "alarmmixer", "75%")
        try pactl("set-sink-mute", "alarmmixer", "0")
        let loud = try #require(try MixerProbe.read(device: "pulse", control: "Master"))
        #expect(abs(loud.percent - 75) <= 1 && !loud.muted, "\(loud)")
        #expect(try MixerProbe.read(device: "pulse", control: "Speaker") == nil, "no control of that name")
        #expect(throws: AlsaError.self) { try MixerProbe.read(card: 99, control: nil) }
    }
}

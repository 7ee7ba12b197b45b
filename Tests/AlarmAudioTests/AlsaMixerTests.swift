import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// alsa-lib's simple mixer API on a real mixer without a sound card: the `pulse` control device
/// (Debian's libasound2-plugins) is the volume and mute of a PulseAudio null sink, which `pactl`
/// reads and sets independently. Serialized: the sink's address is exported to this process.
@Suite("AlsaMixer on PulseAudio's ALSA control plugin", .serialized)
struct AlsaMixerTests {
    /// A null sink set to `percent` % and muted or not, exported to this process.
    final class Sink {
        let pulse: PulseNullSink
        init(percent: Int, muted: Bool) throws {
            pulse = try PulseNullSink(sinkName: "alarmmixer")
            try pulse.setLevel(percent: percent, muted: muted)
            pulse.exportToThisProcess()  // last: nothing may throw between this and close()
        }

        func state() throws -> (percent: Int, muted: Bool) { try pulse.level() }

        func close() {
            pulse.unexportFromThisProcess()
            pulse.shutdown()
        }
    }

    @Test("Master of 'pulse' read at 5 % muted, raised to the floor, put back: pactl sees each step")
    func raiseAndRestore() throws {
        let sink = try Sink(percent: 5, muted: true)
        defer { sink.close() }
        let before = try AlsaMixer.read(device: "pulse", control: nil)
        #expect(before.control == "Master" && before.device == "pulse")
        #expect(before.percent == 5 && before.muted)
        let target = try #require(before.raised(toFloor: 50))
        try AlsaMixer.write(target)
        let raised = try sink.state()
        #expect(raised.percent >= 50 && !raised.muted, "pactl after the raise: \(raised)")
        let reread = try AlsaMixer.read(device: "pulse", control: "Master")
        #expect(reread.percent >= 50 && !reread.muted)
        #expect(MixerLevel.describeRaise(from: before, to: reread) == "mixer 'Master' raised from 5 %, muted, to 50 %")
        try AlsaMixer.write(before)
        let back = try sink.state()
        #expect(back.percent == 5 && back.muted, "pactl after putting it back: \(back)")
        #expect(try AlsaMixer.read(device: "pulse", control: nil) == before)
    }

    @Test("a control that is not there, and a mixer that does not open, say which and what there is")
    func errors() throws {
        let sink = try Sink(percent: 80, muted: false)
        defer { sink.close() }
        #expect(try AlsaMixer.levels(device: "pulse").map(\.control) == ["Master"])
        #expect(try AlsaMixer.read(device: "pulse", control: "master").control == "Master", "names match ignoring case")
        #expect {
            try AlsaMixer.read(device: "pulse", control: "Speaker")
        } throws: { error in
            "\(error)" == "the mixer of 'pulse' has no playback volume control 'Speaker' (it has: 'Master')"
        }
        #expect {
            try AlsaMixer.read(device: "hw:CARD=NoSuchCard", control: nil)
        } throws: { error in
            "\(error)".hasPrefix("the mixer of 'hw:CARD=NoSuchCard' cannot be opened: ")
        }
    }

    @Test("probe opens a PCM without playing: null and pulse open, an unknown name does not")
    func probe() throws {
        let sink = try Sink(percent: 80, muted: false)
        defer { sink.close() }
        let rec = try sink.pulse.record()
        #expect(AlsaDevices.probe("null").opens)
        let pulse = AlsaDevices.probe("pulse")
        #expect(pulse.opens && pulse.card == nil)
        let bad = AlsaDevices.probe("nosuchpcm")
        #expect(!bad.opens)
        #expect(bad.error?.description.contains("'nosuchpcm'") == true)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(rec.stop().allSatisfy { $0 == 0 }, "the probe made no sound")
    }
}

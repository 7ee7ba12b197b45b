import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// A sound server that hangs (here: the PulseAudio server frozen with SIGSTOP; its socket still
/// accepts, nothing answers). alsa-lib's `pulse` PCM then waits for ever: in `snd_pcm_open`, and
/// in `snd_pcm_drop` once it stopped taking audio. Such a call once held the ring (silent, with
/// nothing reported) and `stop()` with it, and through `stop()` alarmd's main loop. Now each
/// device plays on its own thread: the call is given up after `stallSeconds`, the ring goes on
/// with the next device, `stop()` returns, and the device is used again once the call returns.
@Suite("A sound server that hangs holds neither the ring nor stop() (PulseAudio, frozen)", .serialized)
struct HungServerTests {
    static let rate = 48_000
    let clip = AudioClip(
        samples: Signal.sine(frequency: 440, rate: 48_000, channels: 1, frames: 2 * 48_000),
        channels: 1, sampleRate: 48_000)

    @Test(
        "frozen mid-ring: the stall and the hung snd_pcm_drop are given up, the next device plays, stop returns; thawed: pulse plays again"
    )
    func frozenMidRing() throws {
        try withExportedSink("alarmhung") { sink in
            let rec = try sink.record()
            let lines = LogLines()
            let player = AlarmPlayer(devices: ["pulse", "null"], log: { lines.add($0) })
            let failures = LogLines()
            let first = Box<PlaybackStarted>()
            player.start(clip, onFirstFrame: { first.set($0) }, onFailure: { failures.add($0) })
            try #require(rec.waitForSound() != nil, "nothing reached the sink: \(lines.all)")
            #expect(first.get()?.device == "pulse")

            sink.freeze()
            #expect(
                waitUntil(timeout: 20, poll: 0.005) {
                    lines.all.contains { $0.contains("took no audio for 3 s (stalled)") }
                }, "\(lines.all)")
            #expect(
                waitUntil(timeout: 20, poll: 0.005) {
                    lines.all.contains { $0.contains("'pulse': snd_pcm_drop failed: no return for 3 s") }
                }, "\(lines.all)")
            #expect(AlarmPlayer.hungDevices == ["pulse"])
            #expect(player.isRinging, "the ring goes on, on the next device")
            #expect(failures.all.isEmpty, "a device of the chain plays: no failure to report: \(failures.all)")
            let t0 = ContinuousClock.now
            let summary = player.stop()
            let took = ContinuousClock.now - t0
            #expect(took < .seconds(2), "stop took \(took)")
            #expect(summary.stoppedByCaller)
            #expect(summary.device == "null", "the ring went on with 'null': \(summary)")

            // While pulse is hung, the next ring skips it at once and plays on the next device.
            let second = Box<PlaybackStarted>()
            player.start(clip, onFirstFrame: { second.set($0) })
            #expect(waitUntil(timeout: 2, poll: 0.005) { second.get() != nil }, "\(lines.all)")
            #expect(second.get()?.device == "null")
            #expect(
                lines.all.contains { $0.contains("an earlier call has not returned") && $0.contains("skipping it") },
                "\(lines.all)")
            player.stop()

            // Thawed: the call left behind returns, and pulse plays and is heard again.
            sink.thaw()
            #expect(waitUntil(timeout: 20, poll: 0.005) { AlarmPlayer.hungDevices.isEmpty }, "\(lines.all)")
            #expect(lines.all.contains { $0.contains("'pulse': snd_pcm_drop returned at last") }, "\(lines.all)")
            let third = Box<PlaybackStarted>()
            let mark = rec.count
            player.start(clip, onFirstFrame: { third.set($0) })
            #expect(waitUntil(timeout: 10, poll: 0.005) { third.get() != nil })
            #expect(third.get()?.device == "pulse")
            #expect(rec.waitForSound(from: mark) != nil, "heard again after the thaw")
            player.stop()
        }
    }

    @Test(
        "frozen before the ring: snd_pcm_open is given up and the next device plays; the only device: the failure is reported, stop returns"
    )
    func frozenBeforeOpen() throws {
        try withExportedSink("alarmhungopen") { sink in
            sink.freeze()
            let lines = LogLines()
            let player = AlarmPlayer(devices: ["pulse", "null"], log: { lines.add($0) })
            // An open is given more time than the other calls (6 s by default: a sound server
            // may take seconds to set up a stream).
            #expect(player.openSeconds == 6)
            let first = Box<PlaybackStarted>()
            let began = ContinuousClock.now
            player.start(clip, onFirstFrame: { first.set($0) })
            #expect(
                waitUntil(timeout: 20, poll: 0.005) { first.get() != nil }, "no frame on the next device: \(lines.all)")
            #expect(ContinuousClock.now - began > .seconds(5.5), "given up before its 6 s")
            #expect(first.get()?.device == "null")
            #expect(
                lines.all.contains { $0.contains("'pulse': snd_pcm_open failed: no return for 6 s") }, "\(lines.all)")
            player.stop()

            // A chain of the hung device alone: nothing plays; that is reported once, with the reason,
            // the ring keeps retrying, and stop still returns.
            let alone = AlarmPlayer(devices: ["pulse"], log: { lines.add($0) })
            let failures = LogLines()
            alone.start(clip, onFailure: { failures.add($0) })
            #expect(waitUntil(timeout: 15, poll: 0.005) { !failures.all.isEmpty }, "\(lines.all)")
            #expect(
                failures.all.first?.contains("no return for") == true
                    || failures.all.first?.contains("has not returned") == true,
                "\(failures.all)")
            let t0 = ContinuousClock.now
            #expect(alone.stop().stoppedByCaller)
            #expect(ContinuousClock.now - t0 < .seconds(2))
            #expect(failures.all.count == 1, "said once per ring: \(failures.all)")
            sink.thaw()
            #expect(waitUntil(timeout: 20, poll: 0.005) { AlarmPlayer.hungDevices.isEmpty }, "\(lines.all)")
        }
    }

    @Test(
        "a probe of a device that hangs (alarm check, the pre-flight) fails after its timeout and says why; then at once, until the call returns"
    )
    func probeOfAHungServer() throws {
        try withExportedSink("alarmhungprobe") { sink in
            #expect(PCMProbe.probe("pulse", channels: 1, rate: 48_000).opens)
            sink.freeze()
            var t0 = ContinuousClock.now
            let hung = PCMProbe.probe("pulse", channels: 1, rate: 48_000, timeout: 2)
            #expect(ContinuousClock.now - t0 < .seconds(4))
            #expect(hung.outcome == .fails)
            #expect(
                hung.error?.description
                    == "ALSA device 'pulse': snd_pcm_open failed: no return for 2 s (the device or its sound server hangs)"
            )
            t0 = ContinuousClock.now
            let again = PCMProbe.probe("pulse", channels: 1, rate: 48_000, timeout: 2)
            #expect(ContinuousClock.now - t0 < .milliseconds(500), "no second thread left waiting on it")
            #expect(again.error?.text.contains("an earlier call has not returned") == true, "\(again)")
            sink.thaw()
            #expect(waitUntil(timeout: 20, poll: 0.005) { AlarmPlayer.hungDevices.isEmpty })
            #expect(PCMProbe.probe("pulse", channels: 1, rate: 48_000).opens)
        }
    }
}

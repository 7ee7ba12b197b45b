import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

@Suite("AlarmPlayer without a working device")
struct PlayerTests {
    @Test("keeps retrying every device while ringing, logs alsa-lib's text, and stops at once")
    func retriesUntilStopped() throws {
        let lines = LogLines()
        let player = AlarmPlayer(devices: ["nosuch-one", "nosuch-two"], log: { lines.add($0) })
        player.retrySeconds = 0.2
        player.start(DefaultTone.clip())
        func tries(_ device: String) -> Int {
            lines.all.filter { $0.contains("ALSA device '\(device)': snd_pcm_open failed: No such file or directory") }
                .count
        }
        // Three rounds of both devices, each logged (every 0.2 s; a loaded machine may take longer).
        #expect(waitUntil(timeout: 10) { tries("nosuch-one") >= 3 && tries("nosuch-two") >= 3 }, "\(lines.all)")
        #expect(player.isRinging, "it keeps trying while the alarm should ring")
        let t0 = ContinuousClock.now
        let summary = player.stop()
        #expect(ContinuousClock.now - t0 < .milliseconds(100))
        #expect(!player.isRinging)
        #expect(summary.framesWritten == 0)
        #expect(summary.stoppedByCaller)
    }

    @Test("playOnce throws the device error when nothing opens")
    func playOnceFails() {
        let player = AlarmPlayer(devices: ["nosuch"], log: { _ in })
        #expect(throws: AlsaError.self) { try player.playOnce(DefaultTone.clip()) }
    }

    @Test("the fallback list is the configured device, then default, without repeats")
    func fallbackList() {
        let list = AlarmPlayer.fallbackList(configured: "hw:5,0")
        #expect(Array(list.prefix(2)) == ["hw:5,0", "default"])
        #expect(AlarmPlayer.fallbackList(configured: "default").filter { $0 == "default" }.count == 1)
        #expect(AlarmPlayer(device: nil, environment: ["ALARM_DEVICE": "pulse"]).devices.first == "pulse")
        #expect(AlarmPlayer(device: "x", environment: ["ALARM_DEVICE": "pulse"]).devices.first == "x")
        #expect(AlarmPlayer(device: nil, environment: [:]).devices.first == "default")
    }

    @Test("loudness: volume is a share of amplitude; fade rises linearly", arguments: [(100.0, 0.0), (50.0, 2.0)])
    func loudness(volume: Double, fade: Double) {
        let l = Loudness(volumePercent: volume, fadeIn: fade)
        let full = Float(volume / 100)
        #expect(l.gain(atFrame: 10 * 48_000, rate: 48_000) == full)
        if fade > 0 {
            #expect(l.gain(atFrame: 0, rate: 48_000) == 0)
            #expect(abs(l.gain(atFrame: 48_000, rate: 48_000) - full / 2) < 1e-6)
        }
        #expect(Loudness(volumePercent: 250).volumePercent == 100)
        #expect(Loudness(volumePercent: -3).volumePercent == 0)
    }
}

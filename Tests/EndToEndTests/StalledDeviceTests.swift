import AlarmTestSupport
import Foundation
import Testing

/// A device that opens and then takes no audio (here: the PulseAudio sink suspended, as a sound
/// server that stopped reading leaves it) once kept a ring silent for as long as it rang, with
/// no error to act on. The player now gives such a device up after a few seconds like a failed
/// one: the chain, the fallback command and the retries take over, and the ring is heard once
/// the device takes audio again.
@Suite("a stalled device does not keep a ring silent (PulseAudio null sink)", .serialized)
struct StalledDeviceTests {
    @Test("suspended sink: the stall is reported, fallback_command runs; resumed: the ring is heard; stop: silence")
    func suspendedSink() throws {
        let root = NSTemporaryDirectory() + "alarm-stall-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let ran = root + "/fallback-ran"
        let h = try DaemonHarness(config: "ring = 60s\nfallback_command = echo \"$ALARM_REASON\" > '\(ran)'\n")
        defer { h.shutdown() }
        try h.start()
        _ = try h.pulse.pactl("suspend-sink", h.pulse.sinkName, "1")
        #expect(try h.cli("ring").status == 0, "\(h.log)")
        #expect(h.wait(20) { h.log.contains("took no audio for 3 s (stalled)") }, "the stall was not noticed: \(h.log)")
        #expect(h.wait(20) { FileManager.default.fileExists(atPath: ran) }, "fallback_command did not run: \(h.log)")
        #expect(
            h.wait(10) { ((try? String(contentsOfFile: ran, encoding: .utf8)) ?? "").contains("stalled") },
            "ALARM_REASON names the stall: \((try? String(contentsOfFile: ran, encoding: .utf8)) ?? "")")
        #expect(h.status()?["state"] as? String == "ringing", "the ring goes on while nothing can be heard")

        // The server reads again: a retry plays the ring, and it is heard.
        _ = try h.pulse.pactl("suspend-sink", h.pulse.sinkName, "0")
        let mark = h.recorder.count
        let heard = h.recorder.waitForSound(from: mark, timeout: 30)
        #expect(heard != nil, "nothing was heard after the sink came back: \(h.log)")
        #expect(try h.cli("stop").status == 0)
        // The second second of recording after the stop is silent (the first may still hold
        // sound in flight). Waited for by the recording, which may lag the sink.
        let atStop = h.recorder.count
        try #require(h.wait(10) { h.recorder.count >= atStop + 2 * h.rate }, "\(h.recordingDiagnosis)")
        let tail = h.recorder.samples[(atStop + h.rate)..<(atStop + 2 * h.rate)]
        #expect(tail.allSatisfy { abs(Int($0)) < 300 }, "silence after stop")
    }
}

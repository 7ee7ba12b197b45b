import AlarmTestSupport
import Foundation
import Testing

/// Issue #11, pre-roll, with the real alarmd on the PulseAudio null sink: the next ring is
/// prepared ahead and starts at its instant; a change before the instant is obeyed.
@Suite("issue #11: pre-roll (end to end)", .serialized)
struct PrerollEndToEndTests {
    func harness() throws -> DaemonHarness {
        let h = try DaemonHarness(config: "ring = 30s\n")
        try Recording.writeSineWAV(path: h.soundsDir + "/a440.wav", frequency: 440, seconds: 1.5)
        try Recording.writeSineWAV(path: h.soundsDir + "/a880.wav", frequency: 880, seconds: 1.5)
        try h.start()
        return h
    }

    @Test("the next ring is pre-rolled and its first frame goes out at the instant")
    func preRolledRingStartsAtTheInstant() throws {
        let h = try harness()
        defer { h.shutdown() }
        let added = try h.cli("add", "--in", "4s", "--id", "pre", "--sound", "a440.wav")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(h.wait(15) { h.log.contains("pre-rolled pre for") }, "\(h.log)")
        #expect(h.wait(15) { h.log.contains("ringing pre with a440.wav (pre-rolled)") }, "\(h.log)")
        let onset = try #require(h.recorder.waitForSound(timeout: 10), "nothing was heard: \(h.log)")
        // Half a second of it recorded before the stop, for the tone below.
        #expect(h.wait(10) { h.recorder.count >= onset + h.rate / 2 }, "\(h.recordingDiagnosis)")
        _ = try h.cli("stop")
        #expect(h.wait(10) { h.history().contains { $0.string("alarm") == "pre" } })
        let entry = try #require(h.history().first { $0.string("alarm") == "pre" })
        let started = try #require(entry.string("started").flatMap(parseRFC3339))
        let scheduled = try #require(entry.string("scheduled").flatMap(parseRFC3339))
        // Generous: the point is that it did not wait for a decode and a device open after the
        // timer (the benchmark prints the real figures).
        #expect(started >= scheduled && started.timeIntervalSince(scheduled) < 0.5, "\(entry)")
        #expect(entry.string("sound") == "a440.wav")
        #expect(entry["late"] as? Bool == false)
        let samples = h.recorder.samples
        let start = try #require(Recording.firstSound(samples, threshold: 1000))
        let window = samples[start..<min(samples.count, start + h.rate / 2)]
        #expect(Recording.dominant(window, among: [440, 880], rate: h.rate) == 440)
    }

    @Test("an alarm removed after its pre-roll, before its instant, does not ring")
    func removedAfterPrerollStaysSilent() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "4s", "--id", "gone", "--sound", "a440.wav").status == 0)
        #expect(h.wait(15) { h.log.contains("pre-rolled gone for") }, "\(h.log)")
        let mark = h.recorder.count
        #expect(try h.cli("remove", "gone").status == 0)
        Thread.sleep(forTimeInterval: 5)
        #expect(Recording.firstSound(h.recorder.samples, from: mark, threshold: 1000) == nil, "it rang: \(h.log)")
        #expect(h.history().isEmpty)
        #expect((h.status()?["state"] as? String) == "idle")
    }

    @Test("a sound changed after the pre-roll rings the new sound")
    func editedAfterPrerollRingsTheNewSound() throws {
        let h = try harness()
        defer { h.shutdown() }
        let at = ISO8601DateFormatter().string(
            from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 5).rounded(.up)))
        #expect(try h.cli("add", "--at", at, "--id", "edit", "--sound", "a440.wav").status == 0)
        #expect(h.wait(15) { h.log.contains("pre-rolled edit for") }, "\(h.log)")
        let mark = h.recorder.count
        #expect(try h.cli("add", "--at", at, "--id", "edit", "--sound", "a880.wav").status == 0)
        #expect(
            h.wait(15) { h.history().contains { $0.string("alarm") == "edit" } || h.log.contains("ringing edit with") })
        let onset = try #require(h.recorder.waitForSound(from: mark, timeout: 10), "nothing was heard: \(h.log)")
        // Half a second of it recorded before the stop, for the tone below.
        #expect(h.wait(10) { h.recorder.count >= onset + h.rate / 2 }, "\(h.recordingDiagnosis)")
        _ = try h.cli("stop")
        let samples = h.recorder.samples
        let start = try #require(Recording.firstSound(samples, from: mark, threshold: 1000))
        let window = samples[start..<min(samples.count, start + h.rate / 2)]
        #expect(Recording.dominant(window, among: [440, 880], rate: h.rate) == 880, "\(h.log)")
    }
}

import AlarmAudio
import CSndfile
import AlarmTestSupport
import Foundation
import Testing

/// Stop means silence now, on a paced device: a PulseAudio null sink, recorded in real time.
/// Serialized: these start servers and point this process's alsa-lib `pulse` PCM at one.
@Suite("Stop is silence within 100 ms (PulseAudio null sink)", .serialized)
struct StopSilenceTests {
    static let rate = 48_000

    /// Waits until the recording holds `seconds` of samples after index `mark`. parec delivers
    /// late on a loaded machine: a fixed 1.5 s sleep once left only 20 samples after the sound,
    /// and the check for a second of silence failed though the sound had stopped at once.
    /// Waits until `seconds` more have been recorded after `mark`; when they do not come, says
    /// why (the recorder or the server gone, the server's log) instead of a bare count later.
    func waitForRecording(_ rec: PulseRecorder, seconds: Double, after mark: Int, sink: PulseNullSink) {
        let came = waitUntil(timeout: 20, poll: 0.005) { rec.count - mark >= Int(seconds * Double(Self.rate)) }
        #expect(
            came,
            "parec delivered \(rec.count - mark) samples in 20 s after the stop (parec \(rec.isRunning ? "running" : "gone"); \(sink.diagnosis))"
        )
    }

    /// Index of the last sample that is not exactly zero.
    func lastSound(_ s: [Int16]) -> Int? { s.lastIndex { $0 != 0 } }

    /// A running `alarm play long.wav --loop` (10 s of 440 Hz) on the sink's `pulse` PCM, its
    /// stderr on a pipe, the sink recorded from before it started; `sounds` holds the file.
    struct LoopingPlay {
        let process: Process
        let stderr: Pipe
        let recorder: PulseRecorder
        let sounds: TempDir
        /// Its standard error; read once it has exited.
        var errors: String { String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    }

    func playLoop(on sink: PulseNullSink) throws -> LoopingPlay {
        let sounds = TempDir()
        try Fixture.write(
            sounds.file("long.wav"),
            samples: Signal.sine(frequency: 440, rate: Self.rate, channels: 1, frames: 10 * Self.rate),
            channels: 1, rate: Self.rate, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let rec = try sink.record()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Subprocess.executable("alarm"))
        p.arguments = ["play", "long.wav", "--loop", "--device", "pulse", "--sounds-dir", sounds.path]
        p.environment = ProcessInfo.processInfo.environment.merging(sink.environment) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return LoopingPlay(process: p, stderr: err, recorder: rec, sounds: sounds)
    }

    @Test("AlarmPlayer.stop() drops the buffer: the sink is silent right after it returns")
    func playerStop() throws {
        let sink = try PulseNullSink(sinkName: "alarmstop")
        defer { sink.shutdown() }
        sink.exportToThisProcess()
        // The export is process-wide: undo it, or later tests' `default` PCM goes to a dead server.
        defer { sink.unexportFromThisProcess() }
        let rec = try sink.record()
        let clip = AudioClip(
            samples: Signal.sine(frequency: 440, rate: Self.rate, channels: 1, frames: 5 * Self.rate),
            channels: 1, sampleRate: Self.rate)
        let lines = LogLines()
        let player = AlarmPlayer(device: "pulse", log: { lines.add($0) })
        let started = Box<PlaybackStarted>()
        player.start(clip) { started.set($0) }
        let soundAt = rec.waitForSound()
        try #require(soundAt != nil, "no sound reached the sink; log: \(lines.all)")
        #expect(started.get()?.device == "pulse")
        Thread.sleep(forTimeInterval: 1.0)  // mid-clip: the clip is 5 s long
        let t0 = ContinuousClock.now
        let summary = player.stop()
        let stopTook = ContinuousClock.now - t0
        let atStop = rec.count
        #expect(summary.stoppedByCaller)
        #expect(!player.isRinging)
        waitForRecording(rec, seconds: 1.5, after: atStop, sink: sink)
        let s = rec.stop()
        let last = try #require(lastSound(s))
        let after = Double(last - atStop) / Double(Self.rate)
        print(
            "stop(): returned in \(stopTook); sound in the recording ended \(String(format: "%.3f", after)) s after stop returned; then \(String(format: "%.2f", Double(s.count - last) / Double(Self.rate))) s of zeros"
        )
        // `after` also holds parec's own delay in delivering samples, which grows on a loaded
        // machine (0.37 s seen with the whole suite running in parallel); the player's part is
        // bounded by `stopTook` below and its 50 ms buffer.
        #expect(after < 0.5, "sound went on \(after) s after stop")
        #expect(s.count - last > Self.rate, "at least 1 s of exact silence recorded after the sound")
        #expect(Double(last - soundAt!) / Double(Self.rate) > 0.8, "it was ringing before the stop")
        #expect(stopTook < .milliseconds(100))
    }

    @Test("alarm play --loop stops on SIGTERM with silence right away, exit 0")
    func cliStop() throws {
        let sink = try PulseNullSink(sinkName: "alarmcli")
        defer { sink.shutdown() }
        let play = try playLoop(on: sink)
        let (p, rec) = (play.process, play.recorder)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let soundAt = rec.waitForSound()
        try #require(soundAt != nil, "no sound reached the sink")
        Thread.sleep(forTimeInterval: 1.0)
        let t0 = ContinuousClock.now
        let atStop = rec.count
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        let exitTook = ContinuousClock.now - t0
        waitForRecording(rec, seconds: 1.5, after: atStop, sink: sink)
        let s = rec.stop()
        let stderr = play.errors
        #expect(p.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("ringing 'long.wav' on pulse"))
        let last = try #require(lastSound(s))
        let after = Double(last - atStop) / Double(Self.rate)
        print(
            "alarm play --loop: exited \(exitTook) after SIGTERM; sound ended \(String(format: "%.3f", after)) s after the signal"
        )
        // As above: `after` includes parec's delivery delay on a loaded machine.
        #expect(after < 0.5, "sound went on \(after) s after SIGTERM")
        #expect(s.count - last > Self.rate)
    }
}

extension StopSilenceTests {
    /// The player frozen with a full buffer. What is promised: the sound resumes, and when the
    /// device reports the underrun (EPIPE, to the write or the wait that comes first after the
    /// player resumes) it is logged and recovered. PulseAudio's `pulse` PCM reports it by timing
    /// only (in 4 of 5 runs; before the wait's EPIPE was logged, the log showed it in 2 of 3): that
    /// it is always reported, logged and recovered is checked on snd-aloop, a device that always
    /// reports it, in the system test's guests (scenario crash).
    @Test("an underrun (player frozen for 1.5 s): the sound resumes; a reported EPIPE is logged and recovered")
    func underrun() throws {
        let sink = try PulseNullSink(sinkName: "alarmxrun")
        defer { sink.shutdown() }
        let play = try playLoop(on: sink)
        let (p, rec) = (play.process, play.recorder)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        try #require(rec.waitForSound() != nil, "no sound reached the sink")
        Thread.sleep(forTimeInterval: 0.5)
        kill(p.processIdentifier, SIGSTOP)
        // Frozen long enough that PulseAudio's underflow reaches the client before it resumes,
        // even on a loaded machine (0.5 s was not always: CI once resumed with no EPIPE).
        Thread.sleep(forTimeInterval: 1.5)
        // The buffer (50 ms) has run dry: the sink records silence now.
        let frozenAt = rec.count
        Thread.sleep(forTimeInterval: 0.3)
        let silent = rec.samples[frozenAt...].allSatisfy { $0 == 0 }
        kill(p.processIdentifier, SIGCONT)
        let resumed = rec.waitForSound(from: rec.count, timeout: 10)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        _ = rec.stop()
        let stderr = play.errors
        #expect(silent, "the frozen player should leave the sink silent")
        #expect(resumed != nil, "sound resumed after the underrun")
        let failures = stderr.split(separator: "\n").filter { $0.contains("failed") }
        print("underrun: \(failures.isEmpty ? "the device reported none" : "\(failures)")")
        // Each underrun the device reports is one line; a player resumed on a slow machine may
        // run dry once more while it refills (the arm64 suite under qemu-user on a loaded machine
        // logged two, each recovered: 252798c's CI). A recovery that does not recover leaves the
        // sink silent (`resumed`, above); one that loops logs a line per buffer, past this bound.
        #expect(failures.count <= 3, "\(stderr)")
        #expect(
            failures.allSatisfy {
                $0 == "alarm: ALSA device 'pulse': snd_pcm_writei failed: Broken pipe; recovering"
                    || $0 == "alarm: ALSA device 'pulse': snd_pcm_wait failed: Broken pipe; recovering"
            }, "\(stderr)")
        #expect(p.terminationStatus == 0)
    }
}

final class Box<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) {
        lock.lock()
        value = v
        lock.unlock()
    }
    func get() -> T? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ l: String) {
        lock.lock()
        lines.append(l)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

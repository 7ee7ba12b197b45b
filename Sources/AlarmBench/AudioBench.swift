import AlarmAudio
import Foundation

/// Sound-path benchmarks: how long validating and decoding a 30 s stereo 48 kHz clip takes, and
/// how much CPU ringing costs.
enum AudioBench {
    static func run() {
        print("== audio ==")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alarm-bench-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        // 30.0 s, stereo, 48 kHz: the longest clip that still plays.
        guard
            shell([
                "sox", "-n", "-r", "48000", "-c", "2", "-b", "16", dir + "/clip.wav", "synth", "30", "sine", "440",
                "sine", "660", "vol", "0.5",
            ])
        else {
            print("sox is needed to make the benchmark clip (scripts/deps)")
            return
        }
        _ = shell(["sndfile-convert", "-pcm24", dir + "/clip.wav", dir + "/clip.aiff"])
        _ = shell(["sndfile-convert", "-float32", dir + "/clip.wav", dir + "/clip.caf"])
        _ = shell(["sndfile-convert", "-alac16", dir + "/clip.wav", dir + "/alac.caf"])
        _ = shell(["sox", dir + "/clip.wav", "-e", "ima-adpcm", dir + "/ima.wav"])
        let lib = SoundLibrary(directories: [dir])
        for name in ["clip.wav", "clip.aiff", "clip.caf", "alac.caf", "ima.wav"] {
            var times: [Double] = []
            var last: SoundInspection?
            for _ in 0..<5 {
                let t0 = ContinuousClock.now
                last = lib.inspect(name)
                times.append(seconds(ContinuousClock.now - t0))
            }
            times.sort()
            let i = last!
            let fmt = i.format.map { "\($0.container.rawValue) \($0.format)" } ?? "?"
            print(
                String(
                    format: "validate+decode 30 s stereo 48 kHz %-9@ (%@): median %.1f ms, min %.1f ms, playable: %@",
                    name, fmt, times[2] * 1000, times[0] * 1000, i.playable ? "yes" : "no \(i.problem!)"))
        }

        // Ringing: loop a clip through alsa-lib into the unpaced `null` PCM, so the CPU cost of
        // rendering and writing N seconds of audio is measured in far less wall time. Divided by N
        // it is the share of one core that ringing takes on a real (paced) device.
        let clip = lib.choose("clip.wav").clip
        let audioSeconds = 120.0
        let player = AlarmPlayer(device: "null", log: { print("  log: \($0)") })
        let before = cpuSeconds()
        let t0 = ContinuousClock.now
        player.start(clip, loudness: Loudness(volumePercent: 70, fadeIn: 30), maxDuration: audioSeconds)
        let summary = player.waitUntilDone()
        let wall = seconds(ContinuousClock.now - t0)
        let cpu = cpuSeconds() - before
        let played = Double(summary.framesWritten) / Double(clip.sampleRate)
        print(
            String(
                format:
                    "ringing (stereo 48 kHz, volume + fade, looped, ALSA 'null'): %.0f s of audio in %.2f s wall, %.3f s CPU → %.3f%% of one core while ringing",
                played, wall, cpu, played > 0 ? cpu / played * 100 : .nan))
        pacedRinging(clip)
    }

    /// Ringing on a real-time device: when `PULSE_SERVER` points at a PulseAudio server, ring on
    /// the `pulse` PCM for `wall` seconds of wall time and report the CPU share measured.
    static func pacedRinging(_ clip: AudioClip, wall: Double = 5) {
        guard ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil else {
            print("ringing on a paced device: skipped (set PULSE_SERVER to a PulseAudio server to measure)")
            return
        }
        let player = AlarmPlayer(devices: ["pulse"], log: { print("  log: \($0)") })
        let before = cpuSeconds()
        let t0 = ContinuousClock.now
        player.start(clip, loudness: Loudness(volumePercent: 70, fadeIn: 2))
        Thread.sleep(forTimeInterval: wall)
        let summary = player.stop()
        let elapsed = seconds(ContinuousClock.now - t0)
        let cpu = cpuSeconds() - before
        print(
            String(
                format:
                    "ringing on 'pulse' (paced): %.2f s wall, %.1f s of audio written, %.3f s CPU → %.2f%% of one core (alsa-lib + pulse client included)",
                elapsed, Double(summary.framesWritten) / Double(clip.sampleRate), cpu, cpu / elapsed * 100))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// User + system CPU time of this process. The corresponding C function is `getrusage`.
    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(
            u.ru_stime.tv_usec) / 1e6
    }

    @discardableResult
    static func shell(_ argv: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

import AlarmAudio
import CSndfile
import Foundation
import Testing

/// `alarm play` through real alsa-lib into the `file` plugin; the recording is decoded and checked.
@Suite("Playback through alsa-lib (file plugin)")
struct PlaybackTests {
    struct Played {
        var result: Subprocess.Result
        var recording: AudioClip?
    }

    /// Plays with `alarm play <args> --device recplug --sounds-dir <sounds>` and reads the recording.
    func play(
        _ args: [String], sounds: TempDir, device: String? = "recplug", recordDefault: Bool = false
    ) throws -> Played {
        let rec = FilePluginDevice(recordDefault: recordDefault)
        var argv = [try Subprocess.executable("alarm"), "play"] + args + ["--sounds-dir", sounds.path]
        if let device { argv += ["--device", device] }
        let r = try Subprocess.run(argv, environment: rec.environment)
        let clip = try? SoundDecoder.inspect(path: rec.wavPath, name: "recording").result.get()
        return Played(result: r, recording: clip)
    }

    func writeSine(
        _ dir: TempDir, _ name: String, seconds: Double, rate: Int = 44_100, channels: Int = 1, frequency: Double = 440
    ) throws -> [Float] {
        let s = Signal.sine(frequency: frequency, rate: rate, channels: channels, frames: Int(seconds * Double(rate)))
        try Fixture.write(
            dir.file(name), samples: s, channels: channels, rate: rate, format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT))
        return s
    }

    @Test("a good clip is recorded whole: its frequency, length and samples")
    func goodClip() throws {
        let sounds = TempDir()
        let ref = try writeSine(sounds, "tone.wav", seconds: 1, channels: 2)
        let p = try play(["tone.wav"], sounds: sounds)
        #expect(p.result.status == 0, "\(p.result.stderr)")
        #expect(p.result.stdout.contains("played 'tone.wav' on recplug"))
        let rec = try #require(p.recording, "no recording; stderr: \(p.result.stderr)")
        #expect(rec.channels == 2 && rec.sampleRate == 44_100)
        #expect(rec.frameCount == 44_100)
        #expect(abs(Signal.zeroCrossingFrequency(rec.channel(0), rate: 44_100) - 440) < 1)
        #expect(abs(Signal.zeroCrossingFrequency(rec.channel(1), rate: 44_100) - 660) < 1)
        #expect(Signal.maxAbsError(rec.samples, ref) <= 2.0 / 32768)
    }

    @Test(
        "the shipped sounds, and the fixtures' other containers of them, play through ALSA",
        arguments: [
            "chime.flac", "beacon.flac", "sunrise.flac", "chime.wav", "chime.caf", "chime-ima4.caf", "beacon.aiff",
            "beacon.wav", "sunrise.caf", "sunrise.aiff",
        ])
    func shipped(name: String) throws {
        // The package ships each sound once, as FLAC (Sounds/); scripts/make-sounds writes the same
        // sounds as WAV, AIFF, CAF and IMA4 CAF into Tests/Fixtures/Sounds, which decode to the
        // FLAC's samples (IMA4, lossy, is compared with its own decoding only).
        let shippedDir = try #require(SoundLibrary.installedSoundsDirectory())
        let dir =
            name.hasSuffix(".flac")
            ? shippedDir
            : URL(fileURLWithPath: shippedDir).deletingLastPathComponent().appendingPathComponent(
                "Tests/Fixtures/Sounds"
            )
            .path
        let want = try SoundLibrary(directories: [dir]).choose(name).clip
        #expect(SoundLibrary(directories: [dir]).choose(name).problem == nil)
        if !name.hasSuffix(".flac") && !name.contains("ima4") {
            let stem = String(name[..<(name.lastIndex(of: ".") ?? name.endIndex)])
            let flac = try SoundLibrary(directories: [shippedDir]).choose(stem + ".flac")
            #expect(flac.problem == nil && flac.clip == want, "\(name) is not \(stem).flac")
        }
        let rec = FilePluginDevice()
        let r = try Subprocess.run(
            [try Subprocess.executable("alarm"), "play", name, "--sounds-dir", dir, "--device", "recplug"],
            environment: rec.environment)
        #expect(r.status == 0, "\(r.stderr)")
        let got = try SoundDecoder.inspect(path: rec.wavPath, name: "rec").result.get()
        #expect(got.frameCount == want.frameCount)
        #expect(Signal.maxAbsError(got.samples, want.samples) <= 2.0 / 32768)
    }

    /// Each way a sound can fail, as the user would meet it.
    static let badCases: [(String, String)] = [
        ("long.wav", "is 30.5 s long; clips over 30 s are not played"),
        ("empty.wav", "is empty"),
        ("noise.wav", "not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file"),
        ("cut.wav", "is truncated"),
        ("billions.wav", "announces 4294967280 bytes"),
        ("../outside.wav", "contains '/'"),
        ("escape.wav", "outside its sound directory"),
        ("missing.wav", "was not found"),
    ]

    @Test("each kind of bad sound plays the default tone and says why on stderr")
    func badSounds() throws {
        let root = TempDir()
        let sounds = TempDir()
        _ = try writeSine(sounds, "long.wav", seconds: 30.5, rate: 8_000)
        sounds.write("empty.wav", [])
        sounds.write("noise.wav", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        _ = try writeSine(sounds, "good.wav", seconds: 0.5, rate: 8_000)
        let good = sounds.bytes("good.wav")
        sounds.write("cut.wav", Array(good.prefix(40)))
        var huge = good
        let dataAt = try #require((0..<huge.count - 4).first { huge[$0..<$0 + 4].elementsEqual("data".utf8) })
        huge.replaceSubrange((dataAt + 4)..<(dataAt + 8), with: [0xF0, 0xFF, 0xFF, 0xFF])
        sounds.write("billions.wav", huge)
        _ = try writeSine(root, "outside.wav", seconds: 0.5)
        try FileManager.default.createSymbolicLink(
            atPath: sounds.file("escape.wav"), withDestinationPath: root.file("outside.wav"))

        let tone = DefaultTone.clip()
        for (name, reason) in Self.badCases {
            let p = try play([name], sounds: sounds)
            #expect(p.result.status == 0, "\(name): \(p.result.stderr)")
            #expect(p.result.stderr.contains(reason), "\(name): stderr was \(p.result.stderr)")
            #expect(p.result.stderr.contains("playing the default tone instead"), "\(name)")
            #expect(p.result.stdout.contains("played the default tone"), "\(name)")
            let rec = try #require(p.recording, "\(name): nothing recorded")
            #expect(rec.sampleRate == 48_000 && rec.frameCount == tone.frameCount, "\(name)")
            #expect(Signal.maxAbsError(rec.samples, tone.samples) <= 2.0 / 32768, "\(name): not the default tone")
            let f = Signal.zeroCrossingFrequency(Array(rec.samples[0..<4_800]), rate: 48_000)
            #expect(abs(f - 880) < 5, "\(name): \(f) Hz")
        }
    }

    @Test("--default plays the 880 Hz default tone")
    func defaultFlag() throws {
        let p = try play(["--default"], sounds: TempDir())
        #expect(p.result.status == 0)
        #expect(p.result.stderr.isEmpty, "\(p.result.stderr)")
        let rec = try #require(p.recording)
        #expect(Signal.maxAbsError(rec.samples, DefaultTone.clip().samples) <= 2.0 / 32768)
    }

    @Test("volume scales the recorded level", arguments: [50, 25])
    func volume(percent: Int) throws {
        let sounds = TempDir()
        let ref = try writeSine(sounds, "tone.wav", seconds: 0.5, rate: 48_000)
        let p = try play(["tone.wav", "--volume", String(percent)], sounds: sounds)
        let rec = try #require(p.recording, "\(p.result.stderr)")
        let scaled = ref.map { $0 * Float(percent) / 100 }
        #expect(Signal.maxAbsError(rec.samples, scaled) <= 2.0 / 32768)
        #expect(abs(Double(Signal.peak(rec.samples[...])) - 0.5 * Double(percent) / 100) < 0.002)
    }

    @Test("fade-in rises linearly from silence to full volume")
    func fadeIn() throws {
        let sounds = TempDir()
        _ = try writeSine(sounds, "tone.wav", seconds: 2, rate: 48_000, frequency: 500)
        let p = try play(["tone.wav", "--fade-in", "1", "--volume", "80"], sounds: sounds)
        let rec = try #require(p.recording, "\(p.result.stderr)")
        #expect(rec.frameCount == 96_000)
        // Peak over 10 ms windows (5 periods of 500 Hz) against 0.5 × 0.8 × min(1, t / 1 s).
        for t in [0.0, 0.1, 0.25, 0.5, 0.75, 0.99, 1.2, 1.9] {
            let start = Int(t * 48_000)
            let peak = Double(Signal.peak(rec.samples[start..<(start + 480)]))
            let want = 0.4 * min(1, (t + 0.01) / 1)
            #expect(abs(peak - want) < 0.01, "at \(t) s: peak \(peak), want about \(want)")
        }
    }

    @Test("--loop repeats the clip with a half-second pause; --max-seconds bounds it")
    func loop() throws {
        let sounds = TempDir()
        let ref = try writeSine(sounds, "tone.wav", seconds: 1, rate: 8_000)
        let p = try play(["tone.wav", "--loop", "--max-seconds", "3"], sounds: sounds)
        #expect(p.result.status == 0, "\(p.result.stderr)")
        let rec = try #require(p.recording, "\(p.result.stderr)")
        #expect(rec.frameCount == 24_000)
        #expect(Signal.maxAbsError(Array(rec.samples[0..<8_000]), ref) <= 2.0 / 32768)
        #expect(Signal.peak(rec.samples[8_000..<12_000]) == 0)
        #expect(Signal.maxAbsError(Array(rec.samples[12_000..<20_000]), ref) <= 2.0 / 32768)
        #expect(Signal.peak(rec.samples[20_000..<24_000]) == 0)
    }

    @Test("a missing device falls back to 'default', logging alsa-lib's error text")
    func fallback() throws {
        let sounds = TempDir()
        let ref = try writeSine(sounds, "tone.wav", seconds: 0.5)
        let p = try play(["tone.wav"], sounds: sounds, device: "nosuchdevice", recordDefault: true)
        #expect(p.result.status == 0, "\(p.result.stderr)")
        #expect(
            p.result.stderr.contains("ALSA device 'nosuchdevice': snd_pcm_open failed: No such file or directory"),
            "\(p.result.stderr)")
        #expect(p.result.stdout.contains("on default"))
        let rec = try #require(p.recording)
        #expect(Signal.maxAbsError(rec.samples, ref) <= 2.0 / 32768)
    }

    @Test(
        "bad arguments give a clear error and a non-zero exit",
        arguments: [
            (["--volume", "150", "--default"], "--volume must be between 0 and 100"),
            ([], "give a sound name"),
            (["x.wav", "--default"], "not both"),
            (["x.wav", "--max-seconds", "2"], "--max-seconds goes with --loop"),
        ])
    func badArguments(args: [String], message: String) throws {
        let p = try play(args, sounds: TempDir())
        #expect(p.result.status != 0)
        #expect(p.result.stderr.contains(message), "\(p.result.stderr)")
        #expect(p.recording == nil, "nothing should play")
    }
}

@Suite("alarm sounds")
struct SoundsCommandTests {
    @Test("--json lists every file with name, playable, duration and reason (null when playable)")
    func json() throws {
        let dir = TempDir()
        try Fixture.write(
            dir.file("ok.caf"), samples: Signal.sine(frequency: 440, rate: 8_000, channels: 2, frames: 12_000),
            channels: 2, rate: 8_000, format: Int32(SF_FORMAT_CAF | SF_FORMAT_ALAW))
        dir.write("bad.wav", Array("RIFF....WAVEfmt ".utf8))
        try Fixture.write(
            dir.file("long.aiff"), samples: [Float](repeating: 0, count: 8_000 * 31), channels: 1, rate: 8_000,
            format: Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16))
        let r = try Subprocess.run([try Subprocess.executable("alarm"), "sounds", "--json", "--sounds-dir", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: array.map { ($0["name"] as! String, $0) })
        #expect(Set(byName.keys) == ["ok.caf", "bad.wav", "long.aiff"])
        let ok = try #require(byName["ok.caf"])
        #expect(ok["playable"] as? Bool == true)
        #expect(ok["reason"] is NSNull)
        #expect(ok["duration"] as? Double == 1.5)
        #expect(ok["container"] as? String == "CAF" && ok["format"] as? String == "a-law")
        #expect(ok["channels"] as? Int == 2 && ok["rate"] as? Int == 8_000)
        let long = try #require(byName["long.aiff"])
        #expect(long["playable"] as? Bool == false)
        #expect(long["duration"] as? Double == 31)
        #expect(long["reason"] as? String == "'long.aiff' is 31.0 s long; clips over 30 s are not played")
        let bad = try #require(byName["bad.wav"])
        #expect(bad["playable"] as? Bool == false)
        #expect(bad["duration"] is NSNull)
        #expect((bad["reason"] as? String)?.contains("truncated") == true)
    }

    @Test("the table names the container, format, channels, rate, duration and why not")
    func table() throws {
        let dir = TempDir()
        try Fixture.write(
            dir.file("ok.wav"), samples: [Float](repeating: 0.1, count: 16_000), channels: 1, rate: 16_000,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24))
        dir.write(".hidden.wav", [])
        dir.write("empty.caf", [])
        let r = try Subprocess.run([try Subprocess.executable("alarm"), "sounds", "--sounds-dir", dir.path])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(r.stdout)")
        #expect(
            lines.contains {
                $0.hasPrefix("ok.wav") && $0.contains("WAV") && $0.contains("PCM s24") && $0.contains("16000")
                    && $0.contains("1.00 s") && $0.hasSuffix("yes")
            })
        #expect(lines.contains { $0.hasPrefix("empty.caf") && $0.hasSuffix("no: sound 'empty.caf' is empty") })
    }
}

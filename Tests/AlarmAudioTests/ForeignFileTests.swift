import AlarmAudio
import CSndfile
import Foundation
import Testing

/// Sound files written by other programs (issue #11, "Every real sound file"), made at test time
/// by the real ffmpeg, sox and espeak-ng (scripts/deps installs them) and decoded by alarm.
enum Made {
    /// ffmpeg's 1 s sine at 440 Hz, 44.1 kHz (amplitude 1/8).
    static let ffmpeg = "ffmpeg -nostdin -v error -f lavfi -i sine=frequency=440:duration=1:sample_rate=44100"
    /// The same sine in two channels (440 Hz and 660 Hz, as `Signal.sine` makes them), amplitude 1/2.
    static let ffmpegStereo =
        "ffmpeg -nostdin -v error -f lavfi -i 'aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*660*t):d=1:s=44100'"
    /// sox's 1 s sine at 440 Hz, 16-bit, no dither (so two runs write the same samples).
    static func sox(rate: Int = 44_100, bits: Int = 16, frequency: Double = 440, output: String) -> String {
        "sox -D -n -r \(rate) -b \(bits) \(output) synth 1 sine \(frequency) vol 0.5"
    }

    /// Runs `script` with bash (`pipefail` on), `{OUT}` and `{REF}` replaced by paths in `dir`.
    /// Fails with a hint when one of the programs is missing.
    static func run(_ script: String, in dir: TempDir, out: String, ref: String = "ref.wav") throws {
        for tool in ["ffmpeg", "sox", "espeak-ng", "sndfile-convert"] where script.contains(tool) {
            guard (try? Fixture.run(["sh", "-c", "command -v \(tool)"])) != nil else {
                throw Fixture.Failed(description: "\(tool) is not installed: run scripts/deps")
            }
        }
        let full = script.replacingOccurrences(of: "{OUT}", with: "'\(dir.file(out))'")
            .replacingOccurrences(of: "{REF}", with: "'\(dir.file(ref))'")
        try Fixture.run(["bash", "-c", "set -euo pipefail; " + full])
    }

    /// True when the writer left its sizes as placeholders, as a program writing to a pipe must:
    /// WAV/AIFF outer size not the file's, an RF64 'ds64' left at zero, a CAF 'data' of size -1.
    static func hasPlaceholderSizes(_ b: [UInt8]) -> Bool {
        guard b.count > 44 else { return false }
        func le32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        switch String(decoding: b[0..<4], as: UTF8.self) {
        case "RIFF": return le32(4) + 8 != b.count
        case "RIFX", "FORM": return be32(4) + 8 != b.count
        case "RF64": return b[20..<36].allSatisfy { $0 == 0 }  // ds64 RIFF and data sizes
        case "caff":
            guard let at = (8..<(b.count - 12)).first(where: { b[$0..<$0 + 4].elementsEqual("data".utf8) }) else {
                return false
            }
            return b[(at + 4)..<(at + 12)].allSatisfy { $0 == 0xFF }
        default: return false
        }
    }

    static func decode(_ dir: TempDir, _ name: String) -> SoundInspection {
        SoundDecoder.inspect(path: dir.file(name), name: name)
    }
}

/// A file a program wrote to a pipe, and the same program writing the same audio to a file.
struct PipeCase: CustomTestStringConvertible, Sendable {
    var label: String
    var ext: String
    /// Writes to stdout; piped through `cat`, so the writer sees a pipe and cannot seek back.
    var toPipe: String
    /// Writes the same audio to `{OUT}`, a regular file.
    var toFile: String
    var frames: ClosedRange<Int>
    var frequency: Double? = 440
    var testDescription: String { label }
}

let pipeCases: [PipeCase] = {
    let ff = Made.ffmpeg
    let ffFrames = 44_100...44_100
    return [
        PipeCase(
            label: "espeak-ng --stdout WAV", ext: "wav", toPipe: "espeak-ng --stdout 'Good morning'",
            toFile: "espeak-ng -w {OUT} 'Good morning'", frames: 11_025...88_200, frequency: nil),
        PipeCase(
            label: "ffmpeg WAV to a pipe", ext: "wav", toPipe: "\(ff) -f wav pipe:", toFile: "\(ff) -f wav {OUT}",
            frames: ffFrames),
        PipeCase(
            label: "ffmpeg RF64 WAV to a pipe", ext: "wav", toPipe: "\(ff) -rf64 always -f wav pipe:",
            toFile: "\(ff) -rf64 always -f wav {OUT}", frames: ffFrames),
        PipeCase(
            label: "ffmpeg AIFF to a pipe", ext: "aiff", toPipe: "\(ff) -f aiff pipe:", toFile: "\(ff) -f aiff {OUT}",
            frames: ffFrames),
        PipeCase(
            label: "ffmpeg AIFF-C ima4 to a pipe", ext: "aifc", toPipe: "\(ff) -c:a adpcm_ima_qt -f aiff pipe:",
            toFile: "\(ff) -c:a adpcm_ima_qt -f aiff {OUT}", frames: 44_100...44_163),
        PipeCase(
            label: "ffmpeg CAF s16 to a pipe (data size -1)", ext: "caf", toPipe: "\(ff) -f caf pipe:",
            toFile: "\(ff) -f caf {OUT}", frames: ffFrames),
        PipeCase(
            label: "ffmpeg CAF s24 to a pipe", ext: "caf", toPipe: "\(ff) -c:a pcm_s24be -f caf pipe:",
            toFile: "\(ff) -c:a pcm_s24be -f caf {OUT}", frames: ffFrames),
        PipeCase(
            label: "ffmpeg CAF float32 to a pipe", ext: "caf", toPipe: "\(ff) -c:a pcm_f32be -f caf pipe:",
            toFile: "\(ff) -c:a pcm_f32be -f caf {OUT}", frames: ffFrames),
        PipeCase(
            label: "ffmpeg CAF µ-law to a pipe", ext: "caf", toPipe: "\(ff) -c:a pcm_mulaw -f caf pipe:",
            toFile: "\(ff) -c:a pcm_mulaw -f caf {OUT}", frames: ffFrames),
        PipeCase(
            label: "ffmpeg CAF Apple IMA4 to a pipe", ext: "caf", toPipe: "\(ff) -c:a adpcm_ima_qt -f caf pipe:",
            toFile: "\(ff) -c:a adpcm_ima_qt -f caf {OUT}", frames: 44_100...44_163),
        PipeCase(
            label: "sox WAV to a pipe", ext: "wav", toPipe: Made.sox(output: "-t wav -"),
            toFile: Made.sox(output: "-t wav {OUT}"), frames: ffFrames),
        PipeCase(
            label: "sox RIFX WAV to a pipe", ext: "wav", toPipe: Made.sox(output: "-B -t wav -"),
            toFile: Made.sox(output: "-B -t wav {OUT}"), frames: ffFrames),
        PipeCase(
            label: "sox AIFF to a pipe", ext: "aiff", toPipe: Made.sox(output: "-t aiff -"),
            toFile: Made.sox(output: "-t aiff {OUT}"), frames: ffFrames),
        PipeCase(
            label: "sox AIFF-C to a pipe", ext: "aifc", toPipe: Made.sox(output: "-t aifc -"),
            toFile: Made.sox(output: "-t aifc {OUT}"), frames: ffFrames),
    ]
}()

/// A file in a form alarm refused before issue #11, and a reference for its audio (the same
/// program writing plain PCM WAV, or ffmpeg decoding the file itself).
struct FormCase: CustomTestStringConvertible, Sendable {
    var label: String
    var ext: String
    var make: String
    /// Writes `{REF}`, a plain PCM WAV of the same audio.
    var reference: String
    var channels = 1
    var rate = 44_100
    var expectedFormat: String
    var maxError: Float = 0
    var testDescription: String { label }
}

let formCases: [FormCase] = {
    let ff = Made.ffmpeg
    return [
        FormCase(
            label: "RF64 WAV (ffmpeg -rf64 always)", ext: "wav", make: "\(ff) -rf64 always {OUT}",
            reference: "\(ff) {REF}", expectedFormat: "PCM s16 (RF64)"),
        FormCase(
            label: "RIFX WAV 16-bit (sox -B)", ext: "wav", make: Made.sox(rate: 48_000, output: "-B -t wav {OUT}"),
            reference: Made.sox(rate: 48_000, output: "-L -t wav {REF}"), rate: 48_000, expectedFormat: "PCM s16 (RIFX)"
        ),
        FormCase(
            label: "RIFX WAV 24-bit (sox -B)", ext: "wav",
            make: Made.sox(rate: 48_000, bits: 24, output: "-B -t wav {OUT}"),
            reference: Made.sox(rate: 48_000, bits: 24, output: "-L -t wav {REF}"), rate: 48_000,
            expectedFormat: "PCM s24 (RIFX)"),
        FormCase(
            label: "ALAC 16-bit in CAF (ffmpeg)", ext: "caf", make: "\(ff) -c:a alac {OUT}",
            reference: "ffmpeg -nostdin -v error -i {OUT} -c:a pcm_s16le {REF}", expectedFormat: "ALAC 16"),
        FormCase(
            label: "ALAC 24-bit in CAF (ffmpeg)", ext: "caf", make: "\(ff) -c:a alac -sample_fmt s32p {OUT}",
            reference: "ffmpeg -nostdin -v error -i {OUT} -c:a pcm_s24le {REF}", expectedFormat: "ALAC 24",
            maxError: 1e-6),
        FormCase(
            label: "ALAC stereo in CAF (ffmpeg)", ext: "caf", make: "\(Made.ffmpegStereo) -c:a alac {OUT}",
            reference: "ffmpeg -nostdin -v error -i {OUT} -c:a pcm_s24le {REF}", channels: 2, expectedFormat: "ALAC 24",
            maxError: 1e-6),
    ]
}()

@Suite("Sound files written by other programs (issue #11)")
struct ForeignFileTests {
    func expectSine(
        _ clip: AudioClip, _ frequency: Double, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for c in 0..<clip.channels {
            let want = frequency * (c == 0 ? 1 : 1.5)
            let f = Signal.zeroCrossingFrequency(clip.channel(c), rate: clip.sampleRate, threshold: 0.05)
            #expect(
                abs(f - want) < want * 0.005, "\(label) channel \(c): \(f) Hz, want \(want)",
                sourceLocation: sourceLocation)
        }
    }

    @Test(
        "written to a pipe with placeholder sizes: plays, the same audio as the program writes to a file",
        arguments: pipeCases)
    func pipe(_ c: PipeCase) throws {
        let dir = TempDir()
        try Made.run("\(c.toPipe) | cat > {OUT}", in: dir, out: "pipe.\(c.ext)")
        try Made.run(c.toFile, in: dir, out: "file.\(c.ext)")
        #expect(
            Made.hasPlaceholderSizes(dir.bytes("pipe.\(c.ext)")),
            "\(c.label): the writer filled in its sizes; the case tests nothing")
        #expect(
            !Made.hasPlaceholderSizes(dir.bytes("file.\(c.ext)")),
            "\(c.label): the file written to disk has placeholders")
        let piped = Made.decode(dir, "pipe.\(c.ext)")
        let clip = try #require(try? piped.result.get(), "\(c.label): \(String(describing: piped.problem))")
        let file = try #require(
            try? Made.decode(dir, "file.\(c.ext)").result.get(), "\(c.label): the file version does not play")
        #expect(c.frames.contains(clip.frameCount), "\(c.label): \(clip.frameCount) frames")
        #expect(
            clip == file,
            "\(c.label): the pipe's audio differs from the file's (\(clip.frameCount) vs \(file.frameCount) frames)")
        if let f = c.frequency { expectSine(clip, f, c.label) }
    }

    @Test("RF64, RIFX and ffmpeg's ALAC in CAF play, sample for sample as their PCM references", arguments: formCases)
    func forms(_ c: FormCase) throws {
        let dir = TempDir()
        try Made.run(c.make, in: dir, out: "x.\(c.ext)")
        try Made.run(c.reference, in: dir, out: "x.\(c.ext)")
        let inspection = Made.decode(dir, "x.\(c.ext)")
        let clip = try #require(try? inspection.result.get(), "\(c.label): \(String(describing: inspection.problem))")
        let ref = try Made.decode(dir, "ref.wav").result.get()
        #expect(inspection.format?.format == c.expectedFormat, "\(c.label): \(String(describing: inspection.format))")
        #expect(clip.channels == c.channels && clip.sampleRate == c.rate)
        #expect(clip.frameCount == c.rate, "\(c.label): \(clip.frameCount) frames, want \(c.rate)")
        #expect(clip.frameCount == ref.frameCount)
        #expect(
            Signal.maxAbsError(clip.samples, ref.samples) <= c.maxError,
            "\(c.label): max error \(Signal.maxAbsError(clip.samples, ref.samples))")
        expectSine(clip, 440, c.label)
    }

    @Test(
        "clips under 4000 Hz are resampled to a rate ALSA's plug layer takes, same length and pitch, no images",
        arguments: [(1_000, 8_000), (2_000, 8_000), (3_000, 9_000)])
    func lowRates(rate: Int, playedAt: Int) throws {
        let dir = TempDir()
        let frequency = Double(rate) / 8
        try Made.run(Made.sox(rate: rate, frequency: frequency, output: "{OUT}"), in: dir, out: "low.wav")
        let inspection = Made.decode(dir, "low.wav")
        let clip = try #require(try? inspection.result.get(), "\(String(describing: inspection.problem))")
        #expect(inspection.format?.sampleRate == rate, "the listing shows the file's own rate")
        #expect(clip.sampleRate == playedAt && clip.channels == 1)
        #expect(clip.frameCount == playedAt, "1 s at \(playedAt) Hz")
        #expect(abs(inspection.duration! - 1) < 1e-9)
        expectSine(clip, frequency, "\(rate) Hz")
        // Away from the edges, the samples are the band-limited sine itself.
        let ideal = (0..<clip.frameCount).map { Float(0.5 * sin(2 * .pi * frequency * Double($0) / Double(playedAt))) }
        let middle = (playedAt / 10)..<(clip.frameCount - playedAt / 10)
        #expect(Signal.maxAbsError(Array(clip.samples[middle]), Array(ideal[middle])) < 0.005)
        // The upsampling images (rate − f, rate + f) are suppressed, not played.
        let at = { (f: Double) in Signal.goertzel(clip.samples[middle], frequency: f, rate: playedAt) }
        #expect(at(Double(rate) - frequency) < 1e-4 * at(frequency))
        #expect(at(Double(rate) + frequency) < 1e-4 * at(frequency))
    }

    @Test("the resampler keeps a constant constant and leaves a clip at 8000 Hz or more alone")
    func resamplerBasics() {
        let flat = AudioClip(samples: [Float](repeating: 0.25, count: 2_000 * 2), channels: 2, sampleRate: 2_000)
        let up = Resampler.upsample(flat, by: 4)
        #expect(up.frameCount == 8_000 && up.sampleRate == 8_000 && up.channels == 2)
        // 16 input frames at each end see the silence beyond the clip's edge.
        #expect(
            Signal.maxAbsError(
                Array(up.samples[(16 * 4 * 2)..<(up.samples.count - 16 * 4 * 2)]),
                [Float](repeating: 0.25, count: up.samples.count - 256)) < 1e-6)
        #expect(
            Resampler.factor(for: 2_000) == 4 && Resampler.factor(for: 3_000) == 3 && Resampler.factor(for: 8_000) == 1)
        #expect(Resampler.upsample(flat, by: 1) == flat)
    }

    /// (label, command writing {OUT}, extension, codec name the reason gives)
    static let unplayable: [(String, String, String, String)] = [
        ("MP3 in WAV", "\(Made.ffmpeg) -c:a libmp3lame -f wav {OUT}", "wav", "MP3"),
        ("GSM 6.10 in WAV", "\(Made.ffmpeg) -ar 8000 -c:a libgsm_ms {OUT}", "wav", "GSM 6.10"),
        ("G.726 in WAV", "\(Made.ffmpeg) -ar 8000 -c:a g726 {OUT}", "wav", "G.726"),
        ("Yamaha ADPCM in WAV", "\(Made.ffmpeg) -c:a adpcm_yamaha {OUT}", "wav", "Yamaha ADPCM"),
        ("G.722 in WAV", "\(Made.ffmpeg) -ar 16000 -c:a g722 {OUT}", "wav", "G.722"),
        ("Opus in CAF", "\(Made.ffmpeg) -ar 48000 -c:a libopus {OUT}", "caf", "Opus"),
        ("FLAC in CAF", "\(Made.ffmpeg) -c:a flac {OUT}", "caf", "FLAC"),
        ("MP3 in CAF", "\(Made.ffmpeg) -c:a libmp3lame {OUT}", "caf", "MP3"),
        ("AC-3 in CAF", "\(Made.ffmpeg) -c:a ac3 {OUT}", "caf", "AC-3"),
        (
            "GSM 6.10 in AIFF-C", Made.sox(rate: 8_000, output: "{REF}") + " && sndfile-convert -gsm610 {REF} {OUT}",
            "aifc", "GSM 6.10"
        ),
    ]

    @Test(
        "a valid file in a codec alarm does not play is \"not supported\" (kind unsupported) and names the codec, never corrupt"
    )
    func unsupportedCodecs() throws {
        let dir = TempDir()
        for (label, make, ext, codec) in Self.unplayable {
            let name = "\(label.replacingOccurrences(of: " ", with: "-")).\(ext)"
            try Made.run(make, in: dir, out: name)
            let choice = SoundLibrary(directories: [dir.path]).choose(name)
            #expect(choice.isDefaultTone, "\(label) should not play")
            #expect(choice.problem?.kind == "unsupported", "\(label): \(String(describing: choice.problem))")
            #expect(
                choice.problem?.description.contains(codec) == true, "\(label): \(String(describing: choice.problem))")
            #expect(
                choice.problem?.description.contains("is not supported") == true,
                "\(label): \(String(describing: choice.problem))")
            #expect(
                Made.decode(dir, name).format?.format.contains(codec) == true,
                "\(label): 'alarm sounds' names the codec")
        }
    }

    @Test("sox writing CAF to a pipe (libsndfile repeats its header) is refused as corrupt, with the reason")
    func soxCAFPipe() throws {
        let dir = TempDir()
        try Made.run(Made.sox(output: "-t caf -") + " | cat > {OUT}", in: dir, out: "sox.caf")
        let choice = SoundLibrary(directories: [dir.path]).choose("sox.caf")
        #expect(choice.isDefaultTone)
        #expect(choice.problem?.kind == "corrupt", "\(String(describing: choice.problem))")
        #expect(choice.problem?.description.contains("a second CAF header follows its 'data' chunk") == true)
    }

    @Test("a placeholder data size in a WAV whose RIFF size is true is a damaged file: truncated, not played")
    func placeholderOnlyInData() throws {
        let dir = TempDir()
        try Made.run(Made.sox(output: "{OUT}"), in: dir, out: "good.wav")
        var wav = dir.bytes("good.wav")
        let dataAt = try #require((0..<wav.count - 4).first { wav[$0..<$0 + 4].elementsEqual("data".utf8) })
        for value: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0x00, 0xF0, 0xFF, 0x7F]] {
            wav.replaceSubrange((dataAt + 4)..<(dataAt + 8), with: value)
            dir.write("edited.wav", wav)
            let problem = SoundLibrary(directories: [dir.path]).choose("edited.wav").problem
            #expect(problem?.kind == "truncated", "\(String(describing: problem))")
        }
    }
}

/// A clip under 4000 Hz through real alsa-lib, whose plug layer refuses such rates.
@Suite("Low-rate clips on ALSA (file plugin)")
struct LowRatePlaybackTests {
    @Test("alarm play resamples a 2000 Hz clip: the recording is 8000 Hz, at the clip's pitch and length")
    func plays() throws {
        let sounds = TempDir()
        try Made.run(
            "ffmpeg -nostdin -v error -f lavfi -i sine=frequency=250:duration=1:sample_rate=2000 -f wav {OUT}",
            in: sounds, out: "low.wav")
        let rec = FilePluginDevice()
        let r = try Subprocess.run(
            [
                try Subprocess.executable("alarm"), "play", "low.wav", "--sounds-dir", sounds.path, "--device",
                "recplug",
            ],
            environment: rec.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("played 'low.wav' on recplug"), "\(r.stdout)")
        #expect(!r.stderr.contains("default tone"), "\(r.stderr)")
        let got = try SoundDecoder.inspect(path: rec.wavPath, name: "recording").result.get()
        #expect(got.sampleRate == 8_000 && got.channels == 1)
        #expect(got.frameCount == 8_000)
        let f = Signal.zeroCrossingFrequency(got.samples, rate: 8_000, threshold: 0.05)
        #expect(abs(f - 250) < 1, "\(f) Hz")
    }

    /// `plug` in front of a `file` PCM (alsa.conf's `tee`) over `null`: it refuses rates under
    /// 4000 Hz like every `plughw:`, and records what it takes.
    func refusingDevice(_ dir: TempDir) -> String { "plug:'tee:null,\(dir.file("rec.wav")),wav'" }

    @Test("a device that refuses the clip's rate rings the default tone instead, and says why")
    func substitutes() throws {
        let dir = TempDir()
        let device = refusingDevice(dir)
        let clip = AudioClip(
            samples: Signal.sine(frequency: 250, rate: 2_000, channels: 1, frames: 2_000), channels: 1,
            sampleRate: 2_000)
        let lines = LogLines()
        let player = AlarmPlayer(devices: [device], log: { lines.add($0) })
        let started = Box<PlaybackStarted>()
        let summary = try player.playOnce(clip, onFirstFrame: { started.set($0) })
        #expect(summary.device == device)
        let why = try #require(summary.substitution, "log: \(lines.all)")
        #expect(why.contains("cannot play the sound as it is (1 ch, 2000 Hz"), "\(why)")
        #expect(started.get()?.substitution == why)
        #expect(lines.all.contains { $0.contains("playing the default tone instead") }, "\(lines.all)")
        let rec = try SoundDecoder.inspect(path: dir.file("rec.wav"), name: "rec").result.get()
        let tone = DefaultTone.clip()
        #expect(rec.sampleRate == tone.sampleRate && rec.frameCount == tone.frameCount)
        #expect(Signal.maxAbsError(rec.samples, tone.samples) <= 2.0 / 32768)
    }

    @Test("a ring on such a device loops the default tone for its whole length")
    func ringSubstitutes() throws {
        let dir = TempDir()
        let clip = AudioClip(
            samples: Signal.sine(frequency: 250, rate: 2_000, channels: 2, frames: 2_000 * 2), channels: 2,
            sampleRate: 2_000)
        let player = AlarmPlayer(devices: [refusingDevice(dir)], log: { _ in })
        let started = Box<PlaybackStarted>()
        player.start(clip, maxDuration: 2, onFirstFrame: { started.set($0) })
        let summary = player.waitUntilDone()
        #expect(summary.substitution?.contains("(2 ch, 2000 Hz") == true, "\(String(describing: summary.substitution))")
        #expect(started.get()?.substitution != nil)
        #expect(summary.framesWritten == 2 * DefaultTone.sampleRate)
        let rec = try SoundDecoder.inspect(path: dir.file("rec.wav"), name: "rec").result.get()
        #expect(rec.sampleRate == DefaultTone.sampleRate && rec.frameCount == 2 * DefaultTone.sampleRate)
        let f = Signal.zeroCrossingFrequency(Array(rec.samples[0..<4_800]), rate: 48_000)
        #expect(abs(f - DefaultTone.frequency) < 5, "\(f) Hz")
    }
}

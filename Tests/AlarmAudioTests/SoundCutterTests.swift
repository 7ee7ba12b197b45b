import AlarmAudio
import CSndfile
import Foundation
import Testing

/// `alarm sounds cut` in process (issue #24): the stretch asked for, sample for sample, from
/// files other programs wrote; the clip it writes reads back; every refusal.
@Suite("Cutting a clip from a long file (issue #24)", .serialized)
struct SoundCutterTests {
    /// A 3-minute song of steps made by sox: 440 Hz to 1:10, 660 Hz to 1:20, 550 Hz to 1:30, then
    /// 880 Hz. Made once per test run (16 MB of WAV) and its MP3 by ffmpeg.
    final class Song: @unchecked Sendable {
        let dir = TempDir()
        var wav: String { dir.file("song.wav") }
        var mp3: String { dir.file("song.mp3") }
        init() throws {
            let parts = [(70, 440), (10, 660), (10, 550), (90, 880)]
            for (i, (seconds, f)) in parts.enumerated() {
                try Made.run(
                    "sox -D -n -r 44100 -b 16 -c 1 {OUT} synth \(seconds) sine \(f) vol 0.5", in: dir,
                    out: "part\(i).wav")
            }
            try Made.run(
                "sox " + (0..<parts.count).map { "'\(dir.file("part\($0).wav"))'" }.joined(separator: " ") + " {OUT}",
                in: dir, out: "song.wav")
            try Made.run(
                "ffmpeg -nostdin -v error -i {REF} -c:a libmp3lame -b:a 192k {OUT}", in: dir, out: "song.mp3",
                ref: "song.wav")
        }
    }
    static let song = Result { try Song() }

    @Test("a WAV cut at 1:10 for 20 s holds exactly those 20 s, faded at both ends; its FLAC reads back")
    func wavStretch() throws {
        let song = try Self.song.get()
        let clip = try SoundCutter.cut(path: song.wav, name: "song.wav", from: 70, length: 20)
        #expect(clip.frameCount == 20 * 44_100 && clip.sampleRate == 44_100 && clip.channels == 1)
        let source = try Made.decodeAny(song.wav)
        let stretch = Array(source[(70 * 44_100)..<(90 * 44_100)])
        let fade = Int(SoundCutter.fade * 44_100)
        let middle = fade..<(clip.frameCount - fade)
        #expect(
            Signal.maxAbsError(Array(clip.samples[middle]), Array(stretch[middle])) == 0,
            "the stretch is not the source's")
        #expect(abs(clip.samples[0]) < 1e-3 && abs(clip.samples[clip.frameCount - 1]) < 1e-3, "the ends are not faded")
        #expect(Signal.rms(clip.samples[0..<(fade / 4)]) < Signal.rms(clip.samples[(fade * 3 / 4)..<fade]))
        let at = { (s: Int, f: Double) in
            Signal.goertzel(clip.samples[(s * 44_100)..<(s * 44_100 + 4_410)], frequency: f, rate: 44_100)
        }
        #expect(at(5, 660) > 100 * at(5, 440) && at(15, 550) > 100 * at(15, 660))

        let flac = try SoundCutter.encode(clip, as: .flac)
        let dir = TempDir()
        dir.write("chorus.flac", flac)
        let back = Made.decode(dir, "chorus.flac")
        let decoded = try #require(try? back.result.get(), "\(String(describing: back.problem))")
        #expect(back.format?.container == .flac && back.format?.format == "FLAC 16-bit")
        #expect(decoded.frameCount == clip.frameCount)
        #expect(Signal.maxAbsError(decoded.samples, clip.samples) <= 1.0 / 32_768 + 1e-6)

        let caf = try SoundCutter.encode(clip, as: .caf)
        dir.write("chorus.caf", caf)
        let cafBack = Made.decode(dir, "chorus.caf")
        #expect(
            cafBack.format?.container == .caf && cafBack.format?.format == "PCM s16",
            "\(String(describing: cafBack.format))")
        #expect((try? cafBack.result.get())?.frameCount == clip.frameCount)
    }

    @Test("an MP3 cut at 1:10 for 20 s matches ffmpeg's own decoding of that stretch")
    func mp3Stretch() throws {
        let song = try Self.song.get()
        let clip = try SoundCutter.cut(path: song.mp3, name: "song.mp3", from: 70, length: 20)
        #expect(clip.frameCount == 20 * 44_100)
        let dir = TempDir()
        try Made.run(
            "ffmpeg -nostdin -v error -ss 70 -t 20 -i '\(song.mp3)' -c:a pcm_f32le {OUT}", in: dir, out: "ref.wav")
        let ref = try Made.decodeAny(dir.file("ref.wav"))
        // The two decoders may place the stretch a few samples apart: the best lag within one frame.
        let probe = Array(clip.samples[44_100..<(44_100 * 3)])
        var best = (lag: 0, r: -1.0)
        for lag in stride(from: -1_152, through: 1_152, by: 1) {
            let start = 44_100 + lag
            guard start >= 0, start + probe.count <= ref.count else { continue }
            let r = Signal.correlation(probe, Array(ref[start..<(start + probe.count)]))
            if r > best.r { best = (lag, r) }
        }
        #expect(best.r > 0.99, "best correlation \(best.r) at lag \(best.lag)")
        #expect(abs(best.lag) <= 1_152)
    }

    @Test("an Apple IMA4 CAF over 30 s is cut through our own decoder, only the packets needed")
    func ima4() throws {
        let dir = TempDir()
        try Made.run(
            "sox -D -n -r 44100 -b 16 {REF} synth 31 sine 440 vol 0.5 && sox -D -n -r 44100 -b 16 b.wav synth 9 sine 660 vol 0.5 && sox {REF} b.wav c.wav && ffmpeg -nostdin -v error -i c.wav -c:a adpcm_ima_qt -f caf {OUT}"
                .replacingOccurrences(of: "b.wav", with: "'\(dir.file("b.wav"))'").replacingOccurrences(
                    of: "c.wav", with: "'\(dir.file("c.wav"))'"), in: dir, out: "long.caf")
        #expect(Made.decode(dir, "long.caf").problem?.kind == "too-long")
        let clip = try SoundCutter.cut(path: dir.file("long.caf"), name: "long.caf", from: 32, length: 5)
        #expect(clip.frameCount == 5 * 44_100)
        let f = Signal.zeroCrossingFrequency(
            Array(clip.samples[4_410..<(clip.frameCount - 4_410)]), rate: 44_100, threshold: 0.05)
        #expect(abs(f - 660) < 3, "\(f) Hz")
    }

    @Test("a stretch running past the end is cut short at the end; one starting there is refused")
    func ends() throws {
        let song = try Self.song.get()
        let tail = try SoundCutter.cut(path: song.wav, name: "song.wav", from: 170, length: 30)
        #expect(tail.frameCount == 10 * 44_100)
        for from in [180.0, 200.0] {
            #expect(throws: SoundCutter.Refusal.fromPastEnd(from: from, length: 180)) {
                try SoundCutter.cut(path: song.wav, name: "song.wav", from: from, length: 10)
            }
        }
        let mp3Past = #expect(throws: SoundCutter.Refusal.self) {
            try SoundCutter.cut(path: song.mp3, name: "song.mp3", from: 185, length: 10)
        }
        if case .fromPastEnd(_, let length)? = mp3Past {
            #expect(abs(length - 180) < 0.1)
        } else {
            Issue.record("\(String(describing: mp3Past))")
        }
    }

    @Test("refusals: length, a source that is not sound, names")
    func refusals() throws {
        let song = try Self.song.get()
        for length in [0.0, -1, 30.01, 31] {
            #expect(throws: SoundCutter.Refusal.length(length)) {
                try SoundCutter.cut(path: song.wav, name: "song.wav", from: 0, length: length)
            }
        }
        #expect(try SoundCutter.cut(path: song.wav, name: "song.wav", from: 0, length: 30).frameCount == 30 * 44_100)
        let dir = TempDir()
        dir.write("notes.mp3", Array("these are not sounds".utf8))
        let e = #expect(throws: SoundCutter.Refusal.self) {
            try SoundCutter.cut(path: dir.file("notes.mp3"), name: "notes.mp3", from: 0, length: 5)
        }
        #expect(
            e?.description.contains("not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file") == true,
            "\(String(describing: e))")

        #expect(try SoundCutter.fileName("chorus") == ("chorus.flac", .flac))
        #expect(try SoundCutter.fileName("Chorus.FLAC") == ("Chorus.FLAC", .flac))
        #expect(try SoundCutter.fileName("chorus.caf") == ("chorus.caf", .caf))
        #expect(try SoundCutter.fileName("song-1m10s") == ("song-1m10s.flac", .flac))
        for bad in ["", "a/b", ".hidden", "chorus.wav", "chorus.mp3"] {
            #expect(throws: SoundCutter.Refusal.self, "\(bad)") { try SoundCutter.fileName(bad) }
        }
    }

    @Test("the write: a new file, never over an existing one unless forced, nothing left behind when it fails")
    func write() throws {
        let dir = TempDir()
        let clip = AudioClip(samples: [Float](repeating: 0.25, count: 8_000), channels: 1, sampleRate: 8_000)
        let bytes = try SoundCutter.encode(clip, as: .flac)
        let path = try SoundCutter.write(bytes, directory: dir.file("sounds"), fileName: "a.flac", force: false)
        #expect(path == dir.file("sounds/a.flac") && dir.bytes("sounds/a.flac") == bytes)
        #expect(throws: SoundCutter.Refusal.exists(path)) {
            try SoundCutter.write([1, 2, 3], directory: dir.file("sounds"), fileName: "a.flac", force: false)
        }
        #expect(dir.bytes("sounds/a.flac") == bytes, "a refused write changed the file")
        _ = try SoundCutter.write([1, 2, 3], directory: dir.file("sounds"), fileName: "a.flac", force: true)
        #expect(dir.bytes("sounds/a.flac") == [1, 2, 3])
        // A directory that cannot be made (a file is in the way).
        dir.write("blocked", [0])
        let e = #expect(throws: SoundCutter.Refusal.self) {
            try SoundCutter.write(bytes, directory: dir.file("blocked"), fileName: "b.flac", force: false)
        }
        #expect(e?.description.contains("nothing was written") == true, "\(String(describing: e))")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.file("sounds"))
        #expect(left == ["a.flac"], "temporary files left: \(left)")
    }
}

extension Made {
    /// The samples of a mono file of any length, read with libsndfile directly (the reference
    /// side of a comparison; alarm's decoder stops at 30 s).
    static func decodeAny(_ path: String) throws -> [Float] {
        var info = SF_INFO()
        guard let sf = sf_open(path, Int32(SFM_READ), &info) else {
            throw Fixture.Failed(description: "sf_open \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(sf) }
        guard info.channels == 1 else { throw Fixture.Failed(description: "\(path) has \(info.channels) channels") }
        var out = [Float](repeating: 0, count: Int(info.frames))
        let got = out.withUnsafeMutableBufferPointer { sf_readf_float(sf, $0.baseAddress, info.frames) }
        return Array(out.prefix(Int(got)))
    }
}

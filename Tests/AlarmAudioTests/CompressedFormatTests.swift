import AlarmAudio
import Foundation
import Testing

/// A compressed file made by another program (issue #24), and what alarm must make of it.
struct CompressedCase: CustomTestStringConvertible, Sendable {
    var label: String
    var ext: String
    /// Writes `{OUT}`: `{SRC}` stands for the lavfi source of `seconds` of sine (440 Hz; stereo
    /// 440 Hz left, 660 Hz right) at `sourceRate`.
    var make: String
    var seconds: Double = 1
    var channels = 1
    var sourceRate = 44_100
    /// The rate the decoder gives (libsndfile decodes Opus at the Opus rate at or above the one it
    /// was made from: 22.05 kHz gives 24 kHz).
    var rate = 44_100
    var container: String
    var formatPrefix: String
    var testDescription: String { label }

    /// False for an MPEG file without a LAME/Info tag: nothing in it says how many samples the
    /// encoder added in front and at the end, so a decoder gives them too.
    var gapless = true
    /// One MPEG frame for MP3 (the tolerance), two without the tag that says what the
    /// encoder added; a millisecond for the others.
    var toleranceSeconds: Double {
        guard container == "MP3" else { return 0.001 }
        return Double((gapless ? 1 : 2) * (rate <= 24_000 ? 576 : 1152)) / Double(rate)
    }

    func source(_ seconds: Double) -> String {
        let ff = "ffmpeg -nostdin -v error -f lavfi -i"
        return channels == 1
            ? "\(ff) sine=frequency=440:duration=\(seconds):sample_rate=\(sourceRate)"
            : "\(ff) 'aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*660*t):d=\(seconds):s=\(sourceRate)'"
    }

    func command(seconds: Double) -> String { make.replacingOccurrences(of: "{SRC}", with: source(seconds)) }
}

let compressedCases: [CompressedCase] = [
    CompressedCase(
        label: "MP3 CBR 128k mono 44.1 kHz (ffmpeg libmp3lame)", ext: "mp3",
        make: "{SRC} -c:a libmp3lame -b:a 128k {OUT}",
        container: "MP3", formatPrefix: "MPEG-1 Layer III, 128 kbit/s"),
    CompressedCase(
        label: "MP3 VBR stereo 48 kHz (ffmpeg libmp3lame -q:a 4)", ext: "mp3",
        make: "{SRC} -c:a libmp3lame -q:a 4 {OUT}",
        channels: 2, sourceRate: 48_000, rate: 48_000, container: "MP3", formatPrefix: "MPEG-1 Layer III"),
    CompressedCase(
        label: "MP3 CBR mono 22.05 kHz, MPEG-2 (ffmpeg)", ext: "mp3", make: "{SRC} -c:a libmp3lame -b:a 64k {OUT}",
        sourceRate: 22_050, rate: 22_050, container: "MP3", formatPrefix: "MPEG-2 Layer III, 64 kbit/s"),
    CompressedCase(
        label: "MP3 with ID3v2 tags and cover art (ffmpeg)", ext: "mp3",
        make:
            "ffmpeg -nostdin -v error -f lavfi -i color=c=red:s=300x300 -frames:v 1 {OUT}.png && {SRC} -i {OUT}.png -map 0:a -map 1:v -c:a libmp3lame -b:a 128k -c:v png -id3v2_version 3 -metadata title='Morning' -metadata artist='alarm tests' -metadata:s:v comment='Cover (front)' {OUT}",
        container: "MP3", formatPrefix: "MPEG-1 Layer III, 128 kbit/s"),
    CompressedCase(
        label: "MP3 CBR without its Xing frame (ffmpeg -write_xing 0)", ext: "mp3",
        make: "{SRC} -c:a libmp3lame -b:a 96k -write_xing 0 {OUT}",
        container: "MP3", formatPrefix: "MPEG-1 Layer III, 96 kbit/s", gapless: false),
    CompressedCase(
        label: "MP2 (ffmpeg, MPEG-1 Layer II)", ext: "mp2", make: "{SRC} -c:a mp2 -b:a 128k -f mp2 {OUT}",
        container: "MP3", formatPrefix: "MPEG-1 Layer II", gapless: false),
    CompressedCase(
        label: "Ogg Vorbis mono 44.1 kHz (ffmpeg libvorbis)", ext: "ogg", make: "{SRC} -c:a libvorbis {OUT}",
        container: "Ogg", formatPrefix: "Vorbis"),
    CompressedCase(
        label: "Ogg Vorbis stereo 48 kHz (ffmpeg libvorbis)", ext: "oga", make: "{SRC} -c:a libvorbis -f ogg {OUT}",
        channels: 2, sourceRate: 48_000, rate: 48_000, container: "Ogg", formatPrefix: "Vorbis"),
    CompressedCase(
        label: "Opus mono from 22.05 kHz (ffmpeg libopus)", ext: "opus", make: "{SRC} -c:a libopus {OUT}",
        sourceRate: 22_050, rate: 24_000, container: "Ogg", formatPrefix: "Opus"),
    CompressedCase(
        label: "Opus stereo 48 kHz (ffmpeg libopus)", ext: "opus", make: "{SRC} -c:a libopus -b:a 96k {OUT}",
        channels: 2, sourceRate: 48_000, rate: 48_000, container: "Ogg", formatPrefix: "Opus"),
    CompressedCase(
        label: "FLAC 16-bit mono 44.1 kHz (ffmpeg)", ext: "flac", make: "{SRC} -c:a flac {OUT}",
        container: "FLAC", formatPrefix: "FLAC 16-bit"),
    CompressedCase(
        label: "FLAC stereo 48 kHz (ffmpeg)", ext: "flac", make: "{SRC} -c:a flac -sample_fmt s16 {OUT}",
        channels: 2, sourceRate: 48_000, rate: 48_000, container: "FLAC", formatPrefix: "FLAC 16-bit"),
    CompressedCase(
        label: "FLAC 24-bit 96 kHz (sox)", ext: "flac",
        make: "sox -D -n -r 96000 -b 24 {OUT} synth {SECONDS} sine 440 vol 0.5",
        sourceRate: 96_000, rate: 96_000, container: "FLAC", formatPrefix: "FLAC 24-bit"),
    CompressedCase(
        label: "Ogg Vorbis (sox)", ext: "ogg", make: "sox -D -n -r 44100 {OUT} synth {SECONDS} sine 440 vol 0.5",
        container: "Ogg", formatPrefix: "Vorbis"),
]

@Suite("Ogg, Opus, FLAC and MP3 written by other programs (issue #24)")
struct CompressedFormatTests {
    func make(_ c: CompressedCase, seconds: Double, in dir: TempDir, name: String) throws {
        try Made.run(
            c.command(seconds: seconds).replacingOccurrences(of: "{SECONDS}", with: "\(seconds)"), in: dir, out: name)
    }

    @Test("plays: the right container, format, shape, length and pitch", arguments: compressedCases)
    func plays(_ c: CompressedCase) throws {
        let dir = TempDir()
        let name = "x.\(c.ext)"
        try make(c, seconds: 1, in: dir, name: name)
        let inspection = Made.decode(dir, name)
        let clip = try #require(try? inspection.result.get(), "\(c.label): \(String(describing: inspection.problem))")
        #expect(
            inspection.format?.container.rawValue == c.container, "\(c.label): \(String(describing: inspection.format))"
        )
        #expect(
            inspection.format?.format.hasPrefix(c.formatPrefix) == true,
            "\(c.label): \(String(describing: inspection.format))")
        #expect(
            clip.channels == c.channels && clip.sampleRate == c.rate,
            "\(c.label): \(clip.channels) ch at \(clip.sampleRate) Hz")
        let duration = try #require(inspection.duration)
        #expect(
            abs(duration - 1) <= c.toleranceSeconds, "\(c.label): \(duration) s, want 1 s within \(c.toleranceSeconds)")
        for ch in 0..<clip.channels {
            let want = ch == 0 ? 440.0 : 660.0
            let f = Signal.zeroCrossingFrequency(clip.channel(ch), rate: clip.sampleRate, threshold: 0.05)
            #expect(abs(f - want) < want * 0.01, "\(c.label) channel \(ch): \(f) Hz, want \(want)")
        }
        #expect(clip.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }

    @Test(
        "over 30 s: the default tone, with the reason and the true length",
        arguments: compressedCases.filter { $0.ext != "mp2" })
    func tooLong(_ c: CompressedCase) throws {
        let dir = TempDir()
        let name = "long.\(c.ext)"
        try make(c, seconds: 31, in: dir, name: name)
        let choice = SoundLibrary(directories: [dir.path]).choose(name)
        #expect(choice.isDefaultTone, "\(c.label): a 31 s file plays")
        #expect(choice.problem?.kind == "too-long", "\(c.label): \(String(describing: choice.problem))")
        #expect(choice.problem?.description.contains("clips over 30 s are not played") == true)
        let duration = try #require(Made.decode(dir, name).duration, "\(c.label): no length")
        #expect(abs(duration - 31) <= max(c.toleranceSeconds, 0.001), "\(c.label): \(duration) s, want 31")
    }

    @Test("a VBR MP3 without a length header: its length is walked, never libsndfile's estimate")
    func vbrWithoutXing() throws {
        let dir = TempDir()
        let src = "ffmpeg -nostdin -v error -f lavfi -i sine=frequency=440:duration=40:sample_rate=44100"
        try Made.run("\(src) -c:a libmp3lame -q:a 4 -write_xing 0 {OUT}", in: dir, out: "long.mp3")
        let long = Made.decode(dir, "long.mp3")
        #expect(long.problem?.kind == "too-long", "\(String(describing: long.problem))")
        // No LAME tag says what the encoder added at both ends: within two frames.
        let frames2 = 2 * 1152.0 / 44_100
        #expect(abs((long.duration ?? 0) - 40) <= frames2, "walked \(String(describing: long.duration)) s, want 40")
        // A short one whose loud first frames make libsndfile estimate 2 s of its 12 s: refused
        // with the reason, never played in part.
        try Made.run(
            "ffmpeg -nostdin -v error -f lavfi -i 'sine=frequency=440:duration=12:sample_rate=44100,volume=enable=gte(t\\,6):volume=0.05' -c:a libmp3lame -q:a 4 -write_xing 0 {OUT}",
            in: dir, out: "short.mp3")
        let short = Made.decode(dir, "short.mp3")
        #expect(short.problem?.kind == "unsupported", "\(String(describing: short.problem))")
        #expect(
            short.problem?.description.contains(
                "without a length header (Xing or VBRI): libsndfile would stop after 2.0 s of its 12.0 s") == true,
            "\(String(describing: short.problem))")
        #expect(abs((short.duration ?? 0) - 12) <= frames2, "\(String(describing: short.duration))")
    }

    @Test("the Ogg files of a Debian package play (sound-theme-freedesktop)")
    func debianOggFiles() throws {
        let dir = "/usr/share/sounds/freedesktop/stereo"
        let files = try #require(
            try? FileManager.default.contentsOfDirectory(atPath: dir),
            "install sound-theme-freedesktop (scripts/deps --test)"
        )
        .filter { $0.hasSuffix(".oga") }.sorted()
        #expect(files.count >= 10)
        let library = SoundLibrary(directories: [dir])
        for f in files {
            let inspection = library.inspect(f)
            let clip = try #require(try? inspection.result.get(), "\(f): \(String(describing: inspection.problem))")
            #expect(inspection.format?.container == .ogg && inspection.format?.format == "Vorbis", "\(f)")
            #expect(clip.frameCount > clip.sampleRate / 20, "\(f): \(clip.duration) s")
            #expect(Signal.rms(clip.samples[...]) > 0.001, "\(f) is silent")
        }
    }

    // MARK: hostile files

    @Test("damaged and hostile files: a clear refusal, never a crash, a hang or a part played", .timeLimit(.minutes(2)))
    func hostile() throws {
        let dir = TempDir()
        let src = "ffmpeg -nostdin -v error -f lavfi -i sine=frequency=440:duration=2:sample_rate=44100"
        try Made.run("\(src) -c:a libmp3lame -b:a 128k {OUT}", in: dir, out: "good.mp3")
        try Made.run("\(src) -c:a libmp3lame -b:a 128k -write_xing 0 -write_id3v2 0 {OUT}", in: dir, out: "bare.mp3")
        try Made.run("\(src) -c:a flac {OUT}", in: dir, out: "good.flac")
        try Made.run("\(src) -c:a libvorbis {OUT}", in: dir, out: "good.ogg")
        let mp3 = dir.bytes("good.mp3")
        let bare = dir.bytes("bare.mp3")
        let flac = dir.bytes("good.flac")
        let ogg = dir.bytes("good.ogg")

        func expect(
            _ name: String, _ bytes: [UInt8], kind: String, saying words: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            dir.write(name, bytes)
            let choice = SoundLibrary(directories: [dir.path]).choose(name)
            #expect(choice.isDefaultTone, "\(name) plays", sourceLocation: sourceLocation)
            #expect(
                choice.problem?.kind == kind, "\(name): \(String(describing: choice.problem))",
                sourceLocation: sourceLocation)
            #expect(
                choice.problem?.description.contains(words) == true, "\(name): \(String(describing: choice.problem))",
                sourceLocation: sourceLocation)
        }
        expect("cut.mp3", Array(mp3.dropLast(3_000)), kind: "truncated", saying: "header announces")
        expect("cut-bare.mp3", Array(bare.dropLast(100)), kind: "truncated", saying: "ends inside MPEG frame")
        expect("empty.mp3", [], kind: "empty", saying: "is empty")
        // An ID3v2 tag that claims 256 MB in a file of a few hundred bytes.
        expect(
            "huge-id3.mp3", Array("ID3".utf8) + [3, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + [UInt8](repeating: 0, count: 300),
            kind: "truncated", saying: "ID3v2 tag")
        var random = SystemRandomNumberGenerator()
        var noise = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        noise[0] = 0x42
        expect("noise.mp3", noise, kind: "unsupported", saying: "not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file")
        expect(
            "id3-then-noise.mp3",
            Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10) + noise.map { $0 & 0x7F },
            kind: "corrupt", saying: "no MPEG audio frame follows its ID3v2 tag")
        expect("half.flac", Array(flac.prefix(flac.count / 2)), kind: "truncated", saying: "FLAC STREAMINFO announces")
        expect(
            "speex.ogg", Array(ogg.prefix(28)) + Array("Speex   ".utf8) + [UInt8](repeating: 0, count: 100),
            kind: "unsupported", saying: "Speex in Ogg is not supported")

        // A huge ID3v2 tag in front of good audio (2 MB of padding): it plays, all of it.
        let bigTag =
            Array("ID3".utf8) + [3, 0, 0, 0x00, 0x7A, 0x12, 0x00] + [UInt8](repeating: 0, count: 0x7A << 14 | 0x12 << 7)
        dir.write("big-tag.mp3", bigTag + bare)
        let tagged = Made.decode(dir, "big-tag.mp3")
        #expect(
            abs(((try? tagged.result.get())?.duration ?? 0) - 2) <= 2 * 1152.0 / 44_100,
            "\(String(describing: tagged.problem))")

        // An Ogg whose page sequence numbers and last granule position are bogus: whatever libogg
        // and libsndfile make of it, a decision comes back and nothing beyond the audio plays.
        var bogus = ogg
        var pages: [Int] = []
        for i in 0..<(bogus.count - 4) where bogus[i..<i + 4].elementsEqual("OggS".utf8) { pages.append(i) }
        for (n, p) in pages.enumerated() where n > 0 {
            bogus.replaceSubrange((p + 18)..<(p + 22), with: [0xFF, 0xFF, 0xFF, UInt8(n & 0xFF)])
        }
        if let last = pages.last { bogus.replaceSubrange((last + 6)..<(last + 14), with: [0, 0, 0, 0, 0, 0, 0, 0x40]) }
        dir.write("bogus.ogg", bogus)
        let b = Made.decode(dir, "bogus.ogg")
        switch b.result {
        case .success(let clip): #expect(clip.duration <= 2.05, "bogus.ogg played \(clip.duration) s")
        case .failure(let p): #expect(["corrupt", "truncated", "empty", "too-long"].contains(p.kind), "\(p)")
        }
    }
}

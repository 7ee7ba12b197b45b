import AlarmAudio
import AlarmTestSupport
import CSndfile
import Foundation
import Testing

/// Every sound that must not play gives the default tone and a reason; none crashes or hangs.
@Suite("Clip checks: what plays and why not")
struct BadFileTests {
    func sine(
        _ dir: TempDir, _ name: String, seconds: Double, rate: Int = 8_000,
        format: Int32 = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
    ) throws {
        let frames = Int((seconds * Double(rate)).rounded())
        try Fixture.write(
            dir.file(name), samples: Signal.sine(frequency: 440, rate: rate, channels: 1, frames: frames),
            channels: 1, rate: rate, format: format)
    }

    func expectDefault(
        _ choice: SoundChoice, _ kind: String, _ text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(choice.isDefaultTone, sourceLocation: sourceLocation)
        #expect(choice.clip == DefaultTone.clip(), sourceLocation: sourceLocation)
        #expect(choice.problem?.kind == kind, "\(String(describing: choice.problem))", sourceLocation: sourceLocation)
        if let text {
            #expect(
                choice.problem?.description.contains(text) == true,
                "\(String(describing: choice.problem?.description))", sourceLocation: sourceLocation)
        }
    }

    @Test("a 30.5 s clip is not played, and the reason gives its length")
    func over30() throws {
        let dir = TempDir()
        try sine(dir, "dawn.wav", seconds: 30.5)
        let choice = SoundLibrary(directories: [dir.path]).choose("dawn.wav")
        expectDefault(choice, "too-long", "'dawn.wav' is 30.5 s long; clips over 30 s are not played")
    }

    @Test("a 41.2 s clip reports 41.2 s though only 30 s were decoded")
    func longReportsLength() throws {
        let dir = TempDir()
        try sine(dir, "dawn.caf", seconds: 41.2, format: Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_16))
        let i = SoundLibrary(directories: [dir.path]).inspect("dawn.caf")
        #expect(i.problem?.description == "'dawn.caf' is 41.2 s long; clips over 30 s are not played")
        #expect(abs((i.duration ?? 0) - 41.2) < 0.001)
    }

    @Test("one frame over 30 s is over", arguments: [8_000, 44_100])
    func oneFrameOver(rate: Int) throws {
        let dir = TempDir()
        try Fixture.write(
            dir.file("x.wav"), samples: [Float](repeating: 0.1, count: 30 * rate + 1), channels: 1, rate: rate,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let choice = SoundLibrary(directories: [dir.path]).choose("x.wav")
        expectDefault(choice, "too-long", "30.000 s long")
    }

    @Test("exactly 30.0 s plays: PCM WAV, sox IMA ADPCM WAV (true 'fact' count), CAF ima4 with 'pakt'")
    func exactly30() throws {
        let dir = TempDir()
        try sine(dir, "exact.wav", seconds: 30)
        try Fixture.run(["sox", "-D", dir.file("exact.wav"), "-e", "ima-adpcm", dir.file("exact-ima.wav")])
        try sine(dir, "ref.aifc", seconds: 30, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM))
        let packets = try #require(CAFWriter.ssndPayload(dir.bytes("ref.aifc")))
        // 240 000 frames are 3750 packets exactly; add one packet of padding the pakt excludes.
        dir.write(
            "exact.caf",
            CAFWriter.ima4(
                packets: packets + Array(packets.suffix(34)), channels: 1, rate: 8_000,
                pakt: .init(validFrames: 240_000)))
        let lib = SoundLibrary(directories: [dir.path])
        for name in ["exact.wav", "exact-ima.wav", "exact.caf"] {
            let choice = lib.choose(name)
            #expect(choice.name == name, "\(name): \(String(describing: choice.problem))")
            #expect(choice.clip.frameCount == 240_000, "\(name)")
            #expect(choice.clip.duration == 30.0)
        }
        // The block-padded count of the same IMA ADPCM audio is over 30 s: it is not what counts.
        #expect(try Fixture.run(["sndfile-info", dir.file("exact-ima.wav")]).contains("Frames      : 240380"))
    }

    @Test("empty, random bytes, truncated header, truncated audio")
    func brokenFiles() throws {
        let dir = TempDir()
        dir.write("empty.wav", [])
        var rng = SystemRandomNumberGenerator()
        dir.write("noise.wav", (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
        try sine(dir, "good.wav", seconds: 1)
        let good = dir.bytes("good.wav")
        dir.write("cut-header.wav", Array(good.prefix(30)))
        dir.write("cut-audio.wav", Array(good.prefix(good.count / 2)))
        try sine(dir, "good.aiff", seconds: 1, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16))
        dir.write("cut-header.aiff", Array(dir.bytes("good.aiff").prefix(20)))
        dir.write("riff-only.wav", Array("RIFF".utf8))
        // A WAV header with no samples at all.
        try Fixture.write(
            dir.file("no-frames.wav"), samples: [], channels: 1, rate: 8_000,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let lib = SoundLibrary(directories: [dir.path])
        expectDefault(lib.choose("empty.wav"), "empty", "'empty.wav' is empty")
        expectDefault(lib.choose("noise.wav"), "unsupported", "not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file")
        expectDefault(lib.choose("cut-header.wav"), "truncated")
        expectDefault(lib.choose("cut-audio.wav"), "truncated", "announces")
        expectDefault(lib.choose("cut-header.aiff"), "truncated")
        expectDefault(lib.choose("riff-only.wav"), "truncated")
        expectDefault(lib.choose("no-frames.wav"), "empty")
    }

    @Test("headers claiming billions of frames are refused before allocating")
    func billions() throws {
        let dir = TempDir()
        try sine(dir, "good.wav", seconds: 0.5)
        var wav = dir.bytes("good.wav")
        // data chunk size → 0xFFFFFFF0 (2.1 billion 16-bit frames), file stays 8 kB.
        let dataAt = try #require((0..<wav.count - 4).first { wav[$0..<$0 + 4].elementsEqual("data".utf8) })
        wav.replaceSubrange((dataAt + 4)..<(dataAt + 8), with: [0xF0, 0xFF, 0xFF, 0xFF])
        dir.write("huge.wav", wav)
        try sine(dir, "good.aiff", seconds: 0.5, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16))
        var aiff = dir.bytes("good.aiff")
        let comm = try #require((0..<aiff.count - 4).first { aiff[$0..<$0 + 4].elementsEqual("COMM".utf8) })
        aiff.replaceSubrange((comm + 10)..<(comm + 14), with: [0xFF, 0xFF, 0xFF, 0xF0])  // numSampleFrames
        dir.write("huge-comm.aiff", aiff)
        let ssnd = try #require((0..<aiff.count - 4).first { aiff[$0..<$0 + 4].elementsEqual("SSND".utf8) })
        aiff.replaceSubrange((ssnd + 4)..<(ssnd + 8), with: [0xFF, 0xFF, 0xFF, 0xF0])
        dir.write("huge.aiff", aiff)
        try sine(dir, "ref.aifc", seconds: 0.5, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM))
        let packets = try #require(CAFWriter.ssndPayload(dir.bytes("ref.aifc")))
        dir.write(
            "huge.caf", CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: .init(validFrames: 1 << 40)))
        try sine(dir, "good.caf", seconds: 0.5, format: Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_16))
        var caf = dir.bytes("good.caf")
        let data = try #require((0..<caf.count - 4).first { caf[$0..<$0 + 4].elementsEqual("data".utf8) })
        caf.replaceSubrange((data + 4)..<(data + 12), with: [0, 0, 0x10, 0, 0, 0, 0, 0])  // 2^44 bytes
        dir.write("huge-pcm.caf", caf)

        let lib = SoundLibrary(directories: [dir.path])
        let start = ContinuousClock.now
        expectDefault(lib.choose("huge.wav"), "truncated", "announces 4294967280 bytes")
        expectDefault(lib.choose("huge.aiff"), "truncated")
        expectDefault(lib.choose("huge.caf"), "truncated", "announces 1099511627776 frames")
        expectDefault(lib.choose("huge-pcm.caf"), "truncated")
        expectDefault(lib.choose("huge-comm.aiff"), "truncated", "announces 4294967280 frames")
        #expect(ContinuousClock.now - start < .seconds(Slowdown.scaled(5)))
    }

    @Test("names with '/', a leading '.', or leading outside the directory are refused unopened")
    func badNames() throws {
        let dir = TempDir()
        let sounds = dir.file("sounds")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        try sine(dir, "secret.wav", seconds: 0.5)  // outside `sounds`
        try sine(dir, "sounds/.hidden.wav", seconds: 0.5)
        try sine(dir, "sounds/ok.wav", seconds: 0.5)
        try FileManager.default.createSymbolicLink(atPath: sounds + "/escape.wav", withDestinationPath: "../secret.wav")
        try FileManager.default.createSymbolicLink(
            atPath: sounds + "/abs.wav", withDestinationPath: dir.file("secret.wav"))
        try FileManager.default.createSymbolicLink(atPath: sounds + "/alias.wav", withDestinationPath: "ok.wav")
        let lib = SoundLibrary(directories: [sounds])
        expectDefault(lib.choose("../secret.wav"), "bad-name", "contains '/'")
        expectDefault(lib.choose(dir.file("secret.wav")), "bad-name")
        expectDefault(lib.choose(".hidden.wav"), "bad-name", "starts with '.'")
        expectDefault(lib.choose(".."), "bad-name")
        expectDefault(lib.choose(""), "bad-name")
        expectDefault(lib.choose("escape.wav"), "outside-directory", "outside its sound directory")
        expectDefault(lib.choose("abs.wav"), "outside-directory")
        expectDefault(lib.choose("nope.wav"), "not-found", "was not found in \(sounds)")
        #expect(lib.choose("alias.wav").name == "alias.wav", "a symlink inside the directory is fine")
        #expect(lib.choose("ok.wav").name == "ok.wav")
        // A FIFO named like a sound must not hang the reader.
        #expect(mkfifo(sounds + "/pipe.wav", 0o600) == 0)
        expectDefault(lib.choose("pipe.wav"), "unreadable", "not a regular file")
    }

    @Test(
        "root's open follows no symlink anywhere on the resolved path: a directory swapped for a symlink is refused (issue #42)"
    )
    func openWithoutSymlinks() throws {
        let dir = TempDir()
        let base = try #require(SoundLibrary.realpath(dir.path))
        try FileManager.default.createDirectory(atPath: base + "/real", withIntermediateDirectories: true)
        try sine(dir, "real/a.wav", seconds: 0.5)
        func refusal(_ path: String) -> SoundProblem? {
            do throws(SoundProblem) {
                let fd = try SoundDecoder.openWithoutSymlinks(path: path, name: "a.wav")
                close(fd)
                return nil
            } catch { return error }
        }
        // The resolved path opens, and decodes from the descriptor.
        let fd = try SoundDecoder.openWithoutSymlinks(path: base + "/real/a.wav", name: "a.wav")
        #expect(SoundDecoder.inspect(descriptor: fd, path: base + "/real/a.wav", name: "a.wav").playable)
        // A directory of the path that is a symlink now (swapped in after the resolver's check):
        // refused, where the plain open follows it.
        #expect(symlink(base + "/real", base + "/link") == 0)
        let plain = try SoundDecoder.open(path: base + "/link/a.wav", name: "a.wav")
        close(plain)
        let swapped = refusal(base + "/link/a.wav")
        #expect(swapped?.kind == "unreadable", "\(String(describing: swapped))")
        #expect(
            swapped?.description.contains(
                "it was opened at \(base)/real/a.wav, not at \(base)/link/a.wav: a directory of its path changed")
                == true,
            "\(String(describing: swapped))")
        // The file itself a symlink, a FIFO, a missing file, a relative path, a path with ..
        #expect(symlink(base + "/real/a.wav", base + "/real/alias.wav") == 0)
        #expect(refusal(base + "/real/alias.wav")?.kind == "unreadable")
        #expect(mkfifo(base + "/real/pipe.wav", 0o600) == 0)
        #expect(refusal(base + "/real/pipe.wav")?.description.contains("not a regular file") == true)
        #expect(refusal(base + "/real/none.wav")?.kind == "not-found")
        #expect(refusal("real/a.wav")?.kind == "unreadable")
        #expect(refusal(base + "/real/../real/a.wav")?.description.contains("a directory of its path changed") == true)
        // A directory of the path that is a file.
        #expect(refusal(base + "/real/a.wav/b.wav")?.kind == "unreadable")
    }

    @Test("odd-sized extra chunks are skipped, and a CAF 'data' of unknown size (-1) runs to the end")
    func oddButValid() throws {
        let dir = TempDir()
        try sine(dir, "plain.wav", seconds: 0.5)
        var wav = dir.bytes("plain.wav")
        let dataAt = try #require((0..<wav.count - 4).first { wav[$0..<$0 + 4].elementsEqual("data".utf8) })
        // "LIST" with 3 bytes of payload and its pad byte, before 'data'.
        wav.insert(contentsOf: Array("LIST".utf8) + [3, 0, 0, 0, 0x61, 0x62, 0x63, 0], at: dataAt)
        dir.write("list.wav", wav)
        try sine(dir, "ref.aifc", seconds: 0.5, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM))
        let packets = try #require(CAFWriter.ssndPayload(dir.bytes("ref.aifc")))
        dir.write("stream.caf", CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: nil, dataSize: -1))
        let lib = SoundLibrary(directories: [dir.path])
        let plain = try lib.inspect("plain.wav").result.get()
        #expect(try lib.inspect("list.wav").result.get() == plain)
        let stream = try lib.inspect("stream.caf").result.get()
        #expect(stream.frameCount == packets.count / 34 * 64)
    }

    @Test("other containers and codecs are refused as unsupported")
    func unsupported() throws {
        let dir = TempDir()
        let s = Signal.sine(frequency: 440, rate: 8_000, channels: 1, frames: 4_000)
        try Fixture.write(
            dir.file("x.au"), samples: s, channels: 1, rate: 8_000, format: Int32(SF_FORMAT_AU | SF_FORMAT_PCM_16))
        try Fixture.write(
            dir.file("x.w64"), samples: s, channels: 1, rate: 8_000, format: Int32(SF_FORMAT_W64 | SF_FORMAT_PCM_16))
        try Fixture.write(
            dir.file("gsm.wav"), samples: s, channels: 1, rate: 8_000, format: Int32(SF_FORMAT_WAV | SF_FORMAT_GSM610))
        try Fixture.write(
            dir.file("quad.wav"), samples: [Float](repeating: 0.1, count: 4_000 * 4), channels: 4, rate: 8_000,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        try Fixture.write(
            dir.file("dwvw.aiff"), samples: s, channels: 1, rate: 8_000,
            format: Int32(SF_FORMAT_AIFF | SF_FORMAT_DWVW_16))
        let lib = SoundLibrary(directories: [dir.path])
        expectDefault(lib.choose("x.au"), "unsupported")
        expectDefault(lib.choose("x.w64"), "unsupported")
        expectDefault(lib.choose("gsm.wav"), "unsupported", "not a data format we play")
        expectDefault(lib.choose("quad.wav"), "unsupported", "4 channels")
        expectDefault(lib.choose("dwvw.aiff"), "unsupported")
    }

    @Test("the default tone is 0.8 s of 880 Hz beeps")
    func defaultTone() {
        let clip = DefaultTone.clip()
        #expect(clip.sampleRate == 48_000 && clip.channels == 1)
        #expect(abs(clip.duration - 0.8) < 1e-9)
        let beep = clip.samples[0..<4_800]
        let at880 = Signal.goertzel(beep, frequency: 880, rate: 48_000)
        #expect(at880 > 100 * Signal.goertzel(beep, frequency: 660, rate: 48_000))
        #expect(Signal.rms(clip.samples[4_800..<9_600]) == 0, "a gap between beeps")
    }

    @Test("sound lookup: first directory wins; ALARM_SOUNDS_DIR and --sounds-dir are colon lists")
    func lookupOrder() throws {
        let dir = TempDir()
        for d in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: dir.file(d), withIntermediateDirectories: true)
        }
        try sine(dir, "b/x.wav", seconds: 0.2)
        try sine(dir, "a/x.wav", seconds: 0.3)
        try sine(dir, "b/y.wav", seconds: 0.4)
        let lib = SoundLibrary.configured(environment: ["ALARM_SOUNDS_DIR": dir.file("a") + ":" + dir.file("b")])
        #expect(lib.directories == [dir.file("a"), dir.file("b")])
        #expect(lib.choose("x.wav").clip.duration == 0.3)
        #expect(lib.choose("y.wav").clip.duration == 0.4)
        #expect(lib.names() == ["x.wav", "y.wav"])
        let opt = SoundLibrary.configured(soundsDir: dir.file("b"), environment: ["ALARM_SOUNDS_DIR": dir.file("a")])
        #expect(opt.directories == [dir.file("b")])
        let dflt = SoundLibrary.configured(environment: ["ALARM_STATE_DIR": "/srv/alarm"])
        #expect(dflt.directories.last == "/srv/alarm/sounds")
        let state = SoundLibrary.configured(environment: [:])
        #expect(state.directories.last == "/var/lib/alarm/sounds")
    }

    @Test("the shipped Sounds folder is found from the build directory: each sound once, as FLAC, and it plays")
    func shippedSounds() throws {
        let dir = try #require(
            SoundLibrary.installedSoundsDirectory(), "Sounds/ not found from \(CommandLine.arguments[0])")
        #expect(dir.hasSuffix("/Sounds"))
        let lib = SoundLibrary(directories: [dir])
        let names = lib.names()
        #expect(names == ["beacon.flac", "chime.flac", "sunrise.flac"])
        for name in names {
            let i = lib.inspect(name)
            #expect(i.playable, "\(name): \(String(describing: i.problem))")
            #expect(i.format?.container == .flac, "\(name): \(String(describing: i.format))")
            #expect((i.duration ?? 99) < 30)
        }
    }

    @Test(
        "a name the package shipped before (chime.wav, beacon.aiff, ...) plays the same sound's FLAC; a file of that name wins"
    )
    func retiredNames() throws {
        let shipped = try #require(SoundLibrary.installedSoundsDirectory())
        let lib = SoundLibrary(directories: [shipped])
        for (old, now) in SoundLibrary.retired {
            #expect(try lib.resolve(old) == lib.resolve(now), "\(old)")
            let choice = lib.choose(old)
            #expect(choice.problem == nil && choice.name == old, "\(old): \(String(describing: choice.problem))")
        }
        #expect(throws: SoundProblem.self) { try lib.resolve("gong.caf") }
        let dir = TempDir()
        try sine(dir, "chime.wav", seconds: 0.3)
        let own = SoundLibrary(directories: [dir.path, shipped])
        #expect(own.choose("chime.wav").clip.duration == 0.3)
    }

    @Test("installed layout: <prefix>/bin/alarm finds <prefix>/share/alarm/sounds")
    func installedLayout() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: dir.file("share/alarm/sounds"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.file("bin/alarm"), contents: Data())
        let found = SoundLibrary.installedSoundsDirectory(executable: dir.file("bin/alarm"))
        #expect(
            found.map { SoundLibraryTestsRealpath($0) } == SoundLibraryTestsRealpath(dir.file("share/alarm/sounds")))
    }
}

func SoundLibraryTestsRealpath(_ p: String) -> String {
    guard let r = realpath(p, nil) else { return p }
    defer { free(r) }
    return String(cString: r)
}

import AlarmAudio
import AlarmTestSupport
import CSndfile
import Foundation
import Testing

/// CAF 'ima4' (afconvert -d ima4 -f caff) is decoded by our own code. The reference: libsndfile
/// writes and decodes Apple IMA4 in AIFF-C; the very same packets wrapped in a CAF must decode to
/// the very same samples.
@Suite("CAF Apple IMA4")
struct IMA4CAFTests {
    /// An AIFF-C ima4 file written by libsndfile, and its packets.
    func aifcIMA4(_ dir: TempDir, channels: Int, rate: Int, frames: Int) throws -> (name: String, packets: [UInt8]) {
        let name = "ref-\(channels).aifc"
        try Fixture.write(
            dir.file(name), samples: Signal.sine(frequency: 440, rate: rate, channels: channels, frames: frames),
            channels: channels, rate: rate, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM))
        let packets = try #require(CAFWriter.ssndPayload(dir.bytes(name)))
        return (name, packets)
    }

    @Test(
        "decodes sample for sample like libsndfile's AIFF-C ima4",
        arguments: [(1, 44_100), (2, 48_000), (1, 8_000), (2, 22_050)])
    func matchesAIFC(channels: Int, rate: Int) throws {
        let dir = TempDir()
        let (aifc, packets) = try aifcIMA4(dir, channels: channels, rate: rate, frames: rate / 3 + 5)
        #expect(packets.count % (34 * channels) == 0)
        dir.write("x.caf", CAFWriter.ima4(packets: packets, channels: channels, rate: Double(rate), pakt: nil))
        let lib = SoundLibrary(directories: [dir.path])
        let ours = lib.inspect("x.caf")
        let theirs = lib.inspect(aifc)
        #expect(ours.format?.format == "Apple IMA4")
        #expect(ours.format?.container == .caf)
        let a = try #require(try? ours.result.get(), "\(String(describing: ours.problem))")
        let b = try #require(try? theirs.result.get(), "\(String(describing: theirs.problem))")
        #expect(a.channels == channels && a.sampleRate == rate)
        #expect(a.frameCount == packets.count / (34 * channels) * 64)
        #expect(a.samples == b.samples, "CAF ima4 differs from libsndfile's AIFF-C ima4 decode")
        // And it is the tone that was encoded, not merely equal garbage.
        for c in 0..<channels {
            let f = Signal.zeroCrossingFrequency(a.channel(c), rate: rate)
            let want = 440 * (c == 0 ? 1.0 : 1.5)
            #expect(abs(f - want) < want * 0.01, "channel \(c): \(f) Hz")
        }
    }

    @Test("the 'pakt' chunk's priming and valid frames trim the decoded audio")
    func paktTrims() throws {
        let dir = TempDir()
        let (_, packets) = try aifcIMA4(dir, channels: 1, rate: 8_000, frames: 8_000)
        dir.write("full.caf", CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: nil))
        dir.write(
            "trim.caf",
            CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: .init(validFrames: 7_000, priming: 100)))
        let lib = SoundLibrary(directories: [dir.path])
        let full = try lib.inspect("full.caf").result.get()
        let trim = try lib.inspect("trim.caf").result.get()
        #expect(trim.frameCount == 7_000)
        #expect(Array(full.samples[100..<7_100]) == trim.samples)
    }

    @Test("malformed CAF headers are refused with a reason, never crash")
    func malformed() throws {
        let dir = TempDir()
        let (_, packets) = try aifcIMA4(dir, channels: 1, rate: 8_000, frames: 4_000)
        let good = CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: .init(validFrames: 4_000))
        var cases: [(String, [UInt8], String)] = []
        cases.append(("short-desc.caf", Array(good.prefix(8)) + CAFWriter.chunk("desc", [0, 1, 2]), "corrupt"))
        cases.append(
            ("no-desc.caf", Array(good.prefix(8)) + CAFWriter.chunk("data", [0, 0, 0, 0] + packets), "corrupt"))
        cases.append(
            (
                "pakt-too-many.caf",
                CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: .init(validFrames: 5_000_000_000)),
                "truncated"
            ))
        cases.append(
            (
                "pakt-int64-max.caf",
                CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: .init(validFrames: .max, priming: 64)),
                "truncated"
            ))
        cases.append(
            (
                "data-huge.caf",
                CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: nil, dataSize: 1 << 40), "truncated"
            ))
        cases.append(
            (
                "data-negative.caf",
                CAFWriter.ima4(packets: packets, channels: 1, rate: 8_000, pakt: nil, dataSize: -5), "corrupt"
            ))
        cases.append(("cut-mid-packet.caf", Array(good.dropLast(7)), "truncated"))
        cases.append(("cut-in-desc.caf", Array(good.prefix(30)), "truncated"))
        var wrongBPP = good
        wrongBPP[8 + 12 + 16 + 3] = 35  // desc mBytesPerPacket = 35
        cases.append(("bytes-per-packet.caf", wrongBPP, "corrupt"))
        var sixChannels = good
        sixChannels[8 + 12 + 24 + 3] = 6
        cases.append(("six-channels.caf", sixChannels, "unsupported"))
        var zeroRate = good
        for i in 0..<8 { zeroRate[8 + 12 + i] = 0 }
        cases.append(("zero-rate.caf", zeroRate, "unsupported"))
        let lib = SoundLibrary(directories: [dir.path])
        for (name, bytes, kind) in cases {
            dir.write(name, bytes)
            let choice = lib.choose(name)
            #expect(choice.isDefaultTone, "\(name) should not play")
            #expect(choice.problem?.kind == kind, "\(name): \(String(describing: choice.problem))")
        }
    }

    @Test("random corruption of a CAF ima4 file never crashes and stays bounded")
    func fuzz() throws {
        let dir = TempDir()
        let (_, packets) = try aifcIMA4(dir, channels: 2, rate: 8_000, frames: 2_000)
        let good = CAFWriter.ima4(packets: packets, channels: 2, rate: 8_000, pakt: .init(validFrames: 2_000))
        var rng = SystemRandomNumberGenerator()
        let lib = SoundLibrary(directories: [dir.path])
        let start = ContinuousClock.now
        var played = 0
        for i in 0..<300 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                // Mostly the header, where the structure is.
                let at = Int.random(in: 0..<(Bool.random() ? 120 : bytes.count), using: &rng)
                bytes[at] = UInt8.random(in: 0...255, using: &rng)
            }
            if i % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng))) }
            dir.write("f.caf", bytes)
            let choice = lib.choose("f.caf")
            if !choice.isDefaultTone { played += 1 }
            #expect(choice.clip.frameCount <= 30 * choice.clip.sampleRate)
        }
        #expect(ContinuousClock.now - start < .seconds(Slowdown.scaled(30)))
        #expect(played > 0, "some corruptions only touch audio bytes and still play")
    }
}

import Testing

@testable import AlarmAudio

/// What root's `alarm` reads from its decoding child (issue #42): every answer round-trips, and
/// bytes a subverted child might write are refused, never trusted.
@Suite("the decoding child's answer: round trips, and malformed bytes refused")
struct DecodedWireTests {
    static let clip = AudioClip(samples: [0, 0.5, -0.5, 1, -1, 0.25], channels: 2, sampleRate: 44_100)

    @Test("a playable inspection round-trips: format, duration and every sample")
    func playableRoundTrips() throws {
        let sent = SoundInspection(
            name: "chime.flac", path: "/s/chime.flac",
            format: SoundFormat(container: .flac, format: "FLAC 16-bit", channels: 2, sampleRate: 44_100),
            duration: Self.clip.duration, result: .success(Self.clip))
        let got = try DecodedWire.inspection(DecodedWire.encode(sent), path: "/s/chime.flac", name: "chime.flac")
        #expect(got.format == sent.format && got.duration == sent.duration)
        #expect(try got.result.get() == Self.clip)
    }

    @Test("each kind of problem round-trips, named as the parent asked")
    func problemsRoundTrip() throws {
        let problems: [SoundProblem] = [
            .unreadable("x", detail: "Permission denied"), .empty("x"), .tooLong("x", seconds: 41.25),
            .truncated("x", detail: "t"), .corrupt("x", detail: "c"), .unsupported("x", detail: "u"),
            .notFound("x", searched: ["/a", "/b"]), .badName("x", why: "w"), .outsideDirectory("x", resolved: "/r"),
        ]
        for p in problems {
            let sent = SoundInspection(name: "x", path: "/p", format: nil, duration: nil, result: .failure(p))
            #expect(try DecodedWire.inspection(DecodedWire.encode(sent), path: "/p", name: "x").problem == p)
        }
    }

    @Test("cuts round-trip: a clip, a source problem, --from past the end")
    func cutsRoundTrip() throws {
        #expect(try DecodedWire.cut(DecodedWire.encode(cut: .success(Self.clip)), name: "s").get() == Self.clip)
        let refusals: [SoundCutter.Refusal] = [
            .source(.corrupt("s", detail: "d")), .fromPastEnd(from: 200, length: 180.5), .length(31),
        ]
        for r in refusals {
            let got = try DecodedWire.cut(DecodedWire.encode(cut: .failure(r)), name: "s")
            #expect(got == .failure(r))
        }
    }

    @Test("refused: no header, cut short, bytes after the end, another kind, a clip beyond the limits")
    func malformedRefused() {
        let good = DecodedWire.encode(
            SoundInspection(name: "x", path: "/p", format: nil, duration: nil, result: .success(Self.clip)))
        var bad: [[UInt8]] = [[], Array("hello".utf8), Array(good.dropLast()), good + [0]]
        var otherKind = good
        otherKind[DecodedWire.magic.count] = 2
        bad.append(otherKind)
        // A header that claims 3 channels, or 31 s at 1000 Hz (more than a clip may hold).
        for (channels, rate, count) in [(3, 44_100, 6), (1, 1_000, 31_000), (1, 500, 2), (2, 44_100, 5)] {
            var b = DecodedWire.magic + [1, 0, 0, 0]
            for v in [channels, rate, count] { b += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
            b += [UInt8](repeating: 0, count: count * 4)
            bad.append(b)
        }
        for bytes in bad {
            #expect(throws: DecodedWire.Malformed.self) {
                try DecodedWire.inspection(bytes, path: "/p", name: "x")
            }
        }
    }

    @Test("samples that are not finite or beyond -1...1 are made safe")
    func samplesMadeSafe() throws {
        var b = DecodedWire.magic + [1, 0, 0, 0]
        for v in [1, 8_000, 3] { b += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        for s in [Float.nan, 7, -Float.infinity] {
            b += (0..<4).map { UInt8(truncatingIfNeeded: s.bitPattern >> (8 * UInt32($0))) }
        }
        #expect(try DecodedWire.inspection(b, path: "/p", name: "x").result.get().samples == [0, 1, 0])
    }
}

import AlarmAudio
import CSndfile
import Foundation
import Testing

/// One container × data format combination and how close its decoding must come to the reference.
struct Combo: CustomTestStringConvertible, Sendable {
    var label: String
    var ext: String
    var format: Int32
    /// Largest allowed |decoded − reference| (nil: lossy ADPCM, judged by correlation instead).
    var maxError: Float?
    var expectedFormat: String
    /// Written by sox with this `-e` encoding (from a 16-bit WAV) instead of libsndfile, whose
    /// WAV IMA ADPCM writer drops frames and records padded counts.
    var sox: String? = nil
    /// Decoded length may exceed the written one by less than this many frames (whole packets).
    var padding = 1
    var testDescription: String { label }
}

// libsndfile's AIFF writer counts the pad byte of an odd-sized 8-bit SSND chunk as a frame
// (COMM says 4018 for 4017 written), so those three allow one extra frame.
let PCM16: Float = 1.0 / 32768 + 1e-6
let combos: [Combo] = {
    func c(_ l: String, _ e: String, _ major: Int, _ sub: Int, _ err: Float?, _ name: String) -> Combo {
        Combo(label: l, ext: e, format: Int32(major | sub), maxError: err, expectedFormat: name)
    }
    let W = Int(SF_FORMAT_WAV)
    let X = Int(SF_FORMAT_WAVEX)
    let A = Int(SF_FORMAT_AIFF)
    let C = Int(SF_FORMAT_CAF)
    let L = Int(SF_ENDIAN_LITTLE)
    return [
        c("WAV u8", "wav", W, Int(SF_FORMAT_PCM_U8), 1.0 / 128 + 1e-4, "PCM u8"),
        c("WAV s16", "wav", W, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("WAV s24", "wav", W, Int(SF_FORMAT_PCM_24), 1e-6, "PCM s24"),
        c("WAV s32", "wav", W, Int(SF_FORMAT_PCM_32), 1e-6, "PCM s32"),
        c("WAV float32", "wav", W, Int(SF_FORMAT_FLOAT), 1e-7, "float32"),
        c("WAV float64", "wav", W, Int(SF_FORMAT_DOUBLE), 1e-7, "float64"),
        c("WAV µ-law", "wav", W, Int(SF_FORMAT_ULAW), 0.02, "µ-law"),
        c("WAV a-law", "wav", W, Int(SF_FORMAT_ALAW), 0.02, "a-law"),
        // libsndfile writes the whole last block and a padded (mono) or halved (stereo) 'fact'
        // count, so up to one block of padding decodes. (sox's stereo IMA ADPCM encoder glitches at
        // block starts, so it is not the writer here; the exact-length case uses sox mono.)
        {
            var x = c("WAV IMA ADPCM", "wav", W, Int(SF_FORMAT_IMA_ADPCM), nil, "IMA ADPCM")
            x.padding = 2048
            return x
        }(),
        c("WAV MS ADPCM", "wav", W, Int(SF_FORMAT_MS_ADPCM), nil, "MS ADPCM"),
        c("WAV extensible u8", "wav", X, Int(SF_FORMAT_PCM_U8), 1.0 / 128 + 1e-4, "PCM u8"),
        c("WAV extensible s16", "wav", X, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("WAV extensible s24", "wav", X, Int(SF_FORMAT_PCM_24), 1e-6, "PCM s24"),
        c("WAV extensible s32", "wav", X, Int(SF_FORMAT_PCM_32), 1e-6, "PCM s32"),
        c("WAV extensible float32", "wav", X, Int(SF_FORMAT_FLOAT), 1e-7, "float32"),
        c("WAV extensible µ-law", "wav", X, Int(SF_FORMAT_ULAW), 0.02, "µ-law"),
        c("WAV extensible a-law", "wav", X, Int(SF_FORMAT_ALAW), 0.02, "a-law"),
        {
            var x = c("AIFF s8", "aiff", A, Int(SF_FORMAT_PCM_S8), 1.0 / 128 + 1e-4, "PCM s8")
            x.padding = 2
            return x
        }(),
        c("AIFF s16", "aiff", A, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("AIFF s24", "aiff", A, Int(SF_FORMAT_PCM_24), 1e-6, "PCM s24"),
        c("AIFF s32", "aiff", A, Int(SF_FORMAT_PCM_32), 1e-6, "PCM s32"),
        c("AIFF-C float32", "aifc", A, Int(SF_FORMAT_FLOAT), 1e-7, "float32"),
        c("AIFF-C float64", "aifc", A, Int(SF_FORMAT_DOUBLE), 1e-7, "float64"),
        {
            var x = c("AIFF-C µ-law", "aifc", A, Int(SF_FORMAT_ULAW), 0.02, "µ-law")
            x.padding = 2
            return x
        }(),
        {
            var x = c("AIFF-C a-law", "aifc", A, Int(SF_FORMAT_ALAW), 0.02, "a-law")
            x.padding = 2
            return x
        }(),
        {
            var x = c("AIFF-C ima4", "aifc", A, Int(SF_FORMAT_IMA_ADPCM), nil, "Apple IMA4")
            x.padding = 64
            return x
        }(),
        c("CAF s8", "caf", C, Int(SF_FORMAT_PCM_S8), 1.0 / 128 + 1e-4, "PCM s8"),
        c("CAF s16", "caf", C, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("CAF s24", "caf", C, Int(SF_FORMAT_PCM_24), 1e-6, "PCM s24"),
        c("CAF s32", "caf", C, Int(SF_FORMAT_PCM_32), 1e-6, "PCM s32"),
        c("CAF float32", "caf", C, Int(SF_FORMAT_FLOAT), 1e-7, "float32"),
        c("CAF float64", "caf", C, Int(SF_FORMAT_DOUBLE), 1e-7, "float64"),
        c("CAF µ-law", "caf", C, Int(SF_FORMAT_ULAW), 0.02, "µ-law"),
        c("CAF a-law", "caf", C, Int(SF_FORMAT_ALAW), 0.02, "a-law"),
        // Little-endian variants: AIFF-C 'sowt', and CAF lpcm as afconvert writes by default (LEI16).
        c("AIFF-C sowt s16 (little-endian)", "aifc", A | L, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("CAF s16 little-endian", "caf", C | L, Int(SF_FORMAT_PCM_16), PCM16, "PCM s16"),
        c("CAF s24 little-endian", "caf", C | L, Int(SF_FORMAT_PCM_24), 1e-6, "PCM s24"),
        c("CAF float32 little-endian", "caf", C | L, Int(SF_FORMAT_FLOAT), 1e-7, "float32"),
        c("CAF ALAC 16", "caf", C, Int(SF_FORMAT_ALAC_16), PCM16, "ALAC 16"),
        c("CAF ALAC 24", "caf", C, Int(SF_FORMAT_ALAC_24), 1e-6, "ALAC 24"),
    ]
}()

/// (channels, rate) shapes each combination is tested in.
let shapes: [(Int, Int)] = [(1, 8_000), (2, 44_100), (1, 48_000), (2, 22_050), (1, 11_025), (2, 96_000)]

@Suite("Decoding every container × data format against a reference sine")
struct DecodeTests {
    @Test("decodes to the reference samples", arguments: combos)
    func decodes(_ combo: Combo) throws {
        let dir = TempDir()
        for (channels, rate) in shapes {
            let frames = rate / 2 + 17  // not a whole number of ADPCM blocks
            let reference = Signal.sine(frequency: 440, rate: rate, channels: channels, frames: frames)
            let name = "tone-\(channels)ch-\(rate).\(combo.ext)"
            if let enc = combo.sox {
                try Fixture.write(
                    dir.file("src.wav"), samples: reference, channels: channels, rate: rate, format: combo.format)
                try Fixture.run(["sox", "-D", dir.file("src.wav"), "-e", enc, dir.file(name)])
            } else {
                try Fixture.write(
                    dir.file(name), samples: reference, channels: channels, rate: rate, format: combo.format)
            }
            let lib = SoundLibrary(directories: [dir.path])
            let inspection = lib.inspect(name)
            let clip = try #require(
                try? inspection.result.get(),
                "\(combo.label) \(channels)ch \(rate) Hz: \(String(describing: inspection.problem))")
            #expect(inspection.format?.format == combo.expectedFormat)
            #expect(clip.channels == channels)
            #expect(clip.sampleRate == rate)
            #expect(
                clip.frameCount >= frames && clip.frameCount < frames + combo.padding,
                "\(combo.label) \(channels)ch \(rate) Hz: \(clip.frameCount) frames, wrote \(frames)")
            for c in 0..<channels {
                let got = Array(clip.channel(c).prefix(frames))
                let want = Signal.channel(reference, c, of: channels)
                let f = Signal.zeroCrossingFrequency(got, rate: rate)
                let expectedF = 440 * (c == 0 ? 1 : 1.5)
                #expect(
                    abs(f - expectedF) < expectedF * 0.01,
                    "\(combo.label) \(channels)ch \(rate) Hz channel \(c): \(f) Hz")
                if let maxError = combo.maxError {
                    let err = Signal.maxAbsError(got, want)
                    #expect(err <= maxError, "\(combo.label) \(channels)ch \(rate) Hz channel \(c): max error \(err)")
                } else {
                    let r = Signal.correlation(got, want)
                    #expect(r > 0.99, "\(combo.label) \(channels)ch \(rate) Hz channel \(c): correlation \(r)")
                }
            }
        }
    }
}

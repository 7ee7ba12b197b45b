import AlarmAudio
import AlarmTestSupport
import CSndfile
import Foundation
import Testing

/// Corrupted files through the whole path (our container walk, then libsndfile): never a crash,
/// never a hang, never more than 30 s kept.
@Suite("Corrupted files of every container")
struct FuzzTests {
    static let formats: [(String, Int32)] = [
        ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)), ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM)),
        ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_MS_ADPCM)), ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_ULAW)),
        ("aiff", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_24)), ("aifc", Int32(SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM)),
        ("aifc", Int32(SF_FORMAT_AIFF | SF_FORMAT_FLOAT)), ("caf", Int32(SF_FORMAT_CAF | SF_FORMAT_ALAC_16)),
        ("caf", Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_16)), ("caf", Int32(SF_FORMAT_CAF | SF_FORMAT_ALAW)),
    ]

    @Test("random byte changes and cuts", arguments: 0..<formats.count)
    func corrupt(_ index: Int) throws {
        let (ext, format) = Self.formats[index]
        let dir = TempDir()
        try Fixture.write(
            dir.file("good." + ext), samples: Signal.sine(frequency: 440, rate: 8_000, channels: 2, frames: 3_000),
            channels: 2, rate: 8_000, format: format)
        let good = dir.bytes("good." + ext)
        let lib = SoundLibrary(directories: [dir.path])
        var rng = SystemRandomNumberGenerator()
        let start = ContinuousClock.now
        for i in 0..<150 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<(Bool.random() ? min(200, bytes.count) : bytes.count), using: &rng)
                bytes[at] = Bool.random() ? 0xFF : UInt8.random(in: 0...255, using: &rng)
            }
            if i % 4 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng))) }
            dir.write("f." + ext, bytes)
            let choice = lib.choose("f." + ext)
            #expect(choice.clip.frameCount <= 30 * choice.clip.sampleRate)
            #expect(choice.clip.frameCount > 0)
            if choice.isDefaultTone { #expect(choice.problem != nil) }
        }
        #expect(ContinuousClock.now - start < .seconds(Slowdown.scaled(60)))
    }
}

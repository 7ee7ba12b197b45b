/// Decoded audio held in memory: interleaved Float32 frames in -1...1.
///
/// A clip is decoded once and then looped by the player; it never refers back to its file.
public struct AudioClip: Sendable, Equatable {
    /// Interleaved samples: frame `i`, channel `c` is `samples[i * channels + c]`.
    public var samples: [Float]
    public var channels: Int
    public var sampleRate: Int

    public init(samples: [Float], channels: Int, sampleRate: Int) {
        precondition(channels > 0 && sampleRate > 0)
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frameCount: Int { samples.count / channels }
    /// Seconds, from the frames actually held.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The samples of one channel.
    public func channel(_ c: Int) -> [Float] {
        precondition(c >= 0 && c < channels)
        return stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }
}

/// The container of a sound file, told from its first bytes (never from its extension).
public enum Container: String, Sendable, Codable {
    case wav = "WAV"
    case aiff = "AIFF"
    case aifc = "AIFF-C"
    case caf = "CAF"
    case flac = "FLAC"
    case ogg = "Ogg"
    case mp3 = "MP3"
}

/// What a sound file is, as far as its header tells: for `alarm sounds` and logs.
public struct SoundFormat: Sendable, Equatable {
    public var container: Container
    /// The data format, e.g. "PCM s16", "float32", "µ-law", "IMA ADPCM", "Apple IMA4", "ALAC 16".
    public var format: String
    public var channels: Int
    public var sampleRate: Int
}

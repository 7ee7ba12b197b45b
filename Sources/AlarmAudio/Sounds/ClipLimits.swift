/// The bounds every clip is checked against before a single sample is kept.
///
/// They keep decoding bounded in memory and time: at most `maxDuration` seconds of at most
/// `maxChannels` channels at at most `maxSampleRate` Hz are ever held (2 × 192 000 × 30 × 4 bytes
/// = 46 MB in the worst case), whatever a header claims.
public enum ClipLimits {
    /// Clips longer than this are not played (the seeds' 30-second rule). Exactly 30.0 s plays.
    public static let maxDuration: Double = 30
    /// The same limit as an integer, so the check `frames <= maxSeconds * rate` is exact.
    public static let maxSeconds = 30
    /// Clips under this rate are refused: nothing under 500 Hz could be heard in them.
    public static let minSampleRate = 1_000
    /// The lowest rate alsa-lib's `plug` layer (on `default` and every `plughw:`) accepts: clips
    /// from `minSampleRate` up to this are resampled when decoded (`Resampler`).
    public static let minDeviceRate = 4_000
    public static let maxSampleRate = 192_000
    public static let maxChannels = 2
    /// Chunks walked in a container before the file is called corrupt.
    static let maxChunks = 4_096

    /// The largest frame count that still plays at `rate`.
    public static func maxFrames(rate: Int) -> Int { maxSeconds * rate }
}

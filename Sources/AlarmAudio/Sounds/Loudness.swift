/// Volume and fade-in, applied by scaling samples ourselves so no mixer control is needed.
///
/// `volume` is a percentage of full amplitude (50 → half amplitude, about -6 dB). The fade rises
/// linearly in amplitude from `fromPercent` (default 0: silence) at the first frame to `volume`
/// after `fadeIn` seconds of played audio (pauses between loops count), then stays there.
public struct Loudness: Sendable, Equatable {
    public var volumePercent: Double
    public var fadeIn: Double
    /// Where the fade starts, in percent of full amplitude (`--volume-from`, issue #13).
    public var fromPercent: Double

    public init(volumePercent: Double = 100, fadeIn: Double = 0, fromPercent: Double = 0) {
        self.volumePercent = min(100, max(0, volumePercent.isFinite ? volumePercent : 100))
        self.fadeIn = max(0, fadeIn.isFinite ? fadeIn : 0)
        self.fromPercent = min(100, max(0, fromPercent.isFinite ? fromPercent : 0))
    }

    /// The factor for the frame `position` frames after the start, at `rate` Hz.
    public func gain(atFrame position: Int, rate: Int) -> Float {
        let full = Float(volumePercent / 100)
        guard fadeIn > 0 else { return full }
        let fadeFrames = fadeIn * Double(rate)
        let x = Double(position) / fadeFrames
        guard x < 1 else { return full }
        let start = Float(fromPercent / 100)
        return start + (full - start) * Float(x)
    }

    /// `sample × gain` as a 16-bit sample, clipped to the 16-bit range.
    @inline(__always)
    static func s16(_ sample: Float, _ gain: Float) -> Int16 {
        let v = (sample * gain * 32767).rounded()
        return Int16(max(-32768, min(32767, v.isNaN ? 0 : v)))
    }
}

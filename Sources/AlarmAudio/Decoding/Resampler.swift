import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Raises the sample rate of a clip that devices refuse: alsa-lib's `plug` layer accepts 4000 to
/// 192000 Hz, so a 2000 Hz clip fails in `snd_pcm_set_params` on `default` and every `plughw:` and
/// would ring nothing. Such clips are raised by a whole factor to at least `targetFloor` Hz when
/// they are decoded, so what reaches ALSA is always a rate its plug layer takes.
///
/// The method is band-limited interpolation (a windowed sinc, Blackman window, 16 input samples
/// each side), precomputed as one filter per output phase. Each phase's taps are normalised to a
/// sum of 1, so a constant stays exactly constant; the cutoff sits at 0.9 of the input's Nyquist
/// frequency so the images the upsampling makes above it are suppressed rather than played.
/// Cost: 32 multiply-adds per output sample; a 30 s clip at 2000 Hz raised to 8000 Hz is 240,000
/// frames.
public enum Resampler {
    /// Clips are raised to at least this rate (twice the plug layer's floor, a rate every sound
    /// card's converters and PulseAudio take).
    static let targetFloor = 8_000
    /// Input samples on each side of an output sample.
    static let halfWidth = 16
    /// Cutoff as a share of the input's Nyquist frequency.
    static let cutoff = 0.9

    /// The whole factor that takes `rate` to at least `targetFloor` (1 when it is there already).
    public static func factor(for rate: Int) -> Int {
        precondition(rate > 0)
        return max(1, (targetFloor + rate - 1) / rate)
    }

    /// `clip` at `factor` times its rate, same length in seconds; samples stay in -1...1.
    public static func upsample(_ clip: AudioClip, by factor: Int) -> AudioClip {
        precondition(factor >= 1)
        guard factor > 1 else { return clip }
        let ch = clip.channels
        let n = clip.frameCount
        let taps = 2 * halfWidth
        let table = coefficients(factor: factor)
        var out = [Float](repeating: 0, count: n * factor * ch)
        clip.samples.withUnsafeBufferPointer { x in
            table.withUnsafeBufferPointer { h in
                out.withUnsafeMutableBufferPointer { y in
                    for i in 0..<n {
                        // Output frames i*factor ..< (i+1)*factor lie between input frames i and i+1;
                        // tap t weighs input frame i + t - halfWidth + 1.
                        let first = i - halfWidth + 1
                        let tLow = max(0, -first)
                        let tHigh = min(taps, n - first)
                        for p in 0..<factor {
                            let row = p * taps
                            let o = (i * factor + p) * ch
                            for c in 0..<ch {
                                var acc: Float = 0
                                var t = tLow
                                while t < tHigh {
                                    acc += h[row + t] * x[(first + t) * ch + c]
                                    t += 1
                                }
                                y[o + c] = max(-1, min(1, acc))
                            }
                        }
                    }
                }
            }
        }
        return AudioClip(samples: out, channels: ch, sampleRate: clip.sampleRate * factor)
    }

    /// One row of `2 * halfWidth` taps per phase p (output at input time i + p / factor).
    static func coefficients(factor: Int) -> [Float] {
        let taps = 2 * halfWidth
        var table = [Float](repeating: 0, count: factor * taps)
        for p in 0..<factor {
            let frac = Double(p) / Double(factor)
            var row = [Double](repeating: 0, count: taps)
            for t in 0..<taps {
                // Distance, in input samples, from the output instant to input frame i + t - halfWidth + 1.
                let x = frac - Double(t - halfWidth + 1)
                row[t] = cutoff * sinc(cutoff * x) * blackman(x / Double(halfWidth))
            }
            let sum = row.reduce(0, +)
            for t in 0..<taps { table[p * taps + t] = Float(row[t] / sum) }
        }
        return table
    }

    static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// The Blackman window over -1...1 (0 at the ends).
    static func blackman(_ u: Double) -> Double {
        guard abs(u) < 1 else { return 0 }
        return 0.42 + 0.5 * cos(Double.pi * u) + 0.08 * cos(2 * Double.pi * u)
    }
}

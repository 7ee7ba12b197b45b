import Foundation

/// Reference signals and the measures tests compare decoded audio with.
enum Signal {
    /// `frames` frames of a sine at `frequency` Hz (channel 0) and `frequency × 1.5` (channel 1),
    /// amplitude `amplitude`, interleaved.
    static func sine(frequency: Double, rate: Int, channels: Int, frames: Int, amplitude: Double = 0.5) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                let f = frequency * (c == 0 ? 1 : 1.5)
                out[i * channels + c] = Float(amplitude * sin(2 * .pi * f * Double(i) / Double(rate)))
            }
        }
        return out
    }

    static func channel(_ s: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: s.count, by: channels).map { s[$0] }
    }

    /// Frequency from the count of rising crossings of +`threshold` after a dip below −`threshold`
    /// (a Schmitt trigger, so codec glitches near zero do not count).
    static func zeroCrossingFrequency(_ x: [Float], rate: Int, threshold: Float = 0.1) -> Double {
        guard x.count > 1 else { return 0 }
        var first = -1
        var last = -1
        var count = 0
        var armed = false
        for i in 0..<x.count {
            if x[i] < -threshold { armed = true }
            if armed && x[i] > threshold {
                armed = false
                if first < 0 { first = i }
                last = i
                count += 1
            }
        }
        guard count > 1 else { return 0 }
        return Double(count - 1) * Double(rate) / Double(last - first)
    }

    /// Power of `x` at `frequency` (Goertzel), normalised by length.
    static func goertzel(_ x: ArraySlice<Float>, frequency: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * frequency / Double(rate)
        let coeff = 2 * cos(w)
        var s1 = 0.0
        var s2 = 0.0
        for v in x {
            let s0 = Double(v) + coeff * s1 - s2
            s2 = s1
            s1 = s0
        }
        let p = s1 * s1 + s2 * s2 - coeff * s1 * s2
        return p / Double(max(1, x.count * x.count))
    }

    static func maxAbsError(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
    }

    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        guard n > 0 else { return 0 }
        var ab = 0.0
        var aa = 0.0
        var bb = 0.0
        for i in 0..<n {
            ab += Double(a[i]) * Double(b[i])
            aa += Double(a[i]) * Double(a[i])
            bb += Double(b[i]) * Double(b[i])
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    static func rms(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    static func peak(_ x: ArraySlice<Float>) -> Float { x.map { abs($0) }.max() ?? 0 }
}

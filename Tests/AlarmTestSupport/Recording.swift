import Foundation

/// Measures on recorded 16-bit audio, for checking *what* came out of the speaker.
public enum Recording {
    /// Power at `frequency` (Goertzel), normalised by length; comparable between frequencies.
    public static func power(_ x: ArraySlice<Int16>, at frequency: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * frequency / Double(rate)
        let coeff = 2 * cos(w)
        var s1 = 0.0
        var s2 = 0.0
        for v in x {
            let s0 = Double(v) / 32768 + coeff * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1 * s1 + s2 * s2 - coeff * s1 * s2) / Double(max(1, x.count * x.count))
    }

    /// Which of `candidates` dominates `x`.
    public static func dominant(_ x: ArraySlice<Int16>, among candidates: [Double], rate: Int) -> Double {
        candidates.max { power(x, at: $0, rate: rate) < power(x, at: $1, rate: rate) }!
    }

    /// `x` from `from` on in 20 ms windows: "-" where the window's peak is under `quiet`, else the
    /// frequency among `candidates` that dominates it, in whole Hz ("660").
    public static func windows(
        _ x: [Int16], from: Int, rate: Int, among candidates: [Double], quiet: Int = 300
    ) -> [String] {
        let w = rate / 50
        var out: [String] = []
        var i = from
        while i + w <= x.count {
            let window = x[i..<(i + w)]
            out.append(peak(window) < quiet ? "-" : String(Int(dominant(window, among: candidates, rate: rate))))
            i += w
        }
        return out
    }

    /// The longest run of quiet ("-") windows of `windows` in `a..<b`, in seconds.
    public static func longestQuiet(_ w: [String], _ a: Int, _ b: Int) -> Double {
        var longest = 0
        var run = 0
        for i in a..<max(a, b) {
            run = w[i] == "-" ? run + 1 : 0
            longest = max(longest, run)
        }
        return Double(longest) * 0.02
    }

    /// The largest absolute sample.
    public static func peak(_ x: ArraySlice<Int16>) -> Int { x.map { abs(Int($0)) }.max() ?? 0 }

    /// Index of the first sample at or after `from` louder than `threshold`.
    public static func firstSound(_ x: [Int16], from: Int = 0, threshold: Int = 1000) -> Int? {
        guard from < x.count else { return nil }
        return x[from...].firstIndex { abs(Int($0)) > threshold }
    }

    /// Index of the start of the first run of at least `length` quiet samples at or after `from`.
    public static func firstSilence(_ x: [Int16], from: Int, length: Int, threshold: Int = 200) -> Int? {
        var run = 0
        var i = from
        while i < x.count {
            if abs(Int(x[i])) <= threshold {
                run += 1
                if run >= length { return i - length + 1 }
            } else {
                run = 0
            }
            i += 1
        }
        return nil
    }

    /// Writes a 16-bit PCM mono WAV of a sine: a test sound whose frequency tells it apart.
    public static func writeSineWAV(
        path: String, frequency: Double, seconds: Double, rate: Int = 48_000, amplitude: Double = 0.5
    ) throws {
        let frames = Int(seconds * Double(rate))
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(UInt32(36 + frames * 2))
        data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8))
        u32(16)
        u16(1)
        u16(1)
        u32(UInt32(rate))
        u32(UInt32(rate * 2))
        u16(2)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(UInt32(frames * 2))
        for i in 0..<frames {
            let v = Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double(i) / Double(rate)))
            u16(UInt16(bitPattern: v))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}

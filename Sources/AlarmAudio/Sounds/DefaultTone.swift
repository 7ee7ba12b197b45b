import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The built-in alarm sound, synthesised in code so it can never go missing: four short 880 Hz
/// beeps (an A5, clear on small speakers) with soft 5 ms edges so they do not click.
/// The player loops it like any clip, with its usual pause in between.
public enum DefaultTone {
    public static let frequency: Double = 880
    public static let sampleRate = 48_000
    public static let beeps = 4
    public static let beepSeconds = 0.1
    public static let gapSeconds = 0.1
    public static let amplitude: Float = 0.6

    /// The tone as a mono clip at 48 kHz (0.8 s: beep, gap, beep, gap, …).
    public static func clip() -> AudioClip {
        let beepFrames = Int(beepSeconds * Double(sampleRate))
        let gapFrames = Int(gapSeconds * Double(sampleRate))
        let edge = Int(0.005 * Double(sampleRate))
        var samples: [Float] = []
        samples.reserveCapacity(beeps * (beepFrames + gapFrames))
        for _ in 0..<beeps {
            for i in 0..<beepFrames {
                let t = Double(i) / Double(sampleRate)
                var env = 1.0
                if i < edge { env = 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(edge)) }
                if i >= beepFrames - edge {
                    env = 0.5 - 0.5 * cos(Double.pi * Double(beepFrames - 1 - i) / Double(edge))
                }
                samples.append(amplitude * Float(env * sin(2 * Double.pi * frequency * t)))
            }
            samples.append(contentsOf: repeatElement(0, count: gapFrames))
        }
        return AudioClip(samples: samples, channels: 1, sampleRate: sampleRate)
    }
}

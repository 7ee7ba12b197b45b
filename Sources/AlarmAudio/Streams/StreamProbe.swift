import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `alarm check` and alarmd's pre-flight on a stream (issue #43): connects through alarm-stream
/// and waits for `seconds` of decoded audio, then closes (alarm-stream stops fetching).
public enum StreamProbe {
    public enum Outcome: Equatable, Sendable {
        /// The format and the time the audio took: "mp3, 44100 Hz, 2 ch; 1 s of audio in 0.4 s".
        case plays(String)
        /// Why not: names the URL.
        case fails(String)
    }

    public static func probe(url: String, socketPath: String, timeout: Double, seconds: Double = 1) -> Outcome {
        let stream = LiveStream(url: url, socketPath: socketPath, timeout: timeout)
        let begun = ContinuousClock.now
        stream.start()
        defer { stream.stop() }
        // A stream that gives audio never goes `timeout` without it; one that gives too little
        // to make up `seconds` in this long is no stream to wake to either.
        let limit = Duration.milliseconds(Int64((timeout + seconds + 2) * 1000))
        while ContinuousClock.now - begun < limit {
            if let reason = stream.failureReason { return .fails(reason) }
            if stream.bufferedSeconds >= seconds, let format = stream.currentFormat {
                let took = (ContinuousClock.now - begun)
                let s = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
                let played = format.url.isEmpty || format.url == url ? "" : " (playing \(format.url))"
                return .plays("\(format)\(played); \(Int(seconds)) s of audio in \(formatSeconds(s)) s")
            }
            usleep(20_000)
        }
        return .fails("stream \(url): less than \(Int(seconds)) s of audio in \(Int(timeout + seconds + 2)) s")
    }

    private static func formatSeconds(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

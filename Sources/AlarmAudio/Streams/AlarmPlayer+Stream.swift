import AlarmSystem
import FoundationEssentials

// A ring of a stream (issue #43): the stream's audio through the same device chain, volume and
// fade-in as a clip, and its fallback the moment it fails.
extension AlarmPlayer {
    /// Rings `stream` (started here) and returns at once. Until its header comes the ring waits
    /// (the stream fails by itself after its `timeout`); the device is then opened in the
    /// stream's rate and channels (alsa-lib's plug layer converts). When the stream fails, before
    /// or during the ring, `fallback` loops for the rest of the ring, at once, and
    /// `onStreamFailed` is called once with the stream's reason (on a player thread). `stop()`
    /// closes the stream. Otherwise as `start`.
    public func start(
        stream: LiveStream, fallback: AudioClip, loudness: Loudness = Loudness(), maxDuration: Double? = nil,
        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
        onFailure: (@Sendable (String) -> Void)? = nil,
        onStreamFailed: @escaping @Sendable (String) -> Void
    ) {
        begin(go: true)
        stream.start()
        startThread(named: "alarm-player") { [self] in
            defer { stream.stop() }
            var ignored: AlsaError?
            // The stream's own watchdog fails it within its timeout; the limit here is a backstop.
            let ready = stream.waitForFormat(
                limit: .seconds(stream.timeout + 5), stopping: { [self] in locked { stopRequested } })
            let summary: PlaybackSummary
            switch ready {
            case .format(let format):
                // The timeline's clip is the fallback in the stream's format: the device is opened
                // for it, and it plays there once the stream fails.
                summary = ring(
                    fallback.converted(rate: format.rate, channels: format.channels), loudness: loudness, loop: true,
                    maxDuration: maxDuration, retryForever: true,
                    startAt: nil, onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure,
                    live: LiveFeed(stream: stream, onFallback: onStreamFailed))
            case .failed, .stopped:
                if locked({ stopRequested }) {
                    summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: true)
                    break
                }
                stream.stop()
                onStreamFailed(
                    stream.failureReason ?? "stream \(stream.url): no audio within \(Int(stream.timeout.rounded())) s")
                summary = ring(
                    fallback, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true,
                    startAt: nil, onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure)
            }
            finish(summary)
        }
    }
}

extension AudioClip {
    /// The clip at `rate` Hz with `channels` channels (linear interpolation; a mono clip on every
    /// channel, channel `c` from channel `c % channels` otherwise): a fallback played on a device
    /// opened for a stream's format.
    public func converted(rate: Int, channels outChannels: Int) -> AudioClip {
        guard rate != sampleRate || outChannels != channels else { return self }
        let inFrames = frameCount
        let outFrames =
            inFrames == 0 ? 0 : max(1, Int((Double(inFrames) * Double(rate) / Double(sampleRate)).rounded()))
        var out = [Float](repeating: 0, count: outFrames * outChannels)
        let step = Double(sampleRate) / Double(rate)
        samples.withUnsafeBufferPointer { src in
            for i in 0..<outFrames {
                let x = Double(i) * step
                let i0 = min(inFrames - 1, Int(x))
                let i1 = min(inFrames - 1, i0 + 1)
                let t = Float(x - Double(i0))
                for c in 0..<outChannels {
                    let sc = c % channels
                    let a = src[i0 * channels + sc]
                    let b = src[i1 * channels + sc]
                    out[i * outChannels + c] = a + (b - a) * t
                }
            }
        }
        return AudioClip(samples: out, channels: outChannels, sampleRate: rate)
    }
}

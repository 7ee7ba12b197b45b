/// The audio of a ring as an endless (or bounded) sequence of 16-bit frames: clip, pause, clip, …
/// with the loudness envelope applied; or a stream's audio as it comes, then the clip once the
/// stream failed (`live`). Pure for a clip; the position survives a change of device.
struct Timeline {
    let clip: AudioClip
    let loudness: Loudness
    let loop: Bool
    let pauseFrames: Int
    let endFrame: Int?
    private(set) var position = 0
    /// A stream (issue #43): its audio plays (`clip` is its fallback, converted to the stream's
    /// format) until it fails; from then on the fallback loops, from `fallbackFrom`.
    let live: LiveFeed?
    private(set) var fallbackFrom: Int?
    private var liveSamples: [Float] = []

    init(clip: AudioClip, loudness: Loudness, loop: Bool, pauseFrames: Int, endFrame: Int?, live: LiveFeed? = nil) {
        self.clip = clip
        self.loudness = loudness
        self.loop = loop
        self.pauseFrames = max(0, pauseFrames)
        self.endFrame = endFrame
        self.live = live
    }

    /// Fills up to `frames` frames; returns how many (0 at the end).
    mutating func render(into buffer: inout [Int16], frames: Int) -> Int {
        let ch = clip.channels
        let clipFrames = clip.frameCount
        let cycle = clipFrames + pauseFrames
        var n = frames
        if !loop { n = min(n, clipFrames - position) }
        if let endFrame { n = min(n, endFrame - position) }
        guard n > 0, cycle > 0 else { return 0 }
        if let live, fallbackFrom == nil {
            if let reason = live.stream.failureReason {
                fallbackFrom = position
                if live.stream.claimFallback() { live.onFallback(reason) }
            } else {
                live.stream.take(into: &liveSamples, frames: n)
                for i in 0..<n {
                    let g = loudness.gain(atFrame: position + i, rate: clip.sampleRate)
                    for c in 0..<ch { buffer[i * ch + c] = Loudness.s16(liveSamples[i * ch + c], g) }
                }
                position += n
                return n
            }
        }
        let offset = fallbackFrom ?? 0
        clip.samples.withUnsafeBufferPointer { src in
            for i in 0..<n {
                let pos = position + i
                let inCycle = (pos - offset) % cycle
                let g = loudness.gain(atFrame: pos, rate: clip.sampleRate)
                for c in 0..<ch {
                    buffer[i * ch + c] = inCycle < clipFrames ? Loudness.s16(src[inCycle * ch + c], g) : 0
                }
            }
        }
        position += n
        return n
    }
}

/// A ring's stream as the timeline plays it: the stream, and who hears of its fallback.
struct LiveFeed: @unchecked Sendable {
    let stream: LiveStream
    /// Called once, on the device's thread, when the stream failed and the fallback takes over.
    let onFallback: @Sendable (String) -> Void
}

import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// A device's thread: it opens the device (or the default tone on it), waits for a pre-rolled
// ring's instant, feeds the audio, then drops or drains and closes the device. The ring's thread
// (AlarmPlayer+DeviceChain.swift) watches it.
extension AlarmPlayer {
    private func stopping(_ run: DeviceRun) -> Bool { locked { stopRequested || run.abandoned } }

    /// Opens the device (or the default tone on it), waits for a pre-rolled ring's instant, feeds
    /// it, drops or drains it, and closes it.
    func play(
        _ run: DeviceRun, _ setup: Setup, maySubstitute: Bool, onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?
    ) {
        var timeline = locked { run.timeline }
        let end: FeedEnd
        do throws(AlsaError) {
            let pcm = try open(run, &timeline, setup, maySubstitute: maySubstitute)
            if !waitForStart(setup.startAt, run) {
                inCall(run, "snd_pcm_close") { pcm.close() }
                end = .stopped
            } else {
                end = feed(pcm, run, &timeline, setup, onFirstFrame)
                locked { run.feedEnd = end }
                switch end {
                case .finished where !setup.loop:
                    let rc = inCall(run, "snd_pcm_drain") { pcm.drain() }
                    if rc < 0 { log("alarm: \(AlsaError(device: run.name, operation: "snd_pcm_drain", code: rc))") }
                default:
                    inCall(run, "snd_pcm_drop") { pcm.drop() }
                }
                inCall(run, "snd_pcm_close") { pcm.close() }
            }
        } catch {
            end = .unavailable(error)
        }
        lock.lock()
        if !run.abandoned {
            run.timeline = timeline
            run.end = end
        }
        lock.broadcast()
        lock.unlock()
    }

    /// Opens `run`'s device for the clip; one that refuses the clip's rate or channels (a `hw:`
    /// PCM without conversion) is opened for the default tone instead, once per ring, and
    /// `timeline` moves onto the tone (what is left of `maxDuration` still bounds it).
    private func open(
        _ run: DeviceRun, _ timeline: inout Timeline, _ setup: Setup, maySubstitute: Bool
    ) throws(AlsaError) -> AlsaPCM {
        let clip = timeline.clip
        do throws(AlsaError) {
            let pcm = try inCall(run, "snd_pcm_open") { () throws(AlsaError) -> AlsaPCM in
                try AlsaPCM(
                    name: run.name, channels: clip.channels, rate: clip.sampleRate, latencyMicros: setup.latency)
            }
            locked { run.opened = true }
            return pcm
        } catch {
            let tone = DefaultTone.clip()
            guard maySubstitute, error.refusedParameters, !stopping(run),
                clip.channels != tone.channels || clip.sampleRate != tone.sampleRate,
                let pcm = try? inCall(
                    run, "snd_pcm_open",
                    { () throws(AlsaError) -> AlsaPCM in
                        try AlsaPCM(
                            name: run.name, channels: tone.channels, rate: tone.sampleRate, latencyMicros: setup.latency
                        )
                    })
            else { throw error }
            log("alarm: \(error)")
            let substitution =
                "ALSA device '\(run.name)' cannot play the sound as it is (\(clip.channels) ch, \(clip.sampleRate) Hz: \(error.text))"
            log("alarm: \(substitution); playing the default tone instead")
            let elapsed = Double(timeline.position) / Double(clip.sampleRate)
            timeline = Timeline(
                clip: tone, loudness: timeline.loudness, loop: timeline.loop,
                pauseFrames: Int(setup.pause * Double(tone.sampleRate)),
                endFrame: setup.maxDuration.map { Int(max(0, $0 - elapsed) * Double(tone.sampleRate)) })
            locked {
                run.opened = true
                run.substitution = substitution
                run.timeline = timeline
            }
            return pcm
        }
    }

    /// A pre-rolled ring's start (nil: it sounds at once): waits until its instant, or `go()`, or
    /// `stop()`; false when it is to stop (or `run` was given up).
    func waitForStart(_ startAt: (instant: Date, window: TimeInterval)?, _ run: DeviceRun? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        func stop() -> Bool { stopRequested || run?.abandoned == true }
        guard let startAt else { return !stop() }
        while !stop() && !goRequested {
            let late = Date().timeIntervalSince(startAt.instant)
            if late >= 0 {
                if late <= startAt.window {
                    goRequested = true
                    break
                }
                lock.wait()
            } else if late < -0.003 {
                // At most 0.5 s at a time on the monotonic clock: a wall clock set meanwhile
                // moves the instant, which the next pass sees.
                _ = lock.wait(for: .seconds(min(0.5, -late - 0.002)))
            } else {
                // The last 2 ms on the CPU: a wake-up from a timed wait comes 0.1-0.3 ms
                // late (more on a busy machine); a check of the clock in a loop does not.
                lock.unlock()
                while Date() < startAt.instant {}
                lock.lock()
            }
        }
        return !stop()
    }

    /// Writes the timeline into `pcm` in period-sized pieces, waiting (≤ 20 ms at a time) for room,
    /// so a stop request is seen within one wait. A device that takes no frame for `stallLimit`
    /// has stalled: it fails.
    private func feed(
        _ pcm: AlsaPCM, _ run: DeviceRun, _ timeline: inout Timeline, _ setup: Setup,
        _ onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?
    ) -> FeedEnd {
        let chunkFrames = max(64, pcm.rate / 100)  // 10 ms
        var buffer = [Int16](repeating: 0, count: chunkFrames * pcm.channels)
        var pending = 0
        var offset = 0
        var lastTaken = ContinuousClock.now
        var firstFrame = onFirstFrame
        while true {
            if stopping(run) { return .stopped }
            if ContinuousClock.now - lastTaken > setup.stallLimit {
                return .failed(
                    AlsaError(
                        device: pcm.name, operation: "snd_pcm_writei", code: -EAGAIN,
                        detail: "the device took no audio for \(setup.stallLimit.components.seconds) s (stalled)"))
            }
            if pending == 0 {
                pending = timeline.render(into: &buffer, frames: chunkFrames)
                offset = 0
                if pending == 0 { return .finished }
            }
            let r = inCall(run, "snd_pcm_writei") {
                buffer.withUnsafeBufferPointer { pcm.write($0.baseAddress! + offset * pcm.channels, frames: pending) }
            }
            if r > 0 {
                lastTaken = ContinuousClock.now
                pending -= r
                offset += r
                let deliver: Bool = locked {
                    guard !run.abandoned else { return false }
                    run.framesWritten += r
                    run.timeline = timeline
                    if firstFrame != nil {
                        run.firstFrameDelivered = true
                        return true
                    }
                    return false
                }
                if deliver, let f = firstFrame {
                    firstFrame = nil
                    f(
                        PlaybackStarted(
                            device: pcm.name, card: pcm.card, date: Date(), instant: .now,
                            substitution: locked { run.substitution }))
                }
            } else if r == -Int(EAGAIN) || r == 0 {
                let w = inCall(run, "snd_pcm_wait") { pcm.wait(milliseconds: 20) }
                if w < 0 {
                    // An underrun found while waiting (the player was held up with a full buffer)
                    // is logged as one found by a write is.
                    log("alarm: \(AlsaError(device: pcm.name, operation: "snd_pcm_wait", code: w)); recovering")
                    if inCall(run, "snd_pcm_recover", { pcm.recover(w) }) < 0 {
                        return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_wait", code: w))
                    }
                }
            } else {
                let code = Int32(r)
                log("alarm: \(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: code)); recovering")
                if inCall(run, "snd_pcm_recover", { pcm.recover(code) }) < 0 {
                    return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: code))
                }
            }
        }
    }
}

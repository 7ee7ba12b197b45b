import AlarmSystem
import FoundationEssentials

// The ring's thread: it goes down the device chain, hands each device to a thread of its own
// (AlarmPlayer+DeviceThread.swift) and watches it, giving up a device whose call into alsa-lib
// does not return.
extension AlarmPlayer {
    private var shouldStop: Bool { locked { stopRequested } }

    /// What the ring's thread hands to each device's thread.
    struct Setup {
        var latency: UInt32
        var pause: Double
        var retry: Double
        /// How long a device may take no audio, or stay inside one call into alsa-lib.
        var stallLimit: Duration
        /// How long it may stay inside `snd_pcm_open`.
        var openLimit: Duration
        var maxDuration: Double?
        var loop: Bool
        /// A pre-rolled ring's instant and window; nil: it sounds at once.
        var startAt: (instant: Date, window: TimeInterval)?
    }

    /// One device's part of a ring. It plays on a thread of its own, so that a call into alsa-lib
    /// that never returns (a sound server that hangs: `snd_pcm_open` waiting for its answer,
    /// `snd_pcm_drop` for its acknowledgement) cannot hold the ring, nor `stop()`: the ring's
    /// thread watches the call and, past `stallLimit`, gives the device up and goes on without it.
    /// Guarded by the player's lock.
    final class DeviceRun: @unchecked Sendable {
        let name: String
        /// The call the device's thread is inside, and since when.
        var call: (operation: String, since: ContinuousClock.Instant)?
        /// Given up on: whatever the thread does once its call returns is thrown away.
        var abandoned = false
        /// The abandoned call returned (the device is no longer counted as hung).
        var released = false
        var end: FeedEnd?
        /// How the feeding ended, published before the device is dropped and closed: what the
        /// run ends with if one of those calls hangs.
        var feedEnd: FeedEnd?
        // Progress, published as the thread goes: where the audio got to, what was played.
        var timeline: Timeline
        var framesWritten = 0
        var opened = false
        var substitution: String?
        var firstFrameDelivered = false

        init(name: String, timeline: Timeline) {
            self.name = name
            self.timeline = timeline
        }
    }

    enum FeedEnd {
        case stopped, finished
        /// The device did not open (or took neither the clip nor the default tone).
        case unavailable(AlsaError)
        /// It opened, then failed, stalled or hung.
        case failed(AlsaError)
    }

    func ring(
        _ clip: AudioClip, loudness: Loudness, loop: Bool, maxDuration: Double?, retryForever: Bool,
        startAt: (instant: Date, window: TimeInterval)?,
        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?, lastError: inout AlsaError?,
        onFailure: (@Sendable (String) -> Void)? = nil, live: LiveFeed? = nil
    ) -> PlaybackSummary {
        let tuning = locked { self.tuning }
        let stall = max(tuning.stallSeconds, 4 * Double(tuning.latencyMicros) / 1e6)
        let setup = Setup(
            latency: tuning.latencyMicros, pause: tuning.pauseSeconds, retry: tuning.retrySeconds,
            stallLimit: .seconds(stall), openLimit: .seconds(max(tuning.openSeconds, stall)),
            maxDuration: maxDuration, loop: loop, startAt: startAt)
        var timeline = Timeline(
            clip: clip, loudness: loudness, loop: loop,
            pauseFrames: Int(setup.pause * Double(clip.sampleRate)),
            endFrame: maxDuration.map { Int($0 * Double(clip.sampleRate)) }, live: live)
        var result = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        var firstFrame = onFirstFrame
        var failureReported = false
        var skippedSaid = Set<String>()
        while true {
            for name in devices {
                if shouldStop {
                    result.stoppedByCaller = true
                    return result
                }
                if let call = HungDevices.operation(name) {
                    let error = HungDevices.skipped(name, call)
                    if skippedSaid.insert(name).inserted { log("alarm: \(error); skipping it") }
                    lastError = error
                    continue
                }
                let run = DeviceRun(name: name, timeline: timeline)
                let maySubstitute = result.substitution == nil
                let callback = firstFrame
                startThread(named: "alarm-device") { [self] in
                    play(run, setup, maySubstitute: maySubstitute, onFirstFrame: callback)
                }
                let end = watch(run, setup)
                lock.lock()
                timeline = run.timeline
                result.framesWritten += run.framesWritten
                if run.opened { result.device = name }
                if let s = run.substitution { result.substitution = s }
                if run.firstFrameDelivered { firstFrame = nil }
                let beforeStart = setup.startAt != nil && !goRequested
                lock.unlock()
                switch end {
                case .stopped:
                    result.stoppedByCaller = true
                    return result
                case .finished:
                    return result
                case .unavailable(let error):
                    log(beforeStart ? "alarm: pre-roll: \(error); trying the next device" : "alarm: \(error)")
                    lastError = error
                case .failed(let error):
                    log("alarm: \(error); trying the next device")
                    lastError = error
                }
            }
            if !retryForever {
                result.device = nil
                return result
            }
            // A pre-rolled ring whose devices all failed before its instant: the ring proper starts
            // at the instant, with a new pass; failures are reported from then on.
            if setup.startAt != nil && !locked({ goRequested }) {
                if !waitForStart(setup.startAt) {
                    result.stoppedByCaller = true
                    return result
                }
                continue
            }
            // Every device of the chain failed in this pass (also after frames were heard: a card
            // unplugged or a sound server that stopped reading mid-ring): said once per ring.
            if !failureReported, let onFailure {
                failureReported = true
                onFailure(
                    lastError.map { "\($0)" } ?? "no ALSA device could be opened (\(devices.joined(separator: ", ")))")
            }
            // No device would play: wait, then go round the list again, unless told to stop.
            lock.lock()
            let deadline = ContinuousClock.now + .seconds(setup.retry)
            while !stopRequested && lock.wait(until: deadline) {}
            let stop = stopRequested
            lock.unlock()
            if stop {
                result.stoppedByCaller = true
                return result
            }
        }
    }

    /// Waits for `run` to end; gives it up when it has been inside one call into alsa-lib for
    /// longer than its limit (said in the log): it ends as its feeding did, or failed.
    private func watch(_ run: DeviceRun, _ setup: Setup) -> FeedEnd {
        lock.lock()
        while true {
            if let end = run.end {
                lock.unlock()
                return end
            }
            if let call = run.call,
                case let limit = call.operation == "snd_pcm_open" ? setup.openLimit : setup.stallLimit,
                ContinuousClock.now - call.since > limit
            {
                run.abandoned = true
                HungDevices.add(run.name, call.operation)
                let error = HungDevices.givenUp(run.name, call.operation, after: limit)
                let end: FeedEnd = run.feedEnd ?? (run.opened ? .failed(error) : .unavailable(error))
                run.end = end
                lock.unlock()
                log("alarm: \(error); the call is left behind and the device skipped until it returns")
                return end
            }
            _ = lock.wait(for: .milliseconds(100))
        }
    }

    /// Runs one call into alsa-lib on a device's thread, visible to `watch` while it lasts.
    func inCall<T, E: Error>(_ run: DeviceRun, _ operation: String, _ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        run.call = (operation, .now)
        lock.unlock()
        defer {
            lock.lock()
            run.call = nil
            let released = run.abandoned && !run.released
            if released { run.released = true }
            lock.unlock()
            // Said before the device is released, so that whoever sees it usable again has the
            // line already (the arm64 CI run's test read the log between the two).
            if released {
                log("alarm: ALSA device '\(run.name)': \(operation) returned at last; the device is tried again")
                HungDevices.remove(run.name)
            }
        }
        return try body()
    }
}

import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// When and where the first frame of a ring was handed to ALSA.
public struct PlaybackStarted: Sendable {
    public var device: String
    /// The sound card the device plays on, when alsa-lib knows (for its mixer).
    public var card: Int?
    public var date: Date
    public var instant: ContinuousClock.Instant
    /// Set when the device refused the clip's rate or channels and the default tone plays in its
    /// place: why, in words for a log or history ("ALSA device 'hw:1,0' cannot play the sound as it is
    /// (2 ch, 44100 Hz: Invalid argument)").
    public var substitution: String? = nil
}

/// How a play ended.
public struct PlaybackSummary: Sendable {
    /// The device that took the last frame, nil when no device ever opened.
    public var device: String?
    /// Frames handed to ALSA (pauses included).
    public var framesWritten: Int
    public var stoppedByCaller: Bool
    /// Set when the default tone played because a device refused the clip (see `PlaybackStarted`).
    public var substitution: String? = nil
}

/// Plays a clip through alsa-lib on its own thread: looped with a short pause until `stop()`, or
/// once (`playOnce`). Volume and fade-in scale the samples. Device trouble is logged and retried:
/// each device of `devices` in turn, again and again while the ring lasts. A device that opens but
/// refuses the clip's rate or channels (a `hw:` PCM without conversion) plays the default tone
/// instead, so a ring is never silent for want of a format; `substitution` says so. Each device
/// plays on a thread of its own, watched by the ring's: a device that takes no audio, or a call
/// into alsa-lib that does not return (a sound server that hangs), is given up after
/// `stallSeconds` and the ring goes on without it; `stop()` is never held by it.
///
/// Thread-safety: `start` and `stop` may be called from any thread; one ring at a time.
public final class AlarmPlayer: @unchecked Sendable {
    /// Where log lines go (one line each, no trailing newline). Default: stderr.
    public typealias Log = @Sendable (String) -> Void

    public let devices: [String]
    public let log: Log
    // Tuning, read when a ring starts (changes apply to the next ring).
    /// Buffer size asked of ALSA. Small so that a stop (drop) is heard within 100 ms.
    public var latencyMicros: UInt32 { get { locked { _latency } } set { locked { _latency = newValue } } }
    /// Silence between two loops of the clip.
    public var pauseSeconds: Double { get { locked { _pause } } set { locked { _pause = newValue } } }
    /// Wait between two rounds of the device list when none opens.
    public var retrySeconds: Double { get { locked { _retry } } set { locked { _retry = newValue } } }
    /// A device that takes no frame for this long while a ring feeds it has stalled (a sound
    /// server that stopped reading, a suspended sink): it is given up like a device that fails,
    /// so the next of the chain, a retry or the fallback takes over instead of a silent ring.
    /// The same limit applies to one call into alsa-lib that does not return (`snd_pcm_open`,
    /// `snd_pcm_drop` on a sound server that hangs): the device is given up, its call left behind,
    /// and skipped until that call returns. At least four buffers' worth of time (`latencyMicros`).
    public var stallSeconds: Double { get { locked { _stall } } set { locked { _stall = newValue } } }
    /// How long `snd_pcm_open` may take before the device is given up as hung (at least
    /// `stallSeconds`): longer than the other calls, as a sound server may take a few seconds to
    /// set up a stream (a Bluetooth sink), and a device given up while it opens is tried again
    /// only once the open returns.
    public var openSeconds: Double { get { locked { _open } } set { locked { _open = newValue } } }
    private var _latency: UInt32 = 50_000
    private var _pause = 0.5
    private var _retry = 1.0
    private var _stall = 3.0
    private var _open = 6.0

    private let lock = Condition()
    private var stopRequested = false
    /// The ring may sound: set by `start`, by a pre-rolled ring at its instant, and by `go()`.
    private var goRequested = false
    private var running = false
    private var summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)

    /// `device` is the configured PCM (`--device`, else `ALARM_DEVICE`, else `default`).
    public init(device: String? = nil, log: Log? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        let configured = device ?? environment["ALARM_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        self.devices = AlarmPlayer.fallbackList(configured: configured)
        self.log = log ?? { line in StandardError.write(line) }
    }

    /// An explicit device list, tried in order (no fallbacks added).
    public init(devices: [String], log: Log? = nil) {
        precondition(!devices.isEmpty)
        self.devices = devices
        self.log = log ?? { line in StandardError.write(line) }
    }

    /// The configured device, then `default`, then the first card's `plughw`, without repeats.
    public static func fallbackList(configured: String) -> [String] {
        var list = [configured, "default"]
        if let first = AlsaPCM.firstCardDevice() { list.append(first) }
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    public var isRinging: Bool { locked { running } }

    /// The devices with a call into alsa-lib that was given up on and has not returned (by any
    /// player or probe of this process): rings go on without them until it does.
    public static var hungDevices: [String] { HungDevices.names }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Starts ringing on a new thread and returns at once. `onFirstFrame` is called (on a player
    /// thread) the moment the first frame was accepted by ALSA. The ring loops the clip with
    /// `pauseSeconds` between loops until `stop()`, or until `maxDuration` seconds of audio have been
    /// handed to ALSA (nil: no limit). Calling `start` while ringing stops the old ring first.
    /// `onFailure` is called once per ring, with the last ALSA error, when a whole pass over the
    /// device list fails; the player keeps retrying until `stop()`.
    public func start(_ clip: AudioClip, loudness: Loudness = Loudness(), maxDuration: Double? = nil,
                      onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
                      onFailure: (@Sendable (String) -> Void)? = nil) {
        begin(go: true)
        startThread(named: "alarm-player") { [self] in
            var ignored: AlsaError?
            finish(ring(clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true, startAt: nil,
                        onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure))
        }
    }

    /// Pre-roll (issue #11): prepares a ring for `instant` now, so that its first frame reaches
    /// ALSA at the instant rather than after a device open: opens the first device of the chain
    /// that opens (a device that fails now is replaced by the next before the instant), waits,
    /// and starts the sound by itself at `instant` on the wall clock. Woken more than `window`
    /// after the instant (the clock was set forward, the process was stopped), it waits for `go()`
    /// instead. `go()` starts it at once; `stop()` cancels it. Then it rings as `start` does.
    public func preroll(_ clip: AudioClip, at instant: Date, window: TimeInterval = 1, loudness: Loudness = Loudness(),
                        maxDuration: Double? = nil,
                        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
                        onFailure: (@Sendable (String) -> Void)? = nil) {
        begin(go: false)
        startThread(named: "alarm-preroll") { [self] in
            var ignored: AlsaError?
            finish(ring(clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true,
                        startAt: (instant, window), onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure))
        }
    }

    private func begin(go: Bool) {
        stop()
        lock.lock()
        stopRequested = false
        goRequested = go
        running = true
        summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        lock.unlock()
    }

    private func finish(_ s: PlaybackSummary) {
        lock.lock()
        summary = s
        running = false
        lock.broadcast()
        lock.unlock()
    }

    /// Starts a pre-rolled ring now if it has not started yet. Does nothing otherwise.
    public func go() {
        lock.lock()
        goRequested = true
        lock.broadcast()
        lock.unlock()
    }

    /// Silence now: the queued audio is dropped (not drained) and the device closed. Returns when
    /// that is done, or when the device has not let go within `stallSeconds` (a sound server that
    /// hangs: the call is left behind on its thread). Does nothing when not ringing.
    @discardableResult
    public func stop() -> PlaybackSummary {
        lock.lock()
        defer { lock.unlock() }
        guard running else { return summary }
        stopRequested = true
        lock.broadcast()
        while running { lock.wait() }
        return summary
    }

    /// Blocks until the current ring ends by itself (its `maxDuration`) or by `stop()`.
    @discardableResult
    public func waitUntilDone() -> PlaybackSummary {
        lock.lock()
        defer { lock.unlock() }
        while running { lock.wait() }
        return summary
    }

    /// Plays `clip` once, the way an alarm would (same devices, fallback, volume, fade), and
    /// returns after it has been played out (drained). Throws the last device error when no
    /// device in the list would play.
    public func playOnce(_ clip: AudioClip, loudness: Loudness = Loudness(),
                         onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil) throws(AlsaError) -> PlaybackSummary {
        lock.lock(); stopRequested = false; goRequested = true; lock.unlock()
        var lastError: AlsaError?
        let s = ring(clip, loudness: loudness, loop: false, maxDuration: nil, retryForever: false, startAt: nil,
                     onFirstFrame: onFirstFrame, lastError: &lastError)
        if s.device == nil, let lastError { throw lastError }
        return s
    }

    // MARK: the ring's thread: the device chain, each device watched

    private var shouldStop: Bool { locked { stopRequested } }

    /// What the ring's thread hands to each device's thread.
    private struct Setup {
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
    private final class DeviceRun: @unchecked Sendable {
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

    private enum FeedEnd {
        case stopped, finished
        /// The device did not open (or took neither the clip nor the default tone).
        case unavailable(AlsaError)
        /// It opened, then failed, stalled or hung.
        case failed(AlsaError)
    }

    private func ring(_ clip: AudioClip, loudness: Loudness, loop: Bool, maxDuration: Double?, retryForever: Bool,
                      startAt: (instant: Date, window: TimeInterval)?,
                      onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?, lastError: inout AlsaError?,
                      onFailure: (@Sendable (String) -> Void)? = nil) -> PlaybackSummary {
        let setup = locked {
            let stall = max(_stall, 4 * Double(_latency) / 1e6)
            return Setup(latency: _latency, pause: _pause, retry: _retry,
                         stallLimit: .seconds(stall), openLimit: .seconds(max(_open, stall)),
                         maxDuration: maxDuration, loop: loop, startAt: startAt)
        }
        var timeline = Timeline(clip: clip, loudness: loudness, loop: loop,
                                pauseFrames: Int(setup.pause * Double(clip.sampleRate)),
                                endFrame: maxDuration.map { Int($0 * Double(clip.sampleRate)) })
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
            if !retryForever { result.device = nil; return result }
            // A pre-rolled ring whose devices all failed before its instant: the ring proper starts
            // at the instant, with a new pass; failures are reported from then on.
            if setup.startAt != nil && !locked({ goRequested }) {
                if !waitForStart(setup.startAt) { result.stoppedByCaller = true; return result }
                continue
            }
            // Every device of the chain failed in this pass (also after frames were heard: a card
            // unplugged or a sound server that stopped reading mid-ring): said once per ring.
            if !failureReported, let onFailure {
                failureReported = true
                onFailure(lastError.map { "\($0)" } ?? "no ALSA device could be opened (\(devices.joined(separator: ", ")))")
            }
            // No device would play: wait, then go round the list again, unless told to stop.
            lock.lock()
            let deadline = ContinuousClock.now + .seconds(setup.retry)
            while !stopRequested && lock.wait(until: deadline) {}
            let stop = stopRequested
            lock.unlock()
            if stop { result.stoppedByCaller = true; return result }
        }
    }

    /// Waits for `run` to end; gives it up when it has been inside one call into alsa-lib for
    /// longer than its limit (said in the log): it ends as its feeding did, or failed.
    private func watch(_ run: DeviceRun, _ setup: Setup) -> FeedEnd {
        lock.lock()
        while true {
            if let end = run.end { lock.unlock(); return end }
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
    private func inCall<T, E: Error>(_ run: DeviceRun, _ operation: String, _ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        run.call = (operation, .now)
        lock.unlock()
        defer {
            lock.lock()
            run.call = nil
            let released = run.abandoned && !run.released
            if released { run.released = true }
            lock.unlock()
            if released { HungDevices.remove(run.name) }
            if released { log("alarm: ALSA device '\(run.name)': \(operation) returned at last; the device is tried again") }
        }
        return try body()
    }

    // MARK: a device's thread

    private func stopping(_ run: DeviceRun) -> Bool { locked { stopRequested || run.abandoned } }

    /// Opens the device (or the default tone on it), waits for a pre-rolled ring's instant, feeds
    /// it, drops or drains it, and closes it.
    private func play(_ run: DeviceRun, _ setup: Setup, maySubstitute: Bool, onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?) {
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
    private func open(_ run: DeviceRun, _ timeline: inout Timeline, _ setup: Setup, maySubstitute: Bool) throws(AlsaError) -> AlsaPCM {
        let clip = timeline.clip
        do throws(AlsaError) {
            let pcm = try inCall(run, "snd_pcm_open") { () throws(AlsaError) -> AlsaPCM in
                try AlsaPCM(name: run.name, channels: clip.channels, rate: clip.sampleRate, latencyMicros: setup.latency)
            }
            locked { run.opened = true }
            return pcm
        } catch {
            let tone = DefaultTone.clip()
            guard maySubstitute, error.refusedParameters, !stopping(run),
                clip.channels != tone.channels || clip.sampleRate != tone.sampleRate,
                let pcm = try? inCall(run, "snd_pcm_open", { () throws(AlsaError) -> AlsaPCM in
                    try AlsaPCM(name: run.name, channels: tone.channels, rate: tone.sampleRate, latencyMicros: setup.latency)
                })
            else { throw error }
            log("alarm: \(error)")
            let substitution = "ALSA device '\(run.name)' cannot play the sound as it is (\(clip.channels) ch, \(clip.sampleRate) Hz: \(error.text))"
            log("alarm: \(substitution); playing the default tone instead")
            let elapsed = Double(timeline.position) / Double(clip.sampleRate)
            timeline = Timeline(clip: tone, loudness: timeline.loudness, loop: timeline.loop,
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
    private func waitForStart(_ startAt: (instant: Date, window: TimeInterval)?, _ run: DeviceRun? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        func stop() -> Bool { stopRequested || run?.abandoned == true }
        guard let startAt else { return !stop() }
        while !stop() && !goRequested {
            let late = Date().timeIntervalSince(startAt.instant)
            if late >= 0 {
                if late <= startAt.window { goRequested = true; break }
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
    private func feed(_ pcm: AlsaPCM, _ run: DeviceRun, _ timeline: inout Timeline, _ setup: Setup,
                      _ onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?) -> FeedEnd {
        let chunkFrames = max(64, pcm.rate / 100)  // 10 ms
        var buffer = [Int16](repeating: 0, count: chunkFrames * pcm.channels)
        var pending = 0, offset = 0
        var lastTaken = ContinuousClock.now
        var firstFrame = onFirstFrame
        while true {
            if stopping(run) { return .stopped }
            if ContinuousClock.now - lastTaken > setup.stallLimit {
                return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: -EAGAIN,
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
                    if firstFrame != nil { run.firstFrameDelivered = true; return true }
                    return false
                }
                if deliver, let f = firstFrame {
                    firstFrame = nil
                    f(PlaybackStarted(device: pcm.name, card: pcm.card, date: Date(), instant: .now, substitution: locked { run.substitution }))
                }
            } else if r == -Int(EAGAIN) || r == 0 {
                let w = inCall(run, "snd_pcm_wait") { pcm.wait(milliseconds: 20) }
                if w < 0, inCall(run, "snd_pcm_recover", { pcm.recover(w) }) < 0 {
                    return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_wait", code: w))
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

/// The audio of a ring as an endless (or bounded) sequence of 16-bit frames: clip, pause, clip, …
/// with the loudness envelope applied. Pure; the position survives a change of device.
struct Timeline {
    let clip: AudioClip
    let loudness: Loudness
    let loop: Bool
    let pauseFrames: Int
    let endFrame: Int?
    private(set) var position = 0

    init(clip: AudioClip, loudness: Loudness, loop: Bool, pauseFrames: Int, endFrame: Int?) {
        self.clip = clip
        self.loudness = loudness
        self.loop = loop
        self.pauseFrames = max(0, pauseFrames)
        self.endFrame = endFrame
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
        clip.samples.withUnsafeBufferPointer { src in
            for i in 0..<n {
                let pos = position + i
                let inCycle = pos % cycle
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

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
/// instead, so a ring is never silent for want of a format; `substitution` says so.
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
    /// At least four buffers' worth of time (`latencyMicros`).
    public var stallSeconds: Double { get { locked { _stall } } set { locked { _stall = newValue } } }
    private var _latency: UInt32 = 50_000
    private var _pause = 0.5
    private var _retry = 1.0
    private var _stall = 3.0

    private let lock = Condition()
    private var stopRequested = false
    /// `go()` was called: a pre-rolled ring starts now, whatever its instant.
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

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Starts ringing on a new thread and returns at once. `onFirstFrame` is called (on the player
    /// thread) the moment the first frame was accepted by ALSA. The ring loops the clip with
    /// `pauseSeconds` between loops until `stop()`, or until `maxDuration` seconds of audio have been
    /// handed to ALSA (nil: no limit). Calling `start` while ringing stops the old ring first.
    /// `onFailure` is called once, with the last ALSA error, if a whole pass over the device list
    /// fails before any frame was played; the player keeps retrying until `stop()`.
    public func start(_ clip: AudioClip, loudness: Loudness = Loudness(), maxDuration: Double? = nil,
                      onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
                      onFailure: (@Sendable (String) -> Void)? = nil) {
        stop()
        lock.lock()
        stopRequested = false
        running = true
        summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        lock.unlock()
        startThread(named: "alarm-player") { [self] in
            var ignored: AlsaError?
            let s = ring(clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true,
                         onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure)
            lock.lock()
            summary = s
            running = false
            lock.broadcast()
            lock.unlock()
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
        stop()
        lock.lock()
        stopRequested = false
        goRequested = false
        running = true
        summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        let latency = _latency
        lock.unlock()
        startThread(named: "alarm-preroll") { [self] in
            var prepared: (index: Int, pcm: AlsaPCM)? = nil
            for (k, name) in devices.enumerated() where !shouldStop {
                do throws(AlsaError) {
                    prepared = (k, try AlsaPCM(name: name, channels: clip.channels, rate: clip.sampleRate, latencyMicros: latency))
                    break
                } catch {
                    // One that opens but refuses the clip is left to the ring (the default tone there).
                    if error.refusedParameters { break }
                    log("alarm: pre-roll: \(error); trying the next device")
                }
            }
            lock.lock()
            while !stopRequested && !goRequested {
                let late = Date().timeIntervalSince(instant)
                if late >= 0 {
                    if late <= window { break }
                    lock.wait()
                } else if late < -0.003 {
                    _ = lock.wait(until: instant.addingTimeInterval(-0.002))
                } else {
                    // The last 2 ms on the CPU: a wake-up from a timed wait comes 0.1-0.3 ms
                    // late (more on a busy machine); a check of the clock in a loop does not.
                    lock.unlock()
                    while Date() < instant {}
                    lock.lock()
                }
            }
            let cancelled = stopRequested
            lock.unlock()
            var s = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: true)
            if cancelled {
                prepared?.pcm.close()
            } else {
                var ignored: AlsaError?
                s = ring(clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true,
                         onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure, prepared: prepared)
            }
            lock.lock()
            summary = s
            running = false
            lock.broadcast()
            lock.unlock()
        }
    }

    /// Starts a pre-rolled ring now if it has not started yet. Does nothing otherwise.
    public func go() {
        lock.lock()
        goRequested = true
        lock.broadcast()
        lock.unlock()
    }

    /// Silence now: the queued audio is dropped (not drained) and the device closed. Returns when
    /// that is done. Does nothing when not ringing.
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

    /// Plays `clip` once, the way an alarm would (same devices, fallback, volume, fade), on the
    /// calling thread, and returns after it has been played out (drained). Throws the last device
    /// error when no device in the list would play.
    public func playOnce(_ clip: AudioClip, loudness: Loudness = Loudness(),
                         onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil) throws(AlsaError) -> PlaybackSummary {
        lock.lock(); stopRequested = false; lock.unlock()
        var lastError: AlsaError?
        let s = ring(clip, loudness: loudness, loop: false, maxDuration: nil, retryForever: false,
                     onFirstFrame: onFirstFrame, lastError: &lastError)
        if s.device == nil, let lastError { throw lastError }
        return s
    }

    // MARK: the player thread

    private var shouldStop: Bool { locked { stopRequested } }

    private func ring(_ clip: AudioClip, loudness: Loudness, loop: Bool, maxDuration: Double?, retryForever: Bool,
                      onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?) -> PlaybackSummary {
        var ignored: AlsaError?
        return ring(clip, loudness: loudness, loop: loop, maxDuration: maxDuration, retryForever: retryForever,
                    onFirstFrame: onFirstFrame, lastError: &ignored)
    }

    private func ring(_ clip: AudioClip, loudness: Loudness, loop: Bool, maxDuration: Double?, retryForever: Bool,
                      onFirstFrame: (@Sendable (PlaybackStarted) -> Void)?, lastError: inout AlsaError?,
                      onFailure: (@Sendable (String) -> Void)? = nil,
                      prepared: (index: Int, pcm: AlsaPCM)? = nil) -> PlaybackSummary {
        var failureReported = false
        let (latency, pause, retry) = locked { (_latency, _pause, _retry) }
        var timeline = Timeline(clip: clip, loudness: loudness, loop: loop,
                                pauseFrames: Int(pause * Double(clip.sampleRate)),
                                endFrame: maxDuration.map { Int($0 * Double(clip.sampleRate)) })
        var result = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        var firstFrame = onFirstFrame
        // A pre-rolled device: the first pass starts there (those before it failed just now).
        var prepared = prepared
        while true {
            for (k, name) in devices.enumerated() {
                if let p = prepared, k < p.index { continue }
                if shouldStop {
                    prepared?.pcm.close()
                    result.stoppedByCaller = true
                    return result
                }
                var pcm: AlsaPCM
                if let p = prepared {
                    pcm = p.pcm
                    prepared = nil
                } else {
                    do throws(AlsaError) {
                        pcm = try AlsaPCM(name: name, channels: timeline.clip.channels, rate: timeline.clip.sampleRate, latencyMicros: latency)
                    } catch {
                        log("alarm: \(error)")
                        lastError = error
                        // A device that opens but refuses the clip's rate or channels rings the default tone.
                        guard result.substitution == nil, error.refusedParameters,
                            let tone = substituteDefaultTone(on: name, &timeline, latency: latency, pause: pause, maxDuration: maxDuration)
                        else { continue }
                        pcm = tone
                        result.substitution = "ALSA device '\(name)' cannot play the sound as it is (\(clip.channels) ch, \(clip.sampleRate) Hz: \(error.text))"
                        log("alarm: \(result.substitution!); playing the default tone instead")
                    }
                }
                result.device = name
                switch feed(pcm, &timeline, &firstFrame, &result) {
                case .stopped:
                    pcm.drop()
                    pcm.close()
                    result.stoppedByCaller = true
                    return result
                case .finished:
                    if loop { pcm.drop() } else {
                        let rc = pcm.drain()
                        if rc < 0 { log("alarm: \(AlsaError(device: name, operation: "snd_pcm_drain", code: rc))") }
                    }
                    pcm.close()
                    return result
                case .failed(let error):
                    log("alarm: \(error); trying the next device")
                    lastError = error
                    pcm.drop()
                    pcm.close()
                }
            }
            if !retryForever { result.device = nil; return result }
            // Every device of the chain failed in this pass (also after frames were heard: a card
            // unplugged or a sound server that stopped reading mid-ring): said once per ring.
            if !failureReported, let onFailure {
                failureReported = true
                onFailure(lastError.map { "\($0)" } ?? "no ALSA device could be opened (\(devices.joined(separator: ", ")))")
            }
            // No device would play: wait, then go round the list again, unless told to stop.
            lock.lock()
            let deadline = Date().addingTimeInterval(retry)
            while !stopRequested && lock.wait(until: deadline) {}
            let stop = stopRequested
            lock.unlock()
            if stop { result.stoppedByCaller = true; return result }
        }
    }

    /// Opens `name` for the default tone and moves `timeline` onto it (what is left of
    /// `maxDuration` still bounds it). Nil when the timeline already holds a clip of the tone's
    /// shape, or the device refuses the tone too.
    private func substituteDefaultTone(on name: String, _ timeline: inout Timeline, latency: UInt32, pause: Double,
                                       maxDuration: Double?) -> AlsaPCM? {
        let tone = DefaultTone.clip()
        guard timeline.clip.channels != tone.channels || timeline.clip.sampleRate != tone.sampleRate,
            let pcm = try? AlsaPCM(name: name, channels: tone.channels, rate: tone.sampleRate, latencyMicros: latency)
        else { return nil }
        let elapsed = Double(timeline.position) / Double(timeline.clip.sampleRate)
        timeline = Timeline(clip: tone, loudness: timeline.loudness, loop: timeline.loop,
                            pauseFrames: Int(pause * Double(tone.sampleRate)),
                            endFrame: maxDuration.map { Int(max(0, $0 - elapsed) * Double(tone.sampleRate)) })
        return pcm
    }

    private enum FeedEnd { case stopped, finished, failed(AlsaError) }

    /// Writes the timeline into `pcm` in period-sized pieces, waiting (≤ 20 ms at a time) for room,
    /// so a stop request is seen within one wait.
    private func feed(_ pcm: AlsaPCM, _ timeline: inout Timeline, _ firstFrame: inout (@Sendable (PlaybackStarted) -> Void)?,
                      _ result: inout PlaybackSummary) -> FeedEnd {
        let chunkFrames = max(64, pcm.rate / 100)  // 10 ms
        var buffer = [Int16](repeating: 0, count: chunkFrames * pcm.channels)
        var pending = 0, offset = 0
        let (stall, latency) = locked { (_stall, _latency) }
        let stallLimit = Duration.milliseconds(Int64(max(stall, 4 * Double(latency) / 1e6) * 1000))
        var lastTaken = ContinuousClock.now
        while true {
            if shouldStop { return .stopped }
            if ContinuousClock.now - lastTaken > stallLimit {
                return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: -EAGAIN,
                                         detail: "the device took no audio for \(stallLimit.components.seconds) s (stalled)"))
            }
            if pending == 0 {
                pending = timeline.render(into: &buffer, frames: chunkFrames)
                offset = 0
                if pending == 0 { return .finished }
            }
            let r = buffer.withUnsafeBufferPointer { pcm.write($0.baseAddress! + offset * pcm.channels, frames: pending) }
            if r > 0 {
                lastTaken = ContinuousClock.now
                if let f = firstFrame {
                    firstFrame = nil
                    f(PlaybackStarted(device: pcm.name, card: pcm.card, date: Date(), instant: .now, substitution: result.substitution))
                }
                pending -= r
                offset += r
                result.framesWritten += r
            } else if r == -Int(EAGAIN) || r == 0 {
                let w = pcm.wait(milliseconds: 20)
                if w < 0, pcm.recover(w) < 0 { return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_wait", code: w)) }
            } else {
                let code = Int32(r)
                log("alarm: \(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: code)); recovering")
                if pcm.recover(code) < 0 { return .failed(AlsaError(device: pcm.name, operation: "snd_pcm_writei", code: code)) }
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

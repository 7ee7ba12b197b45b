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
@dynamicMemberLookup
public final class AlarmPlayer: @unchecked Sendable {
    /// Where log lines go (one line each, no trailing newline). Default: stderr.
    public typealias Log = @Sendable (String) -> Void

    public let devices: [String]
    public let log: Log
    /// Tuning, read when a ring starts (changes apply to the next ring). Each value is read and
    /// set through the player, under its lock: `player.retrySeconds = 0.2`.
    public struct Tuning: Sendable {
        /// Buffer size asked of ALSA. Small so that a stop (drop) is heard within 100 ms.
        public var latencyMicros: UInt32 = 50_000
        /// Silence between two loops of the clip.
        public var pauseSeconds = 0.5
        /// Wait between two rounds of the device list when none opens.
        public var retrySeconds = 1.0
        /// A device that takes no frame for this long while a ring feeds it has stalled (a sound
        /// server that stopped reading, a suspended sink): it is given up like a device that fails,
        /// so the next of the chain, a retry or the fallback takes over instead of a silent ring.
        /// The same limit applies to one call into alsa-lib that does not return (`snd_pcm_open`,
        /// `snd_pcm_drop` on a sound server that hangs): the device is given up, its call left
        /// behind, and skipped until that call returns. At least four buffers' worth of time
        /// (`latencyMicros`).
        public var stallSeconds = 3.0
        /// How long `snd_pcm_open` may take before the device is given up as hung (at least
        /// `stallSeconds`): longer than the other calls, as a sound server may take a few seconds
        /// to set up a stream (a Bluetooth sink), and a device given up while it opens is tried
        /// again only once the open returns.
        public var openSeconds = 6.0
    }

    /// A value of `Tuning`, under the lock.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Tuning, Value>) -> Value {
        get { locked { tuning[keyPath: keyPath] } }
        set { locked { tuning[keyPath: keyPath] = newValue } }
    }

    // Internal, not private, from here to `goRequested`: the ring's and the devices' threads
    // (AlarmPlayer+DeviceChain.swift, AlarmPlayer+DeviceThread.swift) read them.
    var tuning = Tuning()

    let lock = Condition()
    var stopRequested = false
    /// The ring may sound: set by `start`, by a pre-rolled ring at its instant, and by `go()`.
    var goRequested = false
    private var running = false
    private var summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)

    /// `device` is the configured PCM (`--device`, else `ALARM_DEVICE`, else `default`).
    public init(
        device: String? = nil, log: Log? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
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

    func locked<T>(_ body: () -> T) -> T {
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
    public func start(
        _ clip: AudioClip, loudness: Loudness = Loudness(), maxDuration: Double? = nil,
        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
        onFailure: (@Sendable (String) -> Void)? = nil
    ) {
        begin(go: true)
        startThread(named: "alarm-player") { [self] in
            var ignored: AlsaError?
            finish(
                ring(
                    clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true, startAt: nil,
                    onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure))
        }
    }

    /// Pre-roll (issue #11): prepares a ring for `instant` now, so that its first frame reaches
    /// ALSA at the instant rather than after a device open: opens the first device of the chain
    /// that opens (a device that fails now is replaced by the next before the instant), waits,
    /// and starts the sound by itself at `instant` on the wall clock. Woken more than `window`
    /// after the instant (the clock was set forward, the process was stopped), it waits for `go()`
    /// instead. `go()` starts it at once; `stop()` cancels it. Then it rings as `start` does.
    public func preroll(
        _ clip: AudioClip, at instant: Date, window: TimeInterval = 1, loudness: Loudness = Loudness(),
        maxDuration: Double? = nil,
        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil,
        onFailure: (@Sendable (String) -> Void)? = nil
    ) {
        begin(go: false)
        startThread(named: "alarm-preroll") { [self] in
            var ignored: AlsaError?
            finish(
                ring(
                    clip, loudness: loudness, loop: true, maxDuration: maxDuration, retryForever: true,
                    startAt: (instant, window), onFirstFrame: onFirstFrame, lastError: &ignored, onFailure: onFailure))
        }
    }

    func begin(go: Bool) {
        stop()
        lock.lock()
        stopRequested = false
        goRequested = go
        running = true
        summary = PlaybackSummary(device: nil, framesWritten: 0, stoppedByCaller: false)
        lock.unlock()
    }

    func finish(_ s: PlaybackSummary) {
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
    public func playOnce(
        _ clip: AudioClip, loudness: Loudness = Loudness(),
        onFirstFrame: (@Sendable (PlaybackStarted) -> Void)? = nil
    ) throws(AlsaError) -> PlaybackSummary {
        lock.lock()
        stopRequested = false
        goRequested = true
        lock.unlock()
        var lastError: AlsaError?
        let s = ring(
            clip, loudness: loudness, loop: false, maxDuration: nil, retryForever: false, startAt: nil,
            onFirstFrame: onFirstFrame, lastError: &lastError)
        if s.device == nil, let lastError { throw lastError }
        return s
    }
}

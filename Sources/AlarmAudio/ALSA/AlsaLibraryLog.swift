import CAlsa
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// alsa-lib's own error lines, through the program's log instead of raw onto stderr. alsa-lib
/// prints several lines for one failed open (a missing card: eight, from confmisc.c, conf.c and
/// pcm.c), and alarmd retries a device every few seconds, so the same lines would fill a bedside
/// Pi's journal beside alarmd's one line that says what failed. Installed, each distinct message
/// (its source line and text) is passed to the sink at most once per `RateLimiter.interval`; the
/// next time it is passed, it says how many repeats were not (`(12 more since last logged)`).
/// The programs that open ALSA install it once at start (alarmd into its journal log, the CLI onto
/// stderr); silencing (`AlsaDevices.silenceLibraryErrors`, a probe's quiet span) still wins.
/// The corresponding C function is `snd_lib_error_set_handler` (CAlsa's forwarding shim).
public enum AlsaLibraryLog {
    private static let state = Mutex<(sink: (@Sendable (String) -> Void)?, limiter: RateLimiter)>(
        (sink: nil, limiter: RateLimiter()))

    /// Routes alsa-lib's error lines to `sink` from now on (a later call replaces the sink).
    /// Each line is `alsa-lib: FILE:LINE (FUNCTION) MESSAGE[: ERROR]`, as alsa-lib would print it.
    public static func install(_ sink: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.sink = sink }
        AlsaErrorOutput.routeToLog()
    }

    /// One error from alsa-lib's handler: the rate limit decides whether the sink sees it.
    static func receive(file: String, line: Int, function: String, error: Int32, message: String) {
        var text = "\(file):\(line) (\(function)) \(message)"
        if error != 0, let description = snd_strerror(error) { text += ": " + String(cString: description) }
        let now = monotonicSeconds()
        let (sink, verdict) = state.withLock { s in (s.sink, s.limiter.admit(text, at: now)) }
        guard let sink, case .log(let suppressed) = verdict else { return }
        sink("alsa-lib: " + text + (suppressed > 0 ? " (\(suppressed) more since last logged)" : ""))
    }

    private static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The same message at most once per `interval` seconds, with the count of the repeats not
    /// logged in between; at most `capacity` messages remembered (the stalest forgotten first).
    /// Pure: the caller passes the time.
    public struct RateLimiter: Sendable {
        public enum Verdict: Equatable, Sendable {
            /// Log it, saying that `suppressed` repeats since it was last logged were not.
            case log(suppressed: Int)
            case suppress
        }

        /// Ten minutes: a device that stays missing costs its few lines six times an hour,
        /// and a reader of the journal still sees that the error goes on, and how often.
        public var interval: Double
        public var capacity: Int
        private var seen: [String: (logged: Double, suppressed: Int)] = [:]

        public init(interval: Double = 600, capacity: Int = 256) {
            self.interval = interval
            self.capacity = capacity
        }

        public mutating func admit(_ message: String, at now: Double) -> Verdict {
            if let last = seen[message], now - last.logged < interval {
                seen[message]!.suppressed += 1
                return .suppress
            }
            let suppressed = seen[message]?.suppressed ?? 0
            if seen[message] == nil, seen.count >= capacity,
                let stalest = seen.min(by: { $0.value.logged < $1.value.logged })?.key
            {
                seen[stalest] = nil
            }
            seen[message] = (logged: now, suppressed: 0)
            return .log(suppressed: suppressed)
        }
    }
}

/// Called by CAlsa's `alarm_alsa_forward_error` with the message formatted.
@_cdecl("alarm_alsa_error_message")
func alarmAlsaErrorMessage(
    _ file: UnsafePointer<CChar>?, _ line: Int32, _ function: UnsafePointer<CChar>?, _ error: Int32,
    _ message: UnsafePointer<CChar>?
) {
    AlsaLibraryLog.receive(
        file: file.map { String(cString: $0) } ?? "?", line: Int(line),
        function: function.map { String(cString: $0) } ?? "?", error: error,
        message: message.map { String(cString: $0) } ?? "")
}

import CAlsa
import Synchronization

/// Whether alsa-lib prints its own error lines ("ALSA lib pcm.c:2666:(...) Unknown PCM") on
/// stderr: silenced for the rest of the process by a listing that reports each error itself,
/// or for a while around a probe whose result says it all. One switch, so that a probe ending
/// does not turn back on what the process silenced.
/// The corresponding C function is `snd_lib_error_set_handler`.
enum AlsaErrorOutput {
    private static let state = Mutex((silencedForProcess: false, quietSpans: 0))

    static func silenceForProcess() {
        state.withLock { s in
            s.silencedForProcess = true
            apply(s)
        }
    }

    /// Runs `body` with alsa-lib's error lines off, then puts back what was before.
    static func quietly<T>(_ body: () -> T) -> T {
        state.withLock { s in
            s.quietSpans += 1
            apply(s)
        }
        defer {
            state.withLock { s in
                s.quietSpans -= 1
                apply(s)
            }
        }
        return body()
    }

    private static func apply(_ s: (silencedForProcess: Bool, quietSpans: Int)) {
        calsa_quiet_errors(s.silencedForProcess || s.quietSpans > 0 ? 1 : 0)
    }
}

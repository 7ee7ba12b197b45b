import CAlsa
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where alsa-lib's own error lines ("ALSA lib pcm.c:2666:(...) Unknown PCM") go: into the
/// program's log, rate-limited, once it installed `AlsaLibraryLog`; else onto stderr as alsa-lib
/// prints them. Silenced for the rest of the process by a listing that reports each error itself,
/// or for a while around a probe whose result says it all. One switch, so that a probe ending
/// does not turn back on what the process silenced.
/// The corresponding C function is `snd_lib_error_set_handler`.
enum AlsaErrorOutput {
    private static let state = Mutex((silencedForProcess: false, quietSpans: 0, logged: false))

    /// From now on, errors that are not silenced go to `AlsaLibraryLog`'s sink.
    static func routeToLog() {
        state.withLock { s in
            s.logged = true
            apply(s)
        }
    }

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

    private static func apply(_ s: (silencedForProcess: Bool, quietSpans: Int, logged: Bool)) {
        let quiet = s.silencedForProcess || s.quietSpans > 0
        calsa_route_errors(quiet ? 1 : s.logged ? 2 : 0)
        JackErrorOutput.setQuiet(quiet)
    }
}

/// JACK's client library, which alsa-lib's `jack` PCM (libasound2-plugins) loads, prints its own
/// lines on stderr when it finds no JACK server ("jack server is not running or cannot be
/// started", "JackShmReadWritePtr::~JackShmReadWritePtr - Init not done"), past alsa-lib's error
/// handler. When the library is installed, its error and info functions are replaced, once, by one
/// that prints as JACK would, unless alsa-lib's errors are off (`AlsaErrorOutput`): then the
/// probe's own result says why a `jack` PCM does not open. Without the library, nothing is loaded.
/// The corresponding C functions are `dlopen`, `jack_set_error_function`, `jack_set_info_function`.
enum JackErrorOutput {
    private static let quiet = Atomic<Bool>(false)

    private static let installed: Bool = {
        // RTLD_NOLOAD first: loaded already (by the plugin) or not, the same library alsa-lib's
        // plugin uses; dlopen of a library that is not installed fails and leaves nothing.
        guard let library = dlopen("libjack.so.0", RTLD_LAZY | RTLD_NOLOAD) ?? dlopen("libjack.so.0", RTLD_LAZY) else {
            return false
        }
        typealias Printer = @convention(c) (UnsafePointer<CChar>?) -> Void
        typealias SetPrinter = @convention(c) (Printer?) -> Void
        let printer: Printer = { message in
            guard !JackErrorOutput.quiet.load(ordering: .relaxed), let message else { return }
            _ = write(2, message, strlen(message))
            _ = write(2, "\n", 1)
        }
        var any = false
        for name in ["jack_set_error_function", "jack_set_info_function"] {
            guard let symbol = dlsym(library, name) else { continue }
            unsafeBitCast(symbol, to: SetPrinter.self)(printer)
            any = true
        }
        return any
    }()

    static func setQuiet(_ value: Bool) {
        quiet.store(value, ordering: .relaxed)
        if value { _ = installed }
    }
}

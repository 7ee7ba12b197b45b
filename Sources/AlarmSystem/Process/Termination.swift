import Glibc

/// How a server without state to save ends (alarm-web): SIGTERM and SIGINT exit at once with
/// status 0, which systemd counts as a clean stop.
public enum Termination {
    /// Call it before starting threads: they inherit the unblocked mask.
    ///
    /// The corresponding C functions are `signal`, `pthread_sigmask` and `_exit`.
    public static func exitCleanlyOnSignals() {
        // A parent may have left them blocked (a blocked mask is inherited across exec).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        _ = signal(SIGTERM) { _ in _exit(0) }
        _ = signal(SIGINT) { _ in _exit(0) }
        // A peer that goes away mid-answer is an error of that write, not the end of the server.
        _ = signal(SIGPIPE, SIG_IGN)
    }
}

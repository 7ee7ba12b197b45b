import CLinux
import Glibc

/// How a child process ended.
public enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "was killed by signal \(signal) (\(String(cString: strsignal(signal))))"
        }
    }
}

/// A command run through `/bin/sh -c`, started with `posix_spawn` (not a fork of this whole
/// process), with a pidfd that becomes readable when it ends, so an `EventLoop` can wait for it
/// without a thread.
///
/// The child gets stdin from /dev/null, this process's stdout and stderr (the journal, under
/// systemd), exactly `environment`, an empty signal mask and default signal dispositions (the
/// daemon blocks SIGTERM, SIGINT and SIGHUP for its signalfd; the child must not inherit that).
/// Descriptors this project opens are close-on-exec, so the child holds none of them (alarmd's
/// instance lock in particular).
public final class ChildProcess {
    public let pid: pid_t
    /// Readable once the child has ended; -1 when the kernel has no pidfd_open (before 5.3).
    public let descriptor: Int32
    public private(set) var status: ExitStatus?

    /// Starts `/bin/sh -c command`.
    /// The corresponding C functions are `posix_spawn` and `pidfd_open`.
    public init(shellCommand command: String, environment: [String: String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try zeroOrErrorNumber("posix_spawn_file_actions_addopen") {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        try zeroOrErrorNumber("posix_spawnattr_setflags") {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        try zeroOrErrorNumber("posix_spawn(/bin/sh)") { posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, envp) }
        pid = child
        descriptor = (try? valueOrErrno("pidfd_open(\(child))") { clinux_pidfd_open(child) }) ?? -1
    }

    deinit {
        if descriptor >= 0 { closeIgnoringErrors(descriptor) }
    }

    /// The exit status once the child has ended (and it is then reaped), nil while it runs.
    /// The corresponding C function is `waitpid` (with `WNOHANG`).
    @discardableResult
    public func reap() throws -> ExitStatus? {
        if let status { return status }
        var raw: Int32 = 0
        let r = try valueOrErrno("waitpid(\(pid))") { waitpid(pid, &raw, WNOHANG) }
        guard r == pid else { return nil }
        if clinux_wifexited(raw) != 0 {
            status = .exited(clinux_wexitstatus(raw))
        } else {
            status = .signaled(clinux_wtermsig(raw))
        }
        return status
    }

    /// Blocks until the child ends. For tests and for callers without an event loop.
    /// The corresponding C function is `waitpid`.
    public func wait() throws -> ExitStatus {
        if let status { return status }
        var raw: Int32 = 0
        try valueOrErrno("waitpid(\(pid))") { waitpid(pid, &raw, 0) }
        status = clinux_wifexited(raw) != 0 ? .exited(clinux_wexitstatus(raw)) : .signaled(clinux_wtermsig(raw))
        return status!
    }
}

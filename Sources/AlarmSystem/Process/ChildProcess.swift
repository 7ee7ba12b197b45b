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

/// A program (or a command run through `/bin/sh -c`), started with `posix_spawn` (not a fork of
/// this whole process), with a pidfd that becomes readable when it ends, so an `EventLoop` can
/// wait for it without a thread.
///
/// The child gets stdin from /dev/null (or bytes given through a pipe), this process's stdout and stderr (the journal, under
/// systemd), exactly `environment`, an empty signal mask and default signal dispositions (the
/// daemon blocks SIGTERM, SIGINT and SIGHUP for its signalfd; the child must not inherit that).
/// Descriptors this project opens are close-on-exec, and the child closes every descriptor above 2
/// before its program starts (`posix_spawn_file_actions_addclosefrom_np`), so it holds none of
/// this process's: alarmd's instance lock, a library's device or a connection another thread
/// opened without close-on-exec at that moment.
public final class ChildProcess {
    public let pid: pid_t
    /// The child leads a process group of its own (`ownProcessGroup`).
    public let processGroup: Bool
    /// Readable once the child has ended; -1 when the kernel has no pidfd_open (before 5.3).
    public let descriptor: Int32
    public private(set) var status: ExitStatus?

    /// Starts `/bin/sh -c command`.
    /// The corresponding C functions are `posix_spawn` and `pidfd_open`.
    public convenience init(shellCommand command: String, environment: [String: String]) throws {
        try self.init(executable: "/bin/sh", arguments: ["-c", command], environment: environment)
    }

    /// Starts the program at `executable` (no shell, no `PATH` search) with `arguments` after
    /// its name. `standardInput`: what the child reads from stdin, through a pipe already filled
    /// and closed, so it can never block this process (nil: /dev/null). `ownProcessGroup`: the
    /// child leads a new process group, so `signal(_:)` reaches whatever it starts too.
    /// The corresponding C functions are `pipe2`, `posix_spawn` (with `posix_spawn_file_actions_addclosefrom_np`)
    /// and `pidfd_open`.
    /// `standardOutput`: a descriptor the child gets as its stdout instead of this process's
    /// (`ChildProcess.capture` passes a pipe's writing end). `quiet`: its stderr is /dev/null.
    /// `inputDescriptor`: a descriptor the child gets as its stdin instead (root's `alarm` hands
    /// its decoding child the sound file it opened, issue #42); it wins over `standardInput`.
    public init(
        executable: String, arguments: [String] = [], environment: [String: String], standardInput: [UInt8]? = nil,
        ownProcessGroup: Bool = false, standardOutput: Int32? = nil, quiet: Bool = false, inputDescriptor: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var input: Int32 = -1
        defer { if input >= 0 { closeIgnoringErrors(input) } }
        if let inputDescriptor {
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") {
                posix_spawn_file_actions_adddup2(&actions, inputDescriptor, 0)
            }
        } else if let standardInput {
            input = try Self.filledPipe(standardInput)
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") {
                posix_spawn_file_actions_adddup2(&actions, input, 0)
            }
        } else {
            try zeroOrErrorNumber("posix_spawn_file_actions_addopen") {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
        }
        if let standardOutput {
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") {
                posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
            }
        }
        if quiet {
            try zeroOrErrorNumber("posix_spawn_file_actions_addopen") {
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            }
        }
        // Last of the actions (the dup2s above read descriptors above 2): the child keeps 0, 1
        // and 2 only, whatever a library or another thread left open without close-on-exec.
        try zeroOrErrorNumber("posix_spawn_file_actions_addclosefrom_np") {
            posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        try zeroOrErrorNumber("posix_spawnattr_setflags") { posix_spawnattr_setflags(&attributes, Int16(flags)) }
        let words: [String] = [executable] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        try zeroOrErrorNumber("posix_spawn(\(executable))") {
            posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        }
        pid = child
        processGroup = ownProcessGroup
        descriptor = (try? valueOrErrno("pidfd_open(\(child))") { clinux_pidfd_open(child) }) ?? -1
    }

    /// A pipe holding `bytes`, its writing end closed: the reading end, close-on-exec. The pipe
    /// is made large enough first (up to the system's limit for pipes, 1 MiB by default).
    private static func filledPipe(_ bytes: [UInt8]) throws -> Int32 {
        var ends: [Int32] = [-1, -1]
        try valueOrErrno("pipe2") { clinux_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) }
        defer { closeIgnoringErrors(ends[1]) }
        if bytes.count > 65536 { _ = clinux_set_pipe_size(ends[1], Int32(clamping: bytes.count)) }
        do {
            try bytes.withUnsafeBytes { buf in
                var done = 0
                while done < buf.count {
                    done += try valueOrErrno("write(pipe)") {
                        Glibc.write(ends[1], buf.baseAddress! + done, buf.count - done)
                    }
                }
            }
            // The child reads it blocking, as a program expects of its stdin.
            let flags = fcntl(ends[0], F_GETFL)
            _ = fcntl(ends[0], F_SETFL, flags & ~O_NONBLOCK)
        } catch {
            closeIgnoringErrors(ends[0])
            throw error
        }
        return ends[0]
    }

    /// True when `path` is a regular file (symlinks followed) this process may execute.
    /// The corresponding C functions are `stat` and `access`.
    public static func isRunnable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, clinux_s_isreg(info.st_mode) != 0 else { return false }
        return access(path, X_OK) == 0
    }

    /// Sends `signal` to the child, or to its whole process group when it was started in its own
    /// (`ownProcessGroup`). Nothing happens once it has been reaped (its pid may be reused).
    /// The corresponding C function is `kill`.
    public func signal(_ signal: Int32) throws {
        guard status == nil else { return }
        try valueOrErrno("kill(\(processGroup ? -pid : pid), \(signal))") { kill(processGroup ? -pid : pid, signal) }
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

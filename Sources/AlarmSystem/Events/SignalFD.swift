import CLinux
import Glibc

/// A POSIX signal number, with the ones the daemon cares about by name.
public struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// SIGTERM: systemd's stop; shut down cleanly.
    public static let terminate = Signal(rawValue: SIGTERM)
    /// SIGINT: Ctrl-C in a terminal; shut down cleanly.
    public static let interrupt = Signal(rawValue: SIGINT)
    /// SIGHUP: reload.
    public static let hangup = Signal(rawValue: SIGHUP)
    public static let quit = Signal(rawValue: SIGQUIT)
    public static let user1 = Signal(rawValue: SIGUSR1)
    public static let user2 = Signal(rawValue: SIGUSR2)
    public static let child = Signal(rawValue: SIGCHLD)
    public static let pipe = Signal(rawValue: SIGPIPE)

    public var description: String {
        guard let name = strsignal(rawValue) else { return "signal \(rawValue)" }
        return "\(String(cString: name)) (\(rawValue))"
    }
}

/// Signals read from a file descriptor instead of interrupting the program, so an `EventLoop`
/// handles SIGTERM and SIGHUP like any other input and no handler runs in signal context.
///
/// A signal only reaches the descriptor while it is blocked in every thread; otherwise the kernel
/// delivers it the ordinary way (for SIGTERM: the process dies). Signal masks are per thread and
/// inherited by threads created later, so the daemon calls `SignalFD.block(_:)` (or creates its
/// `SignalFD`) first thing in `main`, before anything starts a thread.
public final class SignalFD {
    /// One signal read from the descriptor, with who sent it.
    public struct Received: Equatable, Sendable {
        public var signal: Signal
        /// The sending process (0 from the kernel).
        public var senderPID: Int32
        public var senderUID: UInt32
    }

    /// The descriptor, for an `EventLoop` (`.readable`). Owned by this object; closed on deinit.
    public let descriptor: Int32
    /// The signals this descriptor reports.
    public let signals: Set<Signal>

    /// Blocks `signals` in the calling thread (see the type's note on threads) and creates a
    /// non-blocking, close-on-exec descriptor that reports them.
    /// The corresponding C functions are `pthread_sigmask` and `signalfd`.
    public init(_ signals: Set<Signal>) throws {
        try SignalFD.block(signals)
        var set = SignalFD.sigset(signals)
        descriptor = try valueOrErrno("signalfd") { signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
        self.signals = signals
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// Reads every pending signal, oldest first; empty when none is pending. Standard signals do
    /// not queue: two SIGHUPs sent before a read arrive as one.
    /// The corresponding C function is `read`.
    public func read() throws -> [Received] {
        var received: [Received] = []
        var infos = [signalfd_siginfo](repeating: signalfd_siginfo(), count: 8)
        let size = MemoryLayout<signalfd_siginfo>.stride
        while true {
            let n = try infos.withUnsafeMutableBytes { raw in
                try valueOrWouldBlock("read(signalfd)") { Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
            guard let n, n > 0 else { return received }
            for info in infos.prefix(n / size) {
                received.append(
                    Received(
                        signal: Signal(rawValue: Int32(info.ssi_signo)),
                        senderPID: Int32(bitPattern: info.ssi_pid), senderUID: info.ssi_uid))
            }
        }
    }

    /// Blocks `signals` in the calling thread, and so in threads it creates afterwards.
    /// The corresponding C function is `pthread_sigmask`.
    public static func block(_ signals: Set<Signal>) throws {
        var set = sigset(signals)
        try zeroOrErrorNumber("pthread_sigmask") { pthread_sigmask(SIG_BLOCK, &set, nil) }
    }

    /// Unblocks `signals` in the calling thread; a pending one is delivered at once.
    /// The corresponding C function is `pthread_sigmask`.
    public static func unblock(_ signals: Set<Signal>) throws {
        var set = sigset(signals)
        try zeroOrErrorNumber("pthread_sigmask") { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
    }

    /// Ignores `signal` process-wide (for SIGPIPE: a write to a closed pipe or socket then
    /// fails with EPIPE instead of killing the daemon).
    /// The corresponding C function is `sigaction`.
    public static func ignore(_ signal: Signal) throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        try valueOrErrno("sigaction") { sigaction(signal.rawValue, &action, nil) }
    }

    private static func sigset(_ signals: Set<Signal>) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal.rawValue) }
        return set
    }
}

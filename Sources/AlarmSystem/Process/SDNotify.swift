import CLinux
import FoundationEssentials
import Glibc

/// systemd's readiness and watchdog protocol, without libsystemd: datagrams of `KEY=value` lines
/// sent to the unix socket named by `$NOTIFY_SOCKET` (a path, or an abstract name written with a
/// leading `@`).
///
/// Everything is a no-op when `NOTIFY_SOCKET` is unset, so the daemon calls these
/// unconditionally. With `Type=notify` it sends `ready(status:)` once the FIFO and timers are up,
/// `status(_:)` when the next alarm changes, `watchdog()` every `watchdogInterval` when systemd
/// asks for one, and `stopping()` on shutdown.
public struct SDNotify: Sendable {
    /// Why a notification could not be sent.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// `$NOTIFY_SOCKET` is neither an absolute path nor an `@abstract` name, or too long.
        case unsupportedAddress(String)
        case system(SystemError)

        public var description: String {
            switch self {
            case .unsupportedAddress(let a):
                return "NOTIFY_SOCKET=\(a) is not a unix socket path or @abstract name this daemon supports"
            case .system(let e): return "sd_notify: \(e)"
            }
        }
    }

    /// The socket address from `$NOTIFY_SOCKET`, or `nil` when not started by systemd.
    public let socket: String?
    /// Half of `$WATCHDOG_USEC`, when the watchdog is on and meant for this process; `nil` otherwise.
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    /// The watchdog counts as on when `WATCHDOG_USEC` is a positive integer and `WATCHDOG_PID` is
    /// unset or equals `pid` (as `sd_watchdog_enabled` decides).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        let address = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socket = address
        watchdogInterval = SDNotify.watchdogInterval(environment: environment, pid: pid)
    }

    /// True when there is a socket to notify.
    public var isEnabled: Bool { socket != nil }

    /// Sends `READY=1`, with a status line if given.
    public func ready(status: String? = nil) throws {
        try send(["READY=1"] + (status.map { ["STATUS=" + SDNotify.oneLine($0)] } ?? []))
    }

    /// Sends `STATUS=text` (what `systemctl status` shows; newlines become spaces).
    public func status(_ text: String) throws { try send(["STATUS=" + SDNotify.oneLine(text)]) }

    /// Sends `WATCHDOG=1`: "still alive".
    public func watchdog() throws { try send(["WATCHDOG=1"]) }

    /// Sends `STOPPING=1`.
    public func stopping() throws { try send(["STOPPING=1"]) }

    /// Sends `RELOADING=1` (before re-reading configuration; send `ready()` after).
    public func reloading() throws { try send(["RELOADING=1"]) }

    /// Sends the assignments as one datagram, one per line. Returns false (and sends nothing)
    /// when `NOTIFY_SOCKET` is unset.
    /// The corresponding C functions are `socket` and `sendto`.
    @discardableResult
    public func send(_ assignments: [String]) throws -> Bool {
        guard let socket else { return false }
        var address = try SDNotify.address(socket)
        let fd: Int32
        do {
            fd = try valueOrErrno("socket(AF_UNIX)") {
                Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch let error as SystemError { throw Failure.system(error) }
        defer { closeIgnoringErrors(fd) }
        let message = Array(assignments.joined(separator: "\n").utf8)
        do {
            _ = try withUnsafePointer(to: &address.storage) { storage in
                try storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    try message.withUnsafeBytes { raw in
                        try valueOrErrno("sendto(\(socket))") {
                            sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), sa, address.length)
                        }
                    }
                }
            }
        } catch let error as SystemError { throw Failure.system(error) }
        return true
    }

    static func watchdogInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return .microseconds(Int64(clamping: usec / 2))
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" ? " " : $0 })
    }

    /// `sockaddr_un` for a path (NUL-terminated) or an `@name` (abstract: a leading NUL byte, and
    /// a length that covers the name exactly, as systemd expects).
    static func address(_ text: String) throws -> (storage: sockaddr_un, length: socklen_t) {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        var bytes = Array(text.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        guard abstract || bytes.first == UInt8(ascii: "/") else { throw Failure.unsupportedAddress(text) }
        if abstract { bytes[0] = 0 }
        guard bytes.count + (abstract ? 0 : 1) <= capacity else { throw Failure.unsupportedAddress(text) }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = clinux_sun_path_offset() + bytes.count + (abstract ? 0 : 1)
        return (storage, socklen_t(length))
    }
}

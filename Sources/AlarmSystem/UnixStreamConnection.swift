import CLinux
import Glibc
import Synchronization

/// A connected Unix stream socket (a client's end): alarmd's and `alarm check`'s connection to
/// alarm-stream (issue #43). One thread reads and writes; any thread may `shutDown` it, which
/// wakes that thread's `waitReadable` at once. The descriptor is close-on-exec and closed once,
/// by `close` (or when the value is released).
public final class UnixStreamConnection: Sendable {
    private let fd: Mutex<Int32>

    private init(fd: Int32) { self.fd = Mutex(fd) }

    deinit { close() }

    /// Connects to the socket at `path`. ENOENT and ECONNREFUSED mean no one listens there.
    /// The corresponding C functions are `socket` and `connect`.
    public static func connect(path: String) throws(SystemError) -> UnixStreamConnection {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SystemError("connect(\(path))", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let fd: Int32
        do {
            fd = try valueOrErrno("socket") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch { throw error as! SystemError }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let e = errno
            closeIgnoringErrors(fd)
            throw SystemError("connect(\(path))", errno: e)
        }
        return UnixStreamConnection(fd: fd)
    }

    /// Writes all of `bytes` (a peer that is gone gives EPIPE, never SIGPIPE).
    /// The corresponding C function is `send`.
    public func send(_ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n: Int
            do {
                n = try fd.withLock { fd in
                    try valueOrErrno("send") {
                        bytes.withUnsafeBytes {
                            Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                        }
                    }
                }
            } catch { throw error as! SystemError }
            offset += n
        }
    }

    /// Waits up to `milliseconds` for bytes (or the end) to read; false when the time passed.
    /// The corresponding C function is `poll`.
    public func waitReadable(milliseconds: Int32) throws(SystemError) -> Bool {
        let descriptor = fd.withLock { $0 }
        guard descriptor >= 0 else { throw SystemError("poll", errno: EBADF) }
        var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        do {
            return try valueOrErrno("poll") { poll(&p, 1, milliseconds) } > 0
        } catch { throw error as! SystemError }
    }

    /// Reads what is there, up to `buffer.count` bytes, into `buffer`; 0 at the end of the
    /// stream. Blocks when nothing is there (call `waitReadable` first).
    /// The corresponding C function is `read`.
    public func read(into buffer: inout [UInt8]) throws(SystemError) -> Int {
        let descriptor = fd.withLock { $0 }
        guard descriptor >= 0 else { throw SystemError("read", errno: EBADF) }
        do {
            return try valueOrErrno("read") {
                buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            }
        } catch { throw error as! SystemError }
    }

    /// Ends the connection both ways without closing the descriptor: a `waitReadable` or `read`
    /// on another thread returns at once. The corresponding C function is `shutdown`.
    public func shutDown() {
        fd.withLock { fd in
            if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor (once). The corresponding C function is `close`.
    public func close() {
        fd.withLock { fd in
            if fd >= 0 { closeIgnoringErrors(fd) }
            fd = -1
        }
    }
}

import CLinux
import Glibc

/// A failed Linux call: the call's name and its errno, with the C library's text.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// True when the call failed only because it would have blocked (EAGAIN / EWOULDBLOCK).
    public var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}

/// The one place a C return value turns into a Swift result: retries on EINTR, throws
/// `SystemError` with the call's name on -1. Every wrapper in this module goes through here.
@inline(__always)
@discardableResult
func valueOrErrno<T: FixedWidthInteger>(_ call: String, _ body: () -> T) throws -> T {
    while true {
        let r = body()
        if r != -1 { return r }
        let e = Glibc.errno
        if e == EINTR { continue }
        throw SystemError(call, errno: e)
    }
}

/// Like `valueOrErrno`, for non-blocking descriptors: `nil` when the call would block
/// (EAGAIN / EWOULDBLOCK), so callers can drain a descriptor until it is empty.
@inline(__always)
func valueOrWouldBlock<T: FixedWidthInteger>(_ call: String, _ body: () -> T) throws -> T? {
    do {
        return try valueOrErrno(call, body)
    } catch let error as SystemError where error.wouldBlock {
        return nil
    }
}

/// Like `valueOrErrno`, for calls that return a pointer and set errno on `NULL` (`opendir`).
@inline(__always)
func pointerOrErrno<T>(_ call: String, _ body: () -> T?) throws -> T {
    while true {
        if let r = body() { return r }
        let e = Glibc.errno
        if e == EINTR { continue }
        throw SystemError(call, errno: e)
    }
}

/// Closes a descriptor this module owns. Errors from close are ignored on purpose: after
/// close(2) returns, the descriptor is gone on Linux even when it reports EINTR or EIO, and
/// retrying could close a descriptor another thread has just been given.
/// The corresponding C function is `close`.
@inline(__always)
func closeIgnoringErrors(_ fd: Int32) {
    _ = Glibc.close(fd)
}

/// For the pthread-style calls that return 0 or an error number instead of setting errno
/// (`pthread_sigmask`, `getgrnam_r`): retries EINTR, throws `SystemError` on any other non-zero.
@inline(__always)
func zeroOrErrorNumber(_ call: String, _ body: () -> Int32) throws {
    while true {
        let r = body()
        if r == 0 { return }
        if r == EINTR { continue }
        throw SystemError(call, errno: r)
    }
}

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

import CLinux
import Glibc

/// A counter another thread can bump to wake the event loop: the one way work from a helper
/// thread (the audio player's "first frame played") gets back onto the loop's thread.
public final class EventFD: Sendable {
    public let descriptor: Int32

    /// The corresponding C function is `eventfd`.
    public init() throws {
        descriptor = try valueOrErrno("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { close(descriptor) }

    /// Wakes the loop; safe from any thread. The corresponding C function is `eventfd_write`.
    public func signal() {
        _ = try? valueOrErrno("eventfd_write") { eventfd_write(descriptor, 1) }
    }

    /// Clears the counter and returns how many signals were pending (0 when none).
    /// The corresponding C function is `eventfd_read`.
    @discardableResult
    public func drain() throws -> UInt64 {
        var value: eventfd_t = 0
        let r = try valueOrWouldBlock("eventfd_read") { eventfd_read(descriptor, &value) }
        return r == nil ? 0 : value
    }
}

import CLinux
import Glibc

/// A single-threaded epoll loop: the daemon's one place of waiting.
///
/// Register descriptors (a `TimerFD`, an `Inotify`, the `ControlFIFO`, a `SignalFD`, ALSA's poll
/// descriptors) with a handler each, then call `run()` or `runOnce(timeout:)`. Handlers run on the
/// calling thread, one after another; the loop starts no threads and sets no timers of its own, so
/// with nothing ready it sleeps in `epoll_wait` and the process does not wake up at all.
///
/// Readiness is level-triggered: a handler that leaves data unread is called again on the next
/// turn. A handler may register or unregister descriptors, itself included; a descriptor
/// unregistered during a turn gets no further callbacks from that turn. Unregister a descriptor
/// before closing it.
public final class EventLoop {
    /// What a descriptor is ready for, and what it is watched for.
    public struct Readiness: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let readable = Readiness(rawValue: UInt32(EPOLLIN.rawValue))
        public static let writable = Readiness(rawValue: UInt32(EPOLLOUT.rawValue))
        /// The peer hung up (always reported, never needs asking for).
        public static let hangup = Readiness(rawValue: UInt32(EPOLLHUP.rawValue))
        /// An error is pending on the descriptor (always reported).
        public static let error = Readiness(rawValue: UInt32(EPOLLERR.rawValue))
        /// Urgent / priority data (ALSA uses POLLPRI on some devices).
        public static let priority = Readiness(rawValue: UInt32(EPOLLPRI.rawValue))
    }

    /// Identifies one registration, for `unregister(_:)`.
    public struct Token: Hashable, Sendable {
        let id: UInt64
    }

    public typealias Handler = (Readiness) throws -> Void

    private struct Registration {
        var descriptor: Int32
        var handler: Handler
    }

    private let epoll: Int32
    private var registrations: [UInt64: Registration] = [:]
    private var nextID: UInt64 = 1
    private var stopRequested = false
    private var events = [epoll_event](repeating: epoll_event(), count: 32)

    /// Creates an empty loop.
    /// The corresponding C function is `epoll_create1`.
    public init() throws {
        epoll = try valueOrErrno("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    deinit { closeIgnoringErrors(epoll) }

    /// The number of registered descriptors.
    public var count: Int { registrations.count }

    /// Calls `handler` whenever `descriptor` is ready for any of `interest` (or hangs up, or has an
    /// error). The same descriptor cannot be registered twice.
    /// The corresponding C function is `epoll_ctl`.
    @discardableResult
    public func register(_ descriptor: Int32, for interest: Readiness = .readable,
                         _ handler: @escaping Handler) throws -> Token {
        let id = nextID
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = id
        try valueOrErrno("epoll_ctl(ADD, \(descriptor))") { epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) }
        nextID += 1
        registrations[id] = Registration(descriptor: descriptor, handler: handler)
        return Token(id: id)
    }

    /// Changes what a registered descriptor is watched for (ALSA switches between POLLIN and
    /// POLLOUT, for example).
    /// The corresponding C function is `epoll_ctl`.
    public func modify(_ token: Token, for interest: Readiness) throws {
        guard let registration = registrations[token.id] else { return }
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = token.id
        try valueOrErrno("epoll_ctl(MOD, \(registration.descriptor))") {
            epoll_ctl(epoll, EPOLL_CTL_MOD, registration.descriptor, &event)
        }
    }

    /// Stops watching a descriptor. Unregistering twice is harmless.
    /// The corresponding C function is `epoll_ctl`.
    public func unregister(_ token: Token) throws {
        guard let registration = registrations.removeValue(forKey: token.id) else { return }
        do {
            try valueOrErrno("epoll_ctl(DEL, \(registration.descriptor))") {
                epoll_ctl(epoll, EPOLL_CTL_DEL, registration.descriptor, nil)
            }
        } catch let error as SystemError where error.errno == EBADF || error.errno == ENOENT {
            // Already closed (the kernel dropped it from the set): nothing left to undo.
        }
    }

    /// Waits until at least one descriptor is ready or `timeout` passes (`nil`: no limit; the
    /// wait is rounded up to whole milliseconds, so use a `TimerFD` for precise instants), then
    /// calls the handler of each ready descriptor. Returns the number of handlers called (0 on
    /// timeout). A handler's error stops the turn and is rethrown; level-triggered readiness means
    /// nothing is lost. An interrupted wait (EINTR) is restarted with the full timeout.
    /// The corresponding C function is `epoll_wait`.
    @discardableResult
    public func runOnce(timeout: Duration? = nil) throws -> Int {
        let milliseconds = timeout.map(EventLoop.milliseconds) ?? -1
        let capacity = Int32(events.count)
        let ready = try events.withUnsafeMutableBufferPointer { buffer in
            try valueOrErrno("epoll_wait") { epoll_wait(epoll, buffer.baseAddress!, capacity, milliseconds) }
        }
        var called = 0
        for index in 0..<Int(ready) {
            let event = events[index]
            guard let registration = registrations[event.data.u64] else { continue }  // unregistered meanwhile
            called += 1
            try registration.handler(Readiness(rawValue: event.events))
        }
        if Int(ready) == events.count && events.count < 1024 { events += events }  // busy: take more next turn
        return called
    }

    /// Runs turns until a handler calls `stop()`.
    public func run() throws {
        stopRequested = false
        while !stopRequested {
            try runOnce()
        }
    }

    /// Makes `run()` return after the current turn.
    public func stop() { stopRequested = true }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }
}

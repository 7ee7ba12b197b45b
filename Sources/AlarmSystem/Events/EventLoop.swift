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
///
/// An error thrown by a handler does not leave the loop: it goes to `reportFailure` with the
/// handler's name and descriptor, and the turn goes on with the next ready descriptor. Only a
/// broken invariant ends `run()`: `epoll_wait` itself failing, or one handler failing
/// `EventLoop.failureLimit` times within a second (its descriptor stays ready and nothing drains
/// it, so the loop would only spin); the caller's cleanup then runs as after `stop()`.
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

    /// A handler's error, with what it was handling.
    public struct HandlerFailure: Error, CustomStringConvertible {
        /// The name given to `register` ("fd N" when none was).
        public var name: String
        public var descriptor: Int32
        public var error: any Error

        public var description: String { "handling \(name) (fd \(descriptor)) failed: \(error)" }
    }

    /// One handler failed `count` times within a second: `run()` and `runOnce` end with this.
    public struct HandlerKeepsFailing: Error, CustomStringConvertible {
        public var last: HandlerFailure
        public var count: Int

        public var description: String {
            "handling \(last.name) (fd \(last.descriptor)) failed \(count) times within a second, the last time with: "
                + "\(last.error); stopping the event loop rather than spinning"
        }
    }

    /// Failures of one handler within a second that end the loop (see `HandlerKeepsFailing`).
    public static let failureLimit = 100

    private struct Registration {
        var descriptor: Int32
        var name: String
        var handler: Handler
        /// The handler's failures since its last success, counted within a second.
        var failures: (count: Int, since: ContinuousClock.Instant)?
    }

    private let epoll: Int32
    private var registrations: [UInt64: Registration] = [:]
    private var nextID: UInt64 = 1
    private var stopRequested = false
    private var events = [epoll_event](repeating: epoll_event(), count: 32)
    /// Where a handler's error goes before the loop goes on (standard error unless set).
    public var reportFailure: (HandlerFailure) -> Void

    /// Creates an empty loop; handlers' errors go to `reportFailure` (standard error by default).
    /// The corresponding C function is `epoll_create1`.
    public init(reportFailure: @escaping (HandlerFailure) -> Void = { StandardError.write("\($0)") }) throws {
        self.reportFailure = reportFailure
        epoll = try valueOrErrno("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    deinit { closeIgnoringErrors(epoll) }

    /// The number of registered descriptors.
    public var count: Int { registrations.count }

    /// Calls `handler` whenever `descriptor` is ready for any of `interest` (or hangs up, or has an
    /// error). The same descriptor cannot be registered twice. `name` says what the descriptor
    /// is when the handler fails ("the control FIFO"); "fd N" when none is given.
    /// The corresponding C function is `epoll_ctl`.
    @discardableResult
    public func register(
        _ descriptor: Int32, for interest: Readiness = .readable, name: String? = nil,
        _ handler: @escaping Handler
    ) throws -> Token {
        let id = nextID
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = id
        try valueOrErrno("epoll_ctl(ADD, \(descriptor))") { epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) }
        nextID += 1
        registrations[id] = Registration(descriptor: descriptor, name: name ?? "fd \(descriptor)", handler: handler)
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
    /// timeout). A handler's error is passed to `reportFailure` and the turn goes on; throws only
    /// when `epoll_wait` fails or a handler keeps failing (`HandlerKeepsFailing`). An interrupted
    /// wait (EINTR) is restarted with the full timeout.
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
            do {
                try registration.handler(Readiness(rawValue: event.events))
                registrations[event.data.u64]?.failures = nil
            } catch {
                let failure = HandlerFailure(name: registration.name, descriptor: registration.descriptor, error: error)
                try handlerFailed(event.data.u64, failure)
            }
        }
        if Int(ready) == events.count && events.count < 1024 { events += events }  // busy: take more next turn
        return called
    }

    /// Runs turns until a handler calls `stop()`; throws only when the loop cannot go on (see
    /// `runOnce`).
    public func run() throws {
        stopRequested = false
        while !stopRequested {
            try runOnce()
        }
    }

    /// Makes `run()` return after the current turn.
    public func stop() { stopRequested = true }

    private func handlerFailed(_ id: UInt64, _ failure: HandlerFailure) throws {
        reportFailure(failure)
        guard var registration = registrations[id] else { return }  // the handler unregistered itself
        let now = ContinuousClock.now
        if let streak = registration.failures, now - streak.since < .seconds(1) {
            registration.failures = (streak.count + 1, streak.since)
        } else {
            registration.failures = (1, now)
        }
        registrations[id] = registration
        if let streak = registration.failures, streak.count >= EventLoop.failureLimit {
            throw HandlerKeepsFailing(last: failure, count: streak.count)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }
}

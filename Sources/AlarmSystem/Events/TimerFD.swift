import CLinux
import FoundationEssentials
import Glibc

/// One absolute `CLOCK_REALTIME` timer as a file descriptor, the way systemd's timer.c sleeps
/// until the next calendar event.
///
/// The timer is armed for a wall-clock instant with `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`,
/// so it fires at that instant even across suspend-free clock slews, and a discontinuous change of
/// the real-time clock (NTP's first sync on a Pi without an RTC, `date -s`, `clock_settime`) makes
/// the descriptor readable with `.clockChanged` instead of firing late or early. Each change is
/// reported once; the timer stays armed for its old instant, which the caller should recompute
/// (the wall time it meant may have moved) and pass to `arm(at:)` again. A one-shot timer that
/// has fired keeps reporting clock changes until it is re-armed or `disarm()`ed (seen on Linux 6.x).
///
/// A `.monotonic` timer (`TimerFD(clock: .monotonic)`, armed with `arm(after:repeating:)`) serves
/// intervals that must not move with the wall clock, such as the systemd watchdog.
///
/// The descriptor is non-blocking and close-on-exec; register `descriptor` with an `EventLoop`
/// for `.readable` and call `read()` when it is ready.
public final class TimerFD {
    /// What a read of the timer reported.
    public enum Event: Equatable, Sendable {
        /// The armed instant passed; `count` is the number of expirations since the last read
        /// (1 for a one-shot timer).
        case expired(count: UInt64)
        /// The real-time clock was set discontinuously; the armed instant must be recomputed.
        case clockChanged
    }

    /// The clock a timer follows.
    public enum Clock: Sendable {
        /// Wall-clock time: for alarms at calendar instants; reports clock changes.
        case realtime
        /// Time since boot, never set, stopped while suspended: for intervals such as the
        /// systemd watchdog ping.
        case monotonic

        var id: Int32 {
            switch self {
            case .realtime: return CLOCK_REALTIME
            case .monotonic: return CLOCK_MONOTONIC
            }
        }
    }

    /// The timer's file descriptor, for an `EventLoop`. Owned by this object; closed on deinit.
    public let descriptor: Int32
    /// The clock this timer follows.
    public let clock: Clock

    /// Creates a disarmed timer on `clock` (`CLOCK_REALTIME` unless told otherwise).
    /// The corresponding C function is `timerfd_create`.
    public init(clock: Clock = .realtime) throws {
        self.clock = clock
        descriptor = try valueOrErrno("timerfd_create") {
            timerfd_create(clock.id, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        }
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// Arms the timer to fire once at the wall-clock instant `date` and to report any
    /// discontinuous change of the real-time clock before then. An instant in the past fires at
    /// once. Re-arming replaces the previous instant. Only for a `.realtime` timer.
    /// The corresponding C function is `timerfd_settime`.
    public func arm(at date: Date) throws {
        precondition(clock == .realtime, "arm(at:) takes a wall-clock instant; use arm(after:) on a \(clock) timer")
        try settime(TimerFD.timespec(for: date), flags: TimerFD.absoluteCancelOnSet)
    }

    /// Arms the timer at the end of representable time, so it never expires but still reports
    /// `.clockChanged`: for a daemon with nothing scheduled that still wants to notice clock jumps.
    /// The corresponding C function is `timerfd_settime`.
    public func watchClockChanges() throws {
        try settime(
            Glibc.timespec(tv_sec: Int(Int64.max / 1_000_000_000), tv_nsec: 0),
            flags: TimerFD.absoluteCancelOnSet)
    }

    /// Arms the timer as `arm(at:)` does (`nil`: as `watchClockChanges()`), for callers that must
    /// not miss a clock change: when the real-time clock was set after the last `read()` and
    /// before this arm, the kernel refuses the arm with `ECANCELED` rather than reporting the
    /// change to the next read. That change is then read (cleared) and the timer armed again.
    /// Returns true when that happened: `date` was computed before the clock moved, so a caller
    /// whose instant depends on the wall clock should recompute it (and arm again).
    /// The corresponding C function is `timerfd_settime`.
    @discardableResult
    public func armClearingClockChange(at date: Date?) throws -> Bool {
        func attempt() throws {
            if let date { try arm(at: date) } else { try watchClockChanges() }
        }
        do {
            try attempt()
            return false
        } catch let error as SystemError where error.errno == ECANCELED {
            _ = try? read()
            try attempt()
            return true
        }
    }

    /// Arms the timer to fire `delay` from now and then, when `interval` is given, every
    /// `interval` (the watchdog ping on a `.monotonic` timer). Relative timers ignore clock changes.
    /// A zero or negative delay fires as soon as possible.
    /// The corresponding C function is `timerfd_settime`.
    public func arm(after delay: Duration, repeating interval: Duration? = nil) throws {
        var spec = itimerspec(
            it_interval: TimerFD.timespec(for: interval ?? .zero),
            it_value: TimerFD.timespec(for: delay))
        if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        try valueOrErrno("timerfd_settime") { timerfd_settime(descriptor, 0, &spec, nil) }
    }

    /// Disarms the timer: it neither fires nor reports clock changes until armed again.
    /// The corresponding C function is `timerfd_settime`.
    public func disarm() throws {
        try settime(Glibc.timespec(tv_sec: 0, tv_nsec: 0), flags: 0)
    }

    /// The instant the timer is armed for, or `nil` when it is disarmed.
    /// The corresponding C function is `timerfd_gettime`.
    public func armedUntil() throws -> Date? {
        var current = itimerspec()
        try valueOrErrno("timerfd_gettime") { timerfd_gettime(descriptor, &current) }
        let left = current.it_value
        if left.tv_sec == 0 && left.tv_nsec == 0 { return nil }
        // timerfd_gettime reports the time left, whatever the flags were.
        return Date().addingTimeInterval(Double(left.tv_sec) + Double(left.tv_nsec) / 1e9)
    }

    /// Reads what happened since the last read: `.expired(count:)`, `.clockChanged`, or `nil`
    /// when nothing is pending (a spurious wake-up; the descriptor is non-blocking).
    /// The corresponding C function is `read`.
    public func read() throws -> Event? {
        var count: UInt64 = 0
        do {
            let n = try valueOrWouldBlock("read(timerfd)") {
                Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size)
            }
            guard n != nil else { return nil }
            return .expired(count: count)
        } catch let error as SystemError where error.errno == ECANCELED {
            return .clockChanged
        }
    }

    private static let absoluteCancelOnSet = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)

    private func settime(_ value: Glibc.timespec, flags: Int32) throws {
        var spec = itimerspec(it_interval: Glibc.timespec(tv_sec: 0, tv_nsec: 0), it_value: value)
        try valueOrErrno("timerfd_settime") { timerfd_settime(descriptor, flags, &spec, nil) }
    }

    /// A non-negative `Duration` as a relative timespec (negative becomes zero).
    static func timespec(for duration: Duration) -> Glibc.timespec {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, !(seconds == 0 && attoseconds < 0) else { return Glibc.timespec(tv_sec: 0, tv_nsec: 0) }
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    }

    /// A `Date` as an absolute `CLOCK_REALTIME` timespec. Instants before 1970 become the epoch
    /// (they are in the past, so the timer fires at once), and a zero timespec (which would
    /// disarm) becomes one nanosecond after the epoch.
    static func timespec(for date: Date) -> Glibc.timespec {
        let t = date.timeIntervalSince1970
        guard t > 0 else { return Glibc.timespec(tv_sec: 0, tv_nsec: 1) }
        let limit = Double(Int64.max / 1_000_000_000)
        guard t < limit else { return Glibc.timespec(tv_sec: Int(limit), tv_nsec: 0) }
        var seconds = t.rounded(.down)
        var nanos = ((t - seconds) * 1e9).rounded()
        if nanos >= 1e9 {
            seconds += 1
            nanos -= 1e9
        }
        if seconds == 0 && nanos == 0 { nanos = 1 }
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(nanos))
    }
}

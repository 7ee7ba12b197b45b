import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A lock with a condition variable, in place of Foundation's `NSCondition` (full Foundation
/// would bring ICU's 40 MB along): the player thread and its callers meet here, and alarm-stream's
/// fetcher and decoder.
///
/// Timed waits run on `CLOCK_MONOTONIC`, not on the wall clock as `NSCondition`'s do: a wall clock
/// set back while a wait lasts (NTP's first sync on a Pi without an RTC, `date -s`) would stretch
/// a 0.1 s wait by as much as the clock moved, and a retry or a hung call would wait that long.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func broadcast() { pthread_cond_broadcast(cond) }
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until signalled or until `duration` has passed on the monotonic clock; false when it
    /// passed (at once for none). The caller checks its condition (and the time) again either way.
    public func wait(for duration: Duration) -> Bool {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return false }
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        ts.tv_sec += Int(seconds)
        ts.tv_nsec += Int(attoseconds / 1_000_000_000)
        if ts.tv_nsec >= 1_000_000_000 {
            ts.tv_sec += 1
            ts.tv_nsec -= 1_000_000_000
        }
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }

    /// Waits until signalled or until `deadline` on `ContinuousClock`; false when it passed.
    public func wait(until deadline: ContinuousClock.Instant) -> Bool {
        wait(for: ContinuousClock.now.duration(to: deadline))
    }
}

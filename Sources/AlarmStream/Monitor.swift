import Glibc

/// A mutex and its condition variable (pthread), used as Foundation's `NSCondition` was: lock,
/// wait, broadcast, unlock. Foundation's would link all of Foundation and ICU (some 40 MB) into
/// alarm-stream, which needs FoundationEssentials only.
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a broadcast: the lock is held when called and again on return (a wake-up may be
    /// spurious: callers wait in a loop on their condition).
    func wait() { pthread_cond_wait(condition, mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
}

/// Opened once by `open()`; `wait()` returns once it is (as a `DispatchSemaphore(value: 0)` with
/// one signal and one wait).
final class Latch: @unchecked Sendable {
    private let monitor = Monitor()
    private var isOpen = false

    func open() {
        monitor.lock()
        isOpen = true
        monitor.broadcast()
        monitor.unlock()
    }

    func wait() {
        monitor.lock()
        while !isOpen { monitor.wait() }
        monitor.unlock()
    }
}

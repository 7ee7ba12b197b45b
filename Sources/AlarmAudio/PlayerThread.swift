import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A lock with a condition variable, in place of Foundation's `NSCondition` (full Foundation
/// would bring ICU's 40 MB along): the player thread and its callers meet here.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond.initialize(to: pthread_cond_t())
        // Deadlines are wall-clock `Date`s (as NSCondition's are): CLOCK_REALTIME is the default.
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until signalled or until `deadline`; false when the deadline passed.
    func wait(until deadline: Date) -> Bool {
        let t = deadline.timeIntervalSince1970
        guard t.isFinite else { wait(); return true }
        let seconds = t.rounded(.down)
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((t - seconds) * 1e9))
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }
}

/// Runs `body` on a new, detached thread (as Foundation's `Thread` did); `name` is for debugging.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, _ name: String) {
            self.body = body
            self.name = name
        }
    }
    let box = Unmanaged.passRetained(Box(body, name)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if rc == 0 {
        pthread_detach(thread)
    } else {
        // No thread: run it here rather than never (the caller gets a late, but real, ring).
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
    }
}

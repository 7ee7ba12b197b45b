import Foundation
import CLinux
import Glibc

/// Serialises tests that set the real-time clock against tests that arm
/// `TFD_TIMER_CANCEL_ON_SET` timers and assert that they fire, which such a set would
/// legitimately cancel, in this process and in any other test process on the machine: CI runs
/// the suites that wait on real time (the end-to-end clock set among them) in one process beside
/// the rest (the TimerFD tests among them) in another (issue #40, seen in the hunt). A
/// process-wide rwlock orders this process's threads; an flock(2) on a fixed file orders the
/// processes. When that file cannot be opened (another user made it, a read-only /tmp), only the
/// in-process lock is taken, and said once.
public final class RealtimeClockGuard: @unchecked Sendable {
    public static let shared = RealtimeClockGuard()
    /// The file the processes lock; its content is nothing.
    public static let lockPath = "/tmp/alarm-test-realtime-clock.lock"
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private let fd: Int32

    private init() {
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
        // 0666 whatever the umask: a test process of another user may share it.
        let made = open(Self.lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        if made >= 0 { _ = fchmod(made, 0o666) }
        fd = made
        if made < 0 {
            let why = String(cString: strerror(errno))
            FileHandle.standardError.write(
                Data(
                    "RealtimeClockGuard: \(Self.lockPath): \(why); clock tests are ordered within this process only\n"
                        .utf8))
        }
    }

    /// Readers in this process: the first takes the file's shared lock, the last drops it (an
    /// flock belongs to the open file, not the thread, so one reader's unlock would drop it for all).
    private var readers = 0
    private let readersLock = NSLock()

    private func fileLock(_ operation: Int32) {
        guard fd >= 0 else { return }
        while flock(fd, operation) != 0 && errno == EINTR {}
    }

    /// For tests whose timers must not see a clock change.
    public func sharing<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        readersLock.lock()
        readers += 1
        if readers == 1 { fileLock(LOCK_SH) }
        readersLock.unlock()
        defer {
            readersLock.lock()
            readers -= 1
            if readers == 0 { fileLock(LOCK_UN) }
            readersLock.unlock()
        }
        return try body()
    }

    /// For a test that sets the clock.
    public func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        fileLock(LOCK_EX)
        defer { fileLock(LOCK_UN) }
        return try body()
    }
}

/// Sees whether the wall clock was set, by anyone, since it was last armed: a
/// `TFD_TIMER_CANCEL_ON_SET` timerfd of its own, as the timers under test are. The kernel reports
/// a set to every such timer whoever made it: another test (CI runs the end-to-end clock set in
/// one process beside the TimerFD tests in another), NTP, an administrator, the machine itself
/// (issue #40's hunt met about 300 sets in the three minutes after its VM was forked, made by no
/// test). A timer test whose attempt saw such a set proves nothing either way, so it is tried
/// again (`RealtimeClockGuard.withoutClockSet`).
public final class ClockSetWatch {
    private let fd: Int32
    /// A set was seen by `check()` in this attempt.
    public private(set) var spoiled = false

    public init() {
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        precondition(fd >= 0, "timerfd_create: \(errno)")
        arm()
    }

    deinit { close(fd) }

    /// Arms it far in the future, absolute and cancelled on a set; a set that came between the
    /// last read and this arm is read (and counted) here, as the kernel refuses the arm then.
    @discardableResult
    private func arm() -> Bool {
        var spec = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(Int64.max / 1_000_000_000), tv_nsec: 0))
        var sawSet = false
        while timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil) != 0 {
            precondition(errno == ECANCELED, "timerfd_settime: \(errno)")
            sawSet = true
            var count: UInt64 = 0
            _ = read(fd, &count, 8)
        }
        return sawSet
    }

    /// Whether the clock was set since the last `check()` or `forget()`; the attempt is spoiled if so.
    @discardableResult
    public func check() -> Bool {
        var count: UInt64 = 0
        var sawSet = read(fd, &count, 8) < 0 && errno == ECANCELED
        sawSet = arm() || sawSet
        if sawSet { spoiled = true }
        return sawSet
    }

    /// Forgets the sets so far without spoiling the attempt: for a test that set the clock itself.
    public func forget() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        arm()
    }
}

extension RealtimeClockGuard {
    /// Runs `attempt` under `sharing` until one runs with no set of the wall clock during it (it
    /// calls `watch.check()` itself where a set would spoil a stretch, `watch.forget()` after a set
    /// of its own; the stretch after its last call is checked when it returns), at most `tries`
    /// times; returns the last attempt's result either way, with the number of spoiled attempts.
    /// Assertions belong after it, on what the attempt returned: an attempt a set spoiled must not
    /// record a failure.
    public func withoutClockSet<T>(tries: Int = 5, _ attempt: (ClockSetWatch) throws -> T) throws -> (T, spoiled: Int) {
        try untilUnspoiled(tries: tries, exclusively: false, attempt)
    }

    /// As `withoutClockSet`, for a test that sets the clock itself (under `exclusive`).
    public func exclusiveWithoutOtherClockSet<T>(
        tries: Int = 5, _ attempt: (ClockSetWatch) throws -> T
    ) throws -> (
        T, spoiled: Int
    ) {
        try untilUnspoiled(tries: tries, exclusively: true, attempt)
    }

    /// The loop of both: each attempt under `exclusive` or `sharing`, with a watch of its own.
    private func untilUnspoiled<T>(
        tries: Int, exclusively: Bool, _ attempt: (ClockSetWatch) throws -> T
    ) throws -> (T, spoiled: Int) {
        var spoiled = 0
        while true {
            let watch = ClockSetWatch()
            // What the attempt threw counts as what it returned: a set can make an arm throw
            // (ECANCELED), and that attempt is spoiled too.
            let result = Result { try exclusively ? exclusive { try attempt(watch) } : sharing { try attempt(watch) } }
            watch.check()
            if !watch.spoiled || spoiled + 1 >= tries { return (try result.get(), spoiled + (watch.spoiled ? 1 : 0)) }
            spoiled += 1
        }
    }
}

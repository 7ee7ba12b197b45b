import CLinux
import Glibc

/// Could not take a lock in time: another program holds it.
public struct LockTimeout: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var seconds: Double
    public var description: String {
        "could not lock \(path) within \(seconds) s: another alarm or alarmd process is holding it"
    }
}

/// An exclusive `flock` on a lock file, held until `unlock()` or deinit. Locks belong to the open
/// file description, so two `FileLock`s exclude each other across processes and across threads
/// of one process alike; the kernel drops the lock if the holder dies.
public final class FileLock {
    public let path: String
    private var fd: Int32

    /// Opens (creating) `path` and waits up to `timeout` seconds for the exclusive lock, retrying
    /// every few milliseconds. Throws `LockTimeout`, or `SystemError` if the file cannot be opened.
    ///
    /// The corresponding C functions are `open`, `flock` and `clock_gettime`.
    public init(path: String, timeout: Double) throws {
        self.path = path
        fd = try Self.open(path)
        let deadline = try Self.monotonic() + timeout
        var pause: UInt32 = 1_000
        while true {
            do {
                try valueOrErrno("flock \(path)") { flock(fd, LOCK_EX | LOCK_NB) }
                return
            } catch let e as SystemError where e.errno == EWOULDBLOCK {
                if try Self.monotonic() >= deadline {
                    _ = close(fd)
                    throw LockTimeout(path: path, seconds: timeout)
                }
                try valueOrErrno("usleep") { usleep(pause) }
                pause = min(pause * 2, 20_000)
            } catch {
                _ = close(fd)
                throw error
            }
        }
    }

    /// Opens the lock file read-write, creating it. A lock file another user created (a member of
    /// the group that shares the state directory, with a umask that left it group-read-only) is
    /// opened read-only instead: `flock` needs no write access, so every member can still lock.
    /// The corresponding C function is `open`.
    static func open(_ path: String) throws -> Int32 {
        do {
            return try valueOrErrno("open \(path)") { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        } catch let error as SystemError where error.errno == EACCES {
            return try valueOrErrno("open \(path)") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        }
    }

    /// Runs `body` holding the lock on `path`.
    public static func withLock<T>(_ path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        let lock = try FileLock(path: path, timeout: timeout)
        defer { lock.unlock() }
        return try body()
    }

    /// Releases the lock (closing the descriptor releases it). Idempotent.
    public func unlock() {
        guard fd >= 0 else { return }
        _ = close(fd)
        fd = -1
    }

    deinit { unlock() }

    private static func monotonic() throws -> Double {
        var ts = timespec()
        try valueOrErrno("clock_gettime") { clock_gettime(CLOCK_MONOTONIC, &ts) }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

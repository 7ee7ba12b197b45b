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
    /// every few milliseconds. Throws `LockTimeout`, `FileRefusal` when `path` is a symbolic link
    /// (never followed, its target never created) or not a regular file, or `SystemError` if the
    /// file cannot be opened.
    ///
    /// A lock file this call creates gets `permissions` less the umask, or exactly `permissions`
    /// with `ignoringUmask`: the store's lock is 0660 whatever the umask of the `alarm` that
    /// made it, since a lock file only its maker may open would lock every other writer out.
    ///
    /// The corresponding C functions are `open`, `fchmod`, `fstat`, `flock` and `clock_gettime`.
    public init(path: String, timeout: Double, permissions: UInt32 = 0o644, ignoringUmask: Bool = false) throws {
        self.path = path
        fd = try Self.open(path, permissions: permissions, ignoringUmask: ignoringUmask)
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
    /// Only a regular file is opened, never through a link (`RegularFile`). With `ignoringUmask`,
    /// a lock file of this user's that lacks some of `permissions` (made by an older alarm under
    /// umask 077) is given them: it holds no data, and its mode alone decides who may lock.
    /// The corresponding C functions are `open` and `fchmod`.
    static func open(_ path: String, permissions: UInt32, ignoringUmask: Bool) throws -> Int32 {
        do {
            let (fd, info) = try RegularFile.openCreating(
                path, O_RDWR, permissions: permissions, ignoringUmask: ignoringUmask)
            if ignoringUmask, info.st_uid == geteuid(), UInt32(info.st_mode) & permissions != permissions {
                _ = fchmod(fd, mode_t(UInt32(info.st_mode) & 0o7777 | permissions))
            }
            return fd
        } catch let error as SystemError where error.errno == EACCES {
            guard let opened = try RegularFile.open(path, O_RDONLY) else { throw error }
            return opened.fd
        }
    }

    /// Runs `body` holding the lock on `path` (a lock file created as `init` creates it).
    public static func withLock<T>(
        _ path: String, timeout: Double, permissions: UInt32 = 0o644, ignoringUmask: Bool = false,
        _ body: () throws -> T
    ) throws -> T {
        let lock = try FileLock(path: path, timeout: timeout, permissions: permissions, ignoringUmask: ignoringUmask)
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

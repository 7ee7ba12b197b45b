import CLinux
import Glibc

/// A file that was not opened because it is not what a state file may be: a symbolic link, not a
/// regular file (a FIFO, a device, a directory, a socket), or larger than its cap. The file is left
/// as it is; nothing was read from it or written to it.
public struct FileRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The last component of the path is a symbolic link (never followed).
        case symbolicLink
        /// Something other than a regular file: "a FIFO", "a directory", "a character device"...
        case notRegular(String)
        /// A regular file of `size` bytes, more than the `limit` it may have.
        case tooLarge(size: Int, limit: Int)
    }

    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// What the file is, after its path: "is a FIFO, not a regular file".
    public var what: String {
        switch reason {
        case .symbolicLink: return "is a symbolic link, which is never followed here"
        case .notRegular(let kind): return "is \(kind), not a regular file"
        case .tooLarge(let size, let limit):
            return "is \(Self.spoken(bytes: size)), more than the \(Self.spoken(bytes: limit)) it may be"
        }
    }

    public var description: String { "\(path) \(what): move it away" }

    /// A size as people say it: "12 bytes", "512 KiB", "16 MiB", "100 GiB" (one decimal below 10).
    public static func spoken(bytes: Int) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = -1
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded() / 10
        let text = tenths < 10 && tenths != tenths.rounded(.down) ? "\(tenths)" : "\(Int(value.rounded()))"
        return text + " " + units[unit]
    }

    /// "a FIFO", "a directory", ... for a `st_mode` that is not a regular file's.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }
}

/// Opening the files of the state directory: never through a symbolic link (`O_NOFOLLOW`),
/// never waiting (`O_NONBLOCK`: a FIFO opens at once and is then refused, where a plain open
/// would wait for a writer forever), and only when `fstat` says it is a regular file.
enum RegularFile {
    /// `path` opened with `flags` (plus `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC`) and its
    /// `fstat`, or nil when it does not exist. Throws `FileRefusal` for a link, a non-regular file
    /// or one over `limit` bytes, `SystemError` for the rest (EACCES). O_NONBLOCK stays set; it
    /// changes nothing for a regular file.
    ///
    /// The corresponding C functions are `open`, `fstat`, `lstat` and `close`.
    static func open(_ path: String, _ flags: Int32, limit: Int? = nil) throws -> (fd: Int32, info: stat)? {
        let fd: Int32
        do {
            fd = try valueOrErrno("open \(path)") { Glibc.open(path, flags | strict) }
        } catch let e as SystemError where e.errno == ENOENT {
            return nil
        } catch let e as SystemError where e.errno == ELOOP || e.errno == ENXIO || e.errno == EISDIR {
            // ELOOP: the last component is a link. ENXIO: a FIFO without a reader opened for
            // writing. EISDIR: a directory opened for writing.
            throw refusal(path) ?? e
        }
        do {
            let info = try checked(fd, path, limit: limit)
            return (fd, info)
        } catch {
            closeIgnoringErrors(fd)
            throw error
        }
    }

    /// Opens `path` with `flags`, creating it when it does not exist with `permissions` less the
    /// umask, or exactly `permissions` with `ignoringUmask` (`fchmod` after an exclusive create,
    /// so no umask of the caller's can take the group's access away); an existing file keeps its
    /// mode. Refuses as `open` does.
    ///
    /// The corresponding C functions are `open`, `fchmod`, `fstat` and `close`.
    static func openCreating(
        _ path: String, _ flags: Int32, permissions: UInt32, ignoringUmask: Bool
    ) throws -> (fd: Int32, info: stat) {
        // An exclusive create never follows a link, dangling or not: it fails with EEXIST.
        for _ in 0..<8 {
            do {
                let fd = try valueOrErrno("open \(path)") {
                    Glibc.open(path, flags | O_CREAT | O_EXCL | strict, mode_t(permissions))
                }
                do {
                    if ignoringUmask { try valueOrErrno("fchmod \(path)") { fchmod(fd, mode_t(permissions)) } }
                    return (fd, try checked(fd, path, limit: nil))
                } catch {
                    closeIgnoringErrors(fd)
                    throw error
                }
            } catch let e as SystemError where e.errno == EEXIST {
                if let opened = try open(path, flags) { return opened }
                // Removed in between: create it after all.
            }
        }
        throw SystemError("open \(path)", errno: EAGAIN)
    }

    static let strict = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC

    /// `fstat(fd)`, refusing anything but a regular file of at most `limit` bytes.
    private static func checked(_ fd: Int32, _ path: String, limit: Int?) throws -> stat {
        var info = stat()
        try valueOrErrno("fstat \(path)") { fstat(fd, &info) }
        guard clinux_s_isreg(info.st_mode) != 0 else {
            throw FileRefusal(path: path, reason: .notRegular(FileRefusal.kind(info.st_mode)))
        }
        if let limit, Int(info.st_size) > limit {
            throw FileRefusal(path: path, reason: .tooLarge(size: Int(info.st_size), limit: limit))
        }
        return info
    }

    /// Why an open that failed with ELOOP, ENXIO or EISDIR failed, told from `lstat`; nil when it is not
    /// a link or a special file after all.
    private static func refusal(_ path: String) -> FileRefusal? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if clinux_s_islnk(info.st_mode) != 0 { return FileRefusal(path: path, reason: .symbolicLink) }
        if clinux_s_isreg(info.st_mode) == 0 {
            return FileRefusal(path: path, reason: .notRegular(FileRefusal.kind(info.st_mode)))
        }
        return nil
    }
}

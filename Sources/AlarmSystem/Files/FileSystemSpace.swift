import CLinux
import Glibc

/// Room in a file system, and whether this process may write a directory.
public enum FileSystemSpace {
    /// The bytes an unprivileged user may still write on the file system holding `path` (root's
    /// reserved blocks not counted, as `df` shows them).
    /// The corresponding C function is `statvfs`.
    public static func availableBytes(_ path: String) throws -> Int64 {
        var info = statvfs()
        try valueOrErrno("statvfs(\(path))") { statvfs(path, &info) }
        return Int64(
            clamping: UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize)).partialValue)
    }

    /// Throws when this process may not create files in `path`: EACCES (permissions), EROFS (a
    /// read-only mount), ENOENT. A full disk passes: see `availableBytes`.
    /// The corresponding C function is `access` (with `W_OK`, for the real user and group ids).
    public static func checkWritable(_ path: String) throws {
        try valueOrErrno("access(\(path), W_OK)") { access(path, W_OK) }
    }
}

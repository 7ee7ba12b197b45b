import CLinux
import Glibc

/// Who owns a file, and which version of it is on disk.
public enum FileOwnership {
    /// Gives `path` to group `group`, leaving its owner as it is (`chown(path, -1, gid)`): a file
    /// root writes for the members of a group (`/etc/alarm/web-token`, root:alarm 0640).
    ///
    /// The corresponding C function is `chown`.
    public static func setGroup(_ path: String, group: UInt32) throws {
        try valueOrErrno("chown \(path)") { chown(path, uid_t.max, gid_t(group)) }
    }

    /// The file's device, inode, size and modification time: equal values mean the same content
    /// was not replaced or rewritten since (an atomic write makes a new inode). Nil when the file
    /// cannot be looked at.
    ///
    /// The corresponding C function is `stat`.
    public static func identity(_ path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [
            Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec),
        ]
    }
}

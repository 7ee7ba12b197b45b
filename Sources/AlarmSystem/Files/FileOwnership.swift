import CLinux
import Glibc

/// Which version of a file is on disk.
public enum FileOwnership {
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

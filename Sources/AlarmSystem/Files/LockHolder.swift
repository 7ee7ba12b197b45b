import CLinux
import Glibc

extension FileLock {
    /// Whether some process holds a `flock` on the file at `path`, told from /proc/locks without
    /// opening the file. So it works for a user who may not open the file, and it never takes the
    /// lock itself (a shared lock held by anyone would keep the owner from starting). Returns nil
    /// when it cannot be told: no such file, or /proc/locks unreadable.
    ///
    /// The corresponding C function is `stat`; the kernel lists each lock in /proc/locks as
    /// `1: FLOCK ADVISORY WRITE PID MAJOR:MINOR:INODE 0 EOF` (device numbers in hex).
    public static func isHeld(_ path: String) -> Bool? {
        var info = stat()
        guard (try? valueOrErrno("stat(\(path))") { stat(path, &info) }) != nil,
            let locks = try? ProcFile.read("/proc/locks")
        else { return nil }
        let dev = UInt64(info.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // Waiting requests ("1: -> FLOCK ...") are not held locks.
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let id = fields[5].split(separator: ":")
            guard id.count == 3, UInt64(id[0], radix: 16) == major, UInt64(id[1], radix: 16) == minor,
                UInt64(id[2]) == UInt64(info.st_ino)
            else { continue }
            return true
        }
        return false
    }
}

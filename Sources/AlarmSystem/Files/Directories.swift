import CLinux
import Glibc

/// Directories and the file-creation mask, as the daemon sets up its state and runtime directories.
public enum Directories {
    /// Creates `path` and any missing parents (`mkdir -p`). Directories it creates get exactly
    /// `mode`, whatever the umask; existing ones are left as they are. Throws ENOTDIR when
    /// something other than a directory is in the way.
    /// The corresponding C functions are `mkdir` and `chmod`.
    public static func create(_ path: String, mode: UInt32 = 0o755) throws {
        guard !path.isEmpty else { throw SystemError("mkdir(\"\")", errno: ENOENT) }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if component == "." || component == ".." { continue }
            do {
                try valueOrErrno("mkdir(\(prefix))") { mkdir(prefix, mode_t(mode)) }
                try valueOrErrno("chmod(\(prefix))") { chmod(prefix, mode_t(mode)) }
            } catch let error as SystemError where error.errno == EEXIST {
                var info = stat()
                try valueOrErrno("stat(\(prefix))") { stat(prefix, &info) }
                guard clinux_s_isdir(info.st_mode) != 0 else { throw SystemError("mkdir(\(prefix))", errno: ENOTDIR) }
            }
        }
    }

    /// Sets the process-wide file-creation mask and returns the previous one. The daemon sets
    /// 0o027 (or what its unit says) once at start, before creating files.
    /// The corresponding C function is `umask`.
    @discardableResult
    public static func setUmask(_ mask: UInt32) -> UInt32 {
        UInt32(umask(mode_t(mask)))
    }
}

import CLinux
import Glibc

/// Whole-file reads and crash-safe writes: a reader sees the old content or the new, never a
/// mix, and after `write` returns the new content survives a power cut.
public enum AtomicFile {
    /// Calls `body` with the whole file's bytes, or nil when it does not exist, mapped into
    /// memory rather than copied: the pages the kernel already caches become the buffer (a
    /// 4 MB store read with `read` cost a fifth of `alarm list --json`, mostly in page faults
    /// of the copy). The buffer is valid during `body` only. Files here are replaced by rename,
    /// never rewritten in place, so the mapping sees one whole version. A file that cannot be
    /// mapped (empty, or not a regular file) is read as `read` reads it.
    ///
    /// With a `limit`, the file is a state file: as `read(_:limit:)` opens it.
    ///
    /// The corresponding C functions are `open`, `fstat`, `mmap`, `munmap` and `close`.
    public static func withMapped<T>(
        _ path: String, limit: Int? = nil, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T
    ) throws -> T {
        guard let fd = try open(path, limit: limit) else { return try body(nil) }
        var info = stat()
        let size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        let mapped = size > 0 ? mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : nil
        guard let mapped, mapped != MAP_FAILED else {
            // Read from the descriptor open (a FIFO opened again would wait for a new writer).
            defer { _ = close(fd) }
            return try read(fd, path, limit: limit).withUnsafeBufferPointer { try body($0) }
        }
        _ = close(fd)
        defer { _ = munmap(mapped, size) }
        return try body(UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size))
    }

    /// The whole file, or nil when it does not exist.
    ///
    /// With a `limit`, the file is a state file, and only a regular file of at most `limit`
    /// bytes is read: a symbolic link is not followed, and it, a FIFO (never waited on), a
    /// device, a directory or a larger file throws `FileRefusal` at once, before any read.
    /// Without one, anything `open` opens is read to its end (the config, `/dev/stdin`).
    ///
    /// The corresponding C functions are `open`, `fstat`, `read` and `close`.
    public static func read(_ path: String, limit: Int? = nil) throws -> [UInt8]? {
        guard let fd = try open(path, limit: limit) else { return nil }
        defer { _ = close(fd) }
        return try read(fd, path, limit: limit)
    }

    /// `path` opened for reading, nil when it does not exist; with a `limit`, as a state file.
    private static func open(_ path: String, limit: Int?) throws -> Int32? {
        if let limit { return try RegularFile.open(path, O_RDONLY, limit: limit)?.fd }
        do {
            return try valueOrErrno("open \(path)") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        } catch let e as SystemError where e.errno == ENOENT {
            return nil
        }
    }

    /// The rest of what `fd` (opened on `path`) reads; past `limit` bytes (a file that grew
    /// after its `fstat`) it throws `FileRefusal`.
    private static func read(_ fd: Int32, _ path: String, limit: Int?) throws -> [UInt8] {
        func checkLimit(_ count: Int) throws {
            if let limit, count > limit {
                throw FileRefusal(path: path, reason: .tooLarge(size: count, limit: limit))
            }
        }
        var out: [UInt8] = []
        // A regular file: read straight into one allocation of its size (a 4 MB store of
        // 10,000 alarms grew by copies, then went through a chunk: two copies), one more byte
        // to see the end in the same loop. A file that grew meanwhile goes on below.
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > 0 {
            let size = Int(info.st_size) + 1
            var failure: Int32 = 0
            out = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
                while count < size {
                    let n = Glibc.read(fd, buf.baseAddress! + count, size - count)
                    if n > 0 {
                        count += n
                    } else if n == 0 {
                        return
                    } else if errno != EINTR {
                        failure = errno
                        return
                    }
                }
            }
            if failure != 0 { throw SystemError("read \(path)", errno: failure) }
            try checkLimit(out.count)
            if out.count < size { return out }
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buf in
                try valueOrErrno("read \(path)") { Glibc.read(fd, buf.baseAddress, buf.count) }
            }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
            try checkLimit(out.count)
        }
    }

    /// Replaces the file's content atomically: writes a temporary file in the same directory
    /// (created anew, `O_EXCL | O_NOFOLLOW`: never through a link someone put in its place), fsyncs it, renames it over `path`, then fsyncs the directory so the rename itself is
    /// durable. On failure the old file is untouched and the temporary file removed.
    ///
    /// The new file gets `permissions` less the process's umask, or exactly `permissions` when
    /// `ignoringUmask` is set: a file meant for every user (alarmd's status.json, 0644) stays
    /// readable even in a daemon whose umask keeps its other files from the world.
    ///
    /// With `group`, the new file belongs to that group (its owner stays the writer): a file root
    /// writes for a group's members (`/etc/alarm/web-token`, root:alarm 0640). The group and the
    /// mode are set on the temporary file, before the rename, so that nobody ever finds `path`
    /// with the writer's group or another mode: a reader of the group that came between a
    /// rename and a `chown` after it was refused the file (issue #42).
    ///
    /// With `replacing` false an existing file is left alone and the write throws EEXIST: the
    /// temporary file is linked to `path` (which fails when the name exists) instead of renamed.
    ///
    /// The corresponding C functions are `open`, `fchown`, `fchmod`, `write`, `fsync`, `rename`,
    /// `link`, `unlink` and `close`.
    public static func write(
        _ bytes: [UInt8], to path: String, permissions: UInt32 = 0o644, ignoringUmask: Bool = false,
        group: UInt32? = nil, replacing: Bool = true
    ) throws {
        let dir = directory(of: path)
        let temp = dir + "/." + baseName(of: path) + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try valueOrErrno("open \(temp)") {
            Glibc.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        }
        do {
            // The group first: chown may clear mode bits, which fchmod then sets.
            if let group { try valueOrErrno("fchown \(temp)") { fchown(fd, uid_t.max, gid_t(group)) } }
            if ignoringUmask { try valueOrErrno("fchmod \(temp)") { fchmod(fd, mode_t(permissions)) } }
            try writeAll(fd, bytes, path: temp)
            try valueOrErrno("fsync \(temp)") { fsync(fd) }
            try valueOrErrno("close \(temp)") { close(fd) }
        } catch {
            _ = close(fd)
            _ = unlink(temp)
            throw error
        }
        do {
            if replacing {
                try valueOrErrno("rename \(temp) to \(path)") { rename(temp, path) }
            } else {
                defer { _ = unlink(temp) }
                try valueOrErrno("link \(temp) to \(path)") { link(temp, path) }
            }
        } catch {
            _ = unlink(temp)
            throw error
        }
        try syncDirectory(dir)
    }

    /// Appends `bytes` with one `write` on an `O_APPEND` descriptor, then fsyncs: concurrent
    /// appenders never interleave within one call on a local file system. Creates the file with
    /// `permissions` less the umask, or exactly `permissions` when `ignoringUmask` is set. An
    /// existing file is appended to only when it is a regular file (a symbolic link, a FIFO, a
    /// device or a directory throws `FileRefusal`) of at most `limit` bytes when one is given.
    /// When the file was empty (or did not exist) its directory is fsynced too, so that the name
    /// of a file this call created survives a power cut with its first line.
    ///
    /// The corresponding C functions are `open`, `fchmod`, `fstat`, `write`, `fsync` and `close`.
    public static func append(
        _ bytes: [UInt8], to path: String, permissions: UInt32 = 0o644, ignoringUmask: Bool = false,
        limit: Int? = nil
    ) throws {
        let (fd, info) = try RegularFile.openCreating(
            path, O_WRONLY | O_APPEND, permissions: permissions, ignoringUmask: ignoringUmask)
        defer { _ = close(fd) }
        if let limit, Int(info.st_size) > limit {
            throw FileRefusal(path: path, reason: .tooLarge(size: Int(info.st_size), limit: limit))
        }
        try writeAll(fd, bytes, path: path)
        try valueOrErrno("fsync \(path)") { fsync(fd) }
        // A file this call may have created: fsync of the file alone does not make its name
        // durable (POSIX; ext4 happens to commit it in the same journal transaction, other file
        // systems need not), so after a power cut the first entry could be gone with the name.
        if info.st_size == 0 { try syncDirectory(directory(of: path)) }
    }

    /// Makes renames and creations in `dir` durable.
    ///
    /// The corresponding C functions are `open` and `fsync`.
    static func syncDirectory(_ dir: String) throws {
        let fd = try valueOrErrno("open \(dir)") { Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = close(fd) }
        try valueOrErrno("fsync \(dir)") { fsync(fd) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        try bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                done += try valueOrErrno("write \(path)") { Glibc.write(fd, buf.baseAddress! + done, buf.count - done) }
            }
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

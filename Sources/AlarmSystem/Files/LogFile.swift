import CLinux
import Glibc

/// Which file a descriptor or a path is: its device and inode. A file renamed away and another
/// created under its name differ, which is how a reader of a log notices that it was rotated.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity and size of the file at `path` (symlinks followed), nil when there is none.
    /// The corresponding C function is `stat`.
    public static func of(_ path: String) throws -> (identity: FileIdentity, size: Int)? {
        var info = stat()
        do {
            try valueOrErrno("stat \(path)") { stat(path, &info) }
        } catch let e as SystemError where e.errno == ENOENT || e.errno == ENOTDIR {
            return nil
        }
        return (FileIdentity(info), Int(info.st_size))
    }

    /// Renames `from` to `to`, replacing `to` (one atomic step, as rename(2) is).
    /// The corresponding C function is `rename`.
    public static func rename(_ from: String, to: String) throws {
        try valueOrErrno("rename \(from) to \(to)") { Glibc.rename(from, to) }
    }
}

/// A file kept open for appending (`O_APPEND`): each `append` is one `write` at the end, so a
/// reader never sees lines of two appends interleaved. No fsync: meant for a log in a tmpfs
/// (the runtime directory) that readers follow as it grows.
public final class AppendingFile {
    public let path: String
    public let identity: FileIdentity
    /// The size as this object last knew it (after its own appends).
    public private(set) var size: Int
    private let descriptor: Int32

    /// Opens `path` for appending, creating it with `permissions` less the umask, or exactly
    /// `permissions` with `ignoringUmask`. Only a
    /// regular file is appended to: a symbolic link (never followed), a FIFO, a device or a
    /// directory throws `FileRefusal`.
    /// The corresponding C functions are `open` and `fstat`.
    public init(path: String, permissions: UInt32 = 0o640, ignoringUmask: Bool = false) throws {
        self.path = path
        let (fd, info) = try RegularFile.openCreating(
            path, O_WRONLY | O_APPEND, permissions: permissions, ignoringUmask: ignoringUmask)
        descriptor = fd
        identity = FileIdentity(info)
        size = Int(info.st_size)
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// Writes all of `bytes` at the end. When that fails part-way (a full file system), the
    /// part written is cut off again (best effort), so the file never keeps half a record, and
    /// the error is thrown.
    /// The corresponding C functions are `write` and `ftruncate`.
    public func append(_ bytes: [UInt8]) throws {
        var info = stat()
        if fstat(descriptor, &info) == 0 { size = Int(info.st_size) }
        let before = size
        do {
            try bytes.withUnsafeBytes { buf in
                var done = 0
                while done < buf.count {
                    done += try valueOrErrno("write \(path)") {
                        Glibc.write(descriptor, buf.baseAddress! + done, buf.count - done)
                    }
                }
            }
        } catch {
            _ = ftruncate(descriptor, off_t(before))
            throw error
        }
        size = before + bytes.count
    }
}

/// A file opened for reading at offsets of the caller's choosing (`pread`), for following a
/// log: the descriptor keeps reading the same file after it is renamed or unlinked.
public final class ReadingFile {
    public let path: String
    public let identity: FileIdentity
    private let descriptor: Int32

    /// Opens `path` for reading; nil when it does not exist. Throws `FileRefusal` for a symbolic
    /// link (never followed), a FIFO (never waited on), a device or a directory, `SystemError`
    /// otherwise (EACCES: this user may not read it).
    /// The corresponding C functions are `open` and `fstat`.
    public init?(path: String) throws {
        self.path = path
        guard let (fd, info) = try RegularFile.open(path, O_RDONLY) else { return nil }
        descriptor = fd
        identity = FileIdentity(info)
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// The file's size now.
    /// The corresponding C function is `fstat`.
    public func size() throws -> Int {
        var info = stat()
        try valueOrErrno("fstat \(path)") { fstat(descriptor, &info) }
        return Int(info.st_size)
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file; none past it).
    /// The corresponding C function is `pread`.
    public func read(at offset: Int, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try out.withUnsafeMutableBytes { buf in
                try valueOrErrno("read \(path)") {
                    pread(descriptor, buf.baseAddress! + done, count - done, off_t(offset + done))
                }
            }
            if n == 0 { break }
            done += n
        }
        out.removeSubrange(done...)
        return out
    }
}

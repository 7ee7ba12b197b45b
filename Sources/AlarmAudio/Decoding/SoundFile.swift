#if canImport(Glibc)
import Glibc
#endif

/// A regular file opened read-only, for bounded random access by the container scanner and the
/// decoders. Opening never blocks: a FIFO or device named like a sound is refused, not waited on.
final class SoundFile {
    let fd: Int32
    /// Size in bytes at open time; reads never go past it.
    let size: Int

    /// Opens `path` without following a final symlink (the resolver has already checked where
    /// the name leads) and refuses anything that is not a regular file.
    convenience init(path: String, name: String) throws(SoundProblem) {
        try self.init(descriptor: Self.open(path: path, name: name), name: name)
    }

    /// Takes `fd` over (it is closed with this object, or here when refused) and refuses anything
    /// that is not a regular file: the descriptor root's `alarm` opened and handed to its decoding
    /// child (issue #42), which reads it only through `pread`.
    init(descriptor fd: Int32, name: String) throws(SoundProblem) {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw .unreadable(name, detail: "not a regular file")
        }
        self.fd = fd
        self.size = Int(st.st_size)
    }

    deinit { Glibc.close(fd) }

    /// A descriptor for `path`, read-only, close-on-exec, never blocking on open (a FIFO), a final
    /// symlink not followed, and only for a regular file: what `init(path:name:)` reads, and what
    /// root's `alarm` opens before a child that is not root decodes from it.
    static func open(path: String, name: String) throws(SoundProblem) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { throw .notFound(name, searched: []) }
            throw .unreadable(name, detail: String(cString: strerror(e)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw .unreadable(name, detail: "not a regular file")
        }
        return fd
    }

    /// `open(path:name:)` for a caller that may not follow a symlink anywhere on the way: root's
    /// `alarm`, which opens a file of a directory the group `alarm` may write and hands it to an
    /// unprivileged decoder (issue #42). `path` is absolute and already resolved (`realpath`), so
    /// none of its directories is a symlink; one that is one now was swapped in since, by someone
    /// who can write a directory of the path, to make root open another file. So the file opened
    /// is asked where it is (`/proc/self/fd/N`, the kernel's own answer for the open file, which
    /// no later swap changes), and refused unless that is `path`. (`openat2`'s
    /// `RESOLVE_NO_SYMLINKS` would refuse the symlink itself, and walking the path one directory
    /// at a time with `O_NOFOLLOW` too, but user-mode qemu, the arm64 tests', knows no `openat2`
    /// and opens `/` in its target root.)
    static func openWithoutSymlinks(path: String, name: String) throws(SoundProblem) -> Int32 {
        guard path.hasPrefix("/") else { throw .unreadable(name, detail: "\(path) is not an absolute path") }
        let fd = try open(path: path, name: name)
        var buf = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buf.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                readlink("/proc/self/fd/\(fd)", $0, b.count - 1)
            }
        }
        let e = errno
        guard n > 0 else {
            Glibc.close(fd)
            throw .unreadable(
                name, detail: "where it was opened cannot be checked (/proc/self/fd: \(String(cString: strerror(e))))")
        }
        let opened = String(decoding: buf[0..<n], as: UTF8.self)
        guard opened == path else {
            Glibc.close(fd)
            throw .unreadable(
                name,
                detail:
                    "it was opened at \(opened), not at \(path): a directory of its path changed since it was resolved")
        }
        return fd
    }

    /// Up to `count` bytes at `offset`; fewer at the end of the file, none past it.
    /// Retries EINTR; an I/O error reads as the end of the file.
    func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let n = min(count, size - offset)
        var out = [UInt8](repeating: 0, count: n)
        var got = 0
        while got < n {
            let r = out.withUnsafeMutableBytes { buf in
                pread(fd, buf.baseAddress! + got, n - got, off_t(offset + got))
            }
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { break }
            got += r
        }
        if got < n { out.removeLast(n - got) }
        return out
    }
}

/// Big- and little-endian field access over a byte array; out-of-range reads give 0, so a
/// malformed header yields odd values that later checks refuse, never a crash.
struct Bytes {
    let b: [UInt8]
    init(_ b: [UInt8]) { self.b = b }
    var count: Int { b.count }
    func u8(_ i: Int) -> UInt8 { i >= 0 && i < b.count ? b[i] : 0 }
    func le16(_ i: Int) -> UInt16 { UInt16(u8(i)) | UInt16(u8(i + 1)) << 8 }
    func le32(_ i: Int) -> UInt32 { UInt32(le16(i)) | UInt32(le16(i + 2)) << 16 }
    func be16(_ i: Int) -> UInt16 { UInt16(u8(i)) << 8 | UInt16(u8(i + 1)) }
    func be32(_ i: Int) -> UInt32 { UInt32(be16(i)) << 16 | UInt32(be16(i + 2)) }
    func be64(_ i: Int) -> UInt64 { UInt64(be32(i)) << 32 | UInt64(be32(i + 4)) }
    func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }
    /// Little-endian when `le`, else big-endian (RIFF and RIFX share one walk).
    func u16(_ i: Int, le: Bool) -> UInt16 { le ? le16(i) : be16(i) }
    func u32(_ i: Int, le: Bool) -> UInt32 { le ? le32(i) : be32(i) }

    /// The bytes of `v`, for a patch laid over a header field.
    static func encode32(_ v: UInt32, le: Bool) -> [UInt8] {
        let b = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        return le ? b : b.reversed()
    }
    static func encode64(_ v: UInt64, le: Bool) -> [UInt8] {
        let b = (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        return le ? b : b.reversed()
    }
    func fourCC(_ i: Int) -> String {
        String(
            decoding: (0..<4).map { u8(i + $0) }.map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
    /// An 80-bit IEEE extended float (AIFF sample rate).
    func extended80(_ i: Int) -> Double {
        let exp = Int(be16(i) & 0x7FFF)
        let mant = be64(i + 2)
        if exp == 0 && mant == 0 { return 0 }
        if exp == 0x7FFF { return .infinity }
        let sign: Double = (be16(i) & 0x8000) != 0 ? -1 : 1
        return sign * Double(mant) * pow(2, Double(exp - 16383 - 63))
    }
}

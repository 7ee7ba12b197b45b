import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Read-only access to time zone files: the only file reads in AlarmCore.
///
/// The tz database and `/etc/localtime` are system data that change only when an administrator
/// installs tzdata or sets the zone; reading them is not the kind of I/O the core otherwise
/// keeps out (no writes, no clock, no waiting). Everything goes through `contents`, which opens
/// without blocking (a FIFO placed in the tree cannot hang the daemon), accepts only regular
/// files (following symlinks) and caps the size: TZif files are a few kilobytes.
enum ZoneFiles {
    static let maxSize = 1 << 20

    /// Up to `limit` bytes of the regular file at `path`, or an errno-style reason it is unreadable.
    static func contents(_ path: String, limit: Int = maxSize) -> Result<[UInt8], ZoneFileError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.init(path: path, reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.init(path: path, reason: String(cString: strerror(errno)))) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .failure(.init(path: path, reason: "not a regular file")) }
        guard st.st_size <= maxSize else { return .failure(.init(path: path, reason: "larger than \(maxSize) bytes")) }
        let want = min(limit, Int(st.st_size))
        var out = [UInt8](repeating: 0, count: want)
        var got = 0
        while got < want {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, want - got) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failure(.init(path: path, reason: String(cString: strerror(errno)))) }
            if n == 0 { break }
            got += n
        }
        return .success(Array(out[0..<got]))
    }

    /// Whether the file at `path` starts with the TZif magic.
    static func isTZif(_ path: String) -> Bool {
        guard case .success(let head) = contents(path, limit: 4) else { return false }
        return head.elementsEqual("TZif".utf8)
    }

    /// The entries of a directory (unsorted), or none if it cannot be listed.
    static func list(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Whether `path` is a directory itself, not a symlink to one (the walk must not loop).
    static func isRealDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }
}

/// A zone file that could not be read.
public struct ZoneFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read \(path): \(reason)" }
}

extension Zone {
    /// The zone in a TZif file outside the database, e.g. a copied (not symlinked)
    /// `/etc/localtime`: its own rules, whatever the database says. `identifier` is the caller's
    /// choice (`SystemZone` uses the file's name, `localtime`). Throws `ZoneFileError` or
    /// `TZifError`.
    public init(identifier: String, contentsOfFile path: String) throws {
        let bytes = try ZoneFiles.contents(path).get()
        do { try self.init(identifier: identifier, tzif: bytes) } catch let e as TZifError {
            throw TZifError(message: "\(path): \(e.message)")
        }
    }
}

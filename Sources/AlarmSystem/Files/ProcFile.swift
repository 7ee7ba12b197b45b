import CLinux
import Glibc

/// Reading small kernel-generated files (/proc, /sys), whose size `stat` reports as 0, by reading
/// until end-of-file.
enum ProcFile {
    /// The whole file as UTF-8 (invalid bytes replaced). Meant for files of a few KiB.
    /// The corresponding C functions are `open` and `read`.
    static func read(_ path: String) throws -> String {
        let fd = try valueOrErrno("open(\(path))") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { closeIgnoringErrors(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try chunk.withUnsafeMutableBytes { raw in
                try valueOrErrno("read(\(path))") { Glibc.read(fd, raw.baseAddress, raw.count) }
            }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The names in a directory, without "." and "..".
    /// The corresponding C functions are `opendir` and `readdir`.
    static func list(_ path: String) throws -> [String] {
        let dir = try pointerOrErrno("opendir(\(path))") { opendir(path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

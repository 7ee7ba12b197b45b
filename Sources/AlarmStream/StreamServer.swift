import AlarmSystem
import FoundationEssentials
import Glibc

/// Where alarm-stream's connections come from: a Unix socket it makes itself (`--listen PATH`),
/// or systemd's socket activation (`LISTEN_FDS`): with `Accept=yes`, fd 3 is one connection.
public enum StreamServer {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on a new Unix socket at `path` (a stale socket there is replaced) and serves each
    /// connection on a thread of its own, forever.
    public static func listen(path: String) throws(Failure) -> Never {
        ignoreSIGPIPE()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(
                description:
                    "\(path): a socket path is at most \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw Failure(description: "\(path) exists and is not a socket: not replacing it")
            }
            unlink(path)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind(\(path)): \(String(cString: strerror(errno)))") }
        guard Glibc.listen(fd, 64) == 0 else {
            throw Failure(description: "listen(\(path)): \(String(cString: strerror(errno)))")
        }
        serveListening(fd)
    }

    /// Serves what systemd passed: the connection (Accept=yes) until its stream ends, or a
    /// listening socket (Accept=no) forever. False when there is no socket from systemd.
    public static func serveActivated() -> Bool {
        let env = ProcessInfo.processInfo.environment
        guard let pid = env["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = env["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return false }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        ignoreSIGPIPE()
        let fd: Int32 = 3
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening != 0 {
            serveListening(fd)
        }
        StreamSession(connection: fd).run()
        close(fd)
        return true
    }

    private static func serveListening(_ fd: Int32) -> Never {
        while true {
            // (accept4 needs _GNU_SOURCE; alarm-stream starts no programs, so no descriptor
            // leaks between accept and FD_CLOEXEC.)
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // EMFILE and the like: wait rather than spin.
                usleep(100_000)
                continue
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            startThread(named: "session") {
                StreamSession(connection: connection).run()
                close(connection)
            }
        }
    }

    static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }
}

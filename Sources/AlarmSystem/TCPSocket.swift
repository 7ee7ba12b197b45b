import CLinux
import Glibc

/// A listening TCP socket (alarm-web's): bound to a numeric address (IPv4 or IPv6) and port,
/// accepting connections one at a time on the caller's thread.
public final class TCPListener: @unchecked Sendable {
    public let descriptor: Int32
    /// The port bound (the one the system chose when 0 was asked for).
    public let port: Int

    /// Binds `host` (`127.0.0.1`, `0.0.0.0`, `::1`, `::`, or a name such as `localhost`) and `port`, and
    /// listens. An IPv6 wildcard also takes IPv4 (as the kernel's default does).
    ///
    /// The corresponding C functions are `getaddrinfo`, `socket`, `setsockopt`, `bind`, `listen`
    /// and `getsockname`.
    public init(host: String, port: Int, backlog: Int32 = 64) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &found)
        guard rc == 0, let info = found else {
            throw SystemError("getaddrinfo \(host) (\(String(cString: gai_strerror(rc))))", errno: EINVAL)
        }
        defer { freeaddrinfo(found) }
        let fd = try valueOrErrno("socket") { socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            var one: Int32 = 1
            try valueOrErrno("setsockopt SO_REUSEADDR") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
            try valueOrErrno("bind \(host):\(port)") { bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            try valueOrErrno("listen") { listen(fd, backlog) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            try withUnsafeMutablePointer(to: &storage) { p in
                try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    try valueOrErrno("getsockname") { getsockname(fd, sa, &length) }
                }
            }
            self.port = Self.address(of: storage).port
        } catch {
            closeIgnoringErrors(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// The next connection; blocks until there is one.
    ///
    /// The corresponding C functions are `accept` and `fcntl`.
    public func accept() throws -> TCPConnection {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = try withUnsafeMutablePointer(to: &storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try valueOrErrno("accept") { Glibc.accept(descriptor, sa, &length) }
            }
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return TCPConnection(descriptor: fd, peer: Self.address(of: storage).host)
    }

    /// The numeric host and the port of a socket address.
    static func address(of storage: sockaddr_storage) -> (host: String, port: Int) {
        var s = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &s) { p in
            if Int32(storage.ss_family) == AF_INET {
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                    return (String(cString: text), Int(UInt16(bigEndian: sin.pointee.sin_port)))
                }
            }
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                var a = sin6.pointee.sin6_addr
                inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                var host = String(cString: text)
                // An IPv4 caller on an IPv6 socket: say 192.168.1.5, not ::ffff:192.168.1.5.
                if host.hasPrefix("::ffff:"), host.contains(".") { host.removeFirst(7) }
                return (host, Int(UInt16(bigEndian: sin6.pointee.sin6_port)))
            }
        }
    }
}

/// One accepted TCP connection: reads and writes with a time limit, closed when released.
public final class TCPConnection: @unchecked Sendable {
    public let descriptor: Int32
    /// The caller's numeric address.
    public let peer: String

    init(descriptor: Int32, peer: String) {
        self.descriptor = descriptor
        self.peer = peer
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// Every read and write gives up after `seconds` without progress (EAGAIN).
    ///
    /// The corresponding C function is `setsockopt`.
    public func setTimeout(seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Up to `maximum` bytes; empty at the end of the stream. Throws on a timeout or an error.
    ///
    /// The corresponding C function is `recv`.
    public func read(maximum: Int = 16384) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let n = try buffer.withUnsafeMutableBytes { raw in
            try valueOrErrno("recv from \(peer)") { recv(descriptor, raw.baseAddress, raw.count, 0) }
        }
        return Array(buffer[0..<n])
    }

    /// Writes all of `bytes` (a peer that went away is an error, never SIGPIPE).
    ///
    /// The corresponding C function is `send`.
    public func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = try bytes.withUnsafeBytes { raw in
                try valueOrErrno("send to \(peer)") { send(descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL)) }
            }
            sent += n
        }
    }

    /// No more writes from this side (the peer reads the end), then a short drain of what it
    /// still sends, so that closing does not reset a connection whose answer is unread.
    ///
    /// The corresponding C functions are `shutdown` and `recv`.
    public func finish() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 16384)
        var drained = 0
        while drained < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            drained += n
        }
    }
}

/// Threads for work that blocks (one per alarm-web connection).
public enum Threads {
    /// Runs `body` on a new, detached thread; false (and nothing run) when none can be made.
    ///
    /// The corresponding C functions are `pthread_create` and `pthread_detach`.
    @discardableResult
    public static func detach(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

import CLinux
import Glibc

/// A TCP socket bound and listening, made here or handed over by systemd: its descriptor, the
/// address it holds, and its port. The caller owns the descriptor (alarm-web gives it to NIO).
public struct ListeningSocket: Sendable, Equatable {
    public let fd: Int32
    /// The bound address as text (`127.0.0.1`, `::1`, `::`).
    public let host: String
    public let port: Int

    /// The address of an IPv6 socket that also takes IPv4 (`IPV6_V6ONLY` off) reads `::`; the
    /// socket holds the port on every address of both families.
    public var isWildcard: Bool { host == "::" || host == "0.0.0.0" }

    /// Binds a TCP socket to `host` (a numeric IPv4 or IPv6 address) and `port` (0: any free
    /// one) and listens on it with `backlog`. An IPv6 socket takes IPv4 too when `bothFamilies`
    /// (`IPV6_V6ONLY` = 0, as systemd's `BindIPv6Only=both`), only IPv6 otherwise. SO_REUSEADDR is
    /// on (a restart binds again at once beside connections still in TIME_WAIT; Linux still
    /// refuses anyone a second bind beside a listening socket). The descriptor is close-on-exec.
    /// The corresponding C functions are `socket`, `setsockopt`, `bind` and `listen`.
    public static func bind(
        host: String, port: Int, bothFamilies: Bool = false, backlog: Int32
    ) throws(SystemError)
        -> ListeningSocket
    {
        var v4 = in_addr()
        var v6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
        } else {
            throw SystemError("inet_pton(\(host))", errno: EINVAL)
        }
        let fd: Int32
        do {
            fd = try valueOrErrno("socket") {
                socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch { throw error as! SystemError }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
            if family == AF_INET6 {
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, bothFamilies ? 0 : 1, "IPV6_V6ONLY")
            }
            let bound: Int32
            if family == AF_INET {
                var a = sockaddr_in()
                a.sin_family = sa_family_t(AF_INET)
                a.sin_port = in_port_t(UInt16(port).bigEndian)
                a.sin_addr = v4
                bound = withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            } else {
                var a = sockaddr_in6()
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = in_port_t(UInt16(port).bigEndian)
                a.sin6_addr = v6
                bound = withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            }
            if bound != 0 {
                throw SystemError("bind(\(family == AF_INET6 ? "[\(host)]" : host):\(port))", errno: errno)
            }
            try listen(fd, backlog: backlog)
            guard let local = localAddress(fd) else { throw SystemError("getsockname", errno: errno) }
            return ListeningSocket(fd: fd, host: local.host, port: local.port)
        } catch {
            closeIgnoringErrors(fd)
            throw error as! SystemError
        }
    }

    /// A socket systemd passed: its address and port, when it is a listening TCP socket (a
    /// datagram or unix socket, or one not listening, gives nil).
    public static func adopt(_ fd: Int32) -> ListeningSocket? {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1,
            let local = localAddress(fd)
        else { return nil }
        return ListeningSocket(fd: fd, host: local.host, port: local.port)
    }

    /// Listens again with `backlog` (Linux changes the queue's length of a listening socket).
    /// The corresponding C function is `listen`.
    public static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        do { try valueOrErrno("listen") { Glibc.listen(fd, backlog) } } catch { throw error as! SystemError }
    }

    /// The address and port `fd` is bound to (an IPv4-mapped IPv6 address as IPv4), or nil for
    /// a socket of another family. The corresponding C function is `getsockname`.
    public static func localAddress(_ fd: Int32) -> (host: String, port: Int)? {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        guard got == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                    var addr = a.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                    return (String(cString: text), Int(UInt16(bigEndian: a.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    var addr = a.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                    return (String(cString: text), Int(UInt16(bigEndian: a.pointee.sin6_port)))
                }
            }
        default:
            return nil
        }
    }

    /// Whether an IPv6 socket takes only IPv6 (`IPV6_V6ONLY` = 1); false for IPv4 sockets.
    public static func isIPv6Only(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &value, &size) == 0 && value == 1
    }

    private static func setOption(
        _ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String
    )
        throws(SystemError)
    {
        var v = value
        do {
            try valueOrErrno("setsockopt(\(label))") {
                setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
            }
        } catch { throw error as! SystemError }
    }
}

import CLinux
import Glibc

/// The machine's own network addresses, for telling a user which address to open
/// (`alarm web-url`).
public enum NetworkInterfaces {
    public struct Address: Equatable, Sendable {
        /// The interface's name (`wlan0`, `eth0`).
        public var interface: String
        /// The address as text (`192.168.1.23`, `fe80::1`).
        public var address: String
        public var isIPv6: Bool
        public var isLoopback: Bool
    }

    /// Every address of every interface that is up, in the kernel's order.
    ///
    /// The corresponding C functions are `getifaddrs`, `inet_ntop` and `freeifaddrs`.
    public static func addresses() -> [Address] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var out: [Address] = []
        var cursor = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let sa = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let ok = sa.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<sockaddr_in6>.size) { raw -> Bool in
                if family == AF_INET {
                    return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                        var a = sin.pointee.sin_addr
                        return inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil
                    }
                }
                return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var a = sin6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil
                }
            }
            guard ok else { continue }
            out.append(
                Address(
                    interface: String(cString: entry.pointee.ifa_name), address: String(cString: text),
                    isIPv6: family == AF_INET6, isLoopback: entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) != 0))
        }
        return out
    }

    /// The machine's host name (`raspberrypi`), nil when it has none.
    ///
    /// The corresponding C function is `gethostname`.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}

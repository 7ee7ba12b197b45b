import AlarmSystem
import AlarmWebAuth
import Glibc
import NIOCore

/// The sockets alarm-web serves on: the ones systemd passed (`alarm-web.socket`), else its own,
/// bound so that no other local user can bind the other address family beside them (issue
/// #42, "the port can be taken"): loopback holds both 127.0.0.1 and [::1]; a wildcard one [::]
/// socket that takes IPv4 too. A browser that tries `localhost` or the Pi's name over IPv6
/// first then reaches alarm-web or nothing, never another user's listener.
enum WebListeners {
    struct Opened {
        var sockets: [ListeningSocket]
        /// What the log says about them (a family the machine lacks, the sockets from systemd).
        var notes: [String]
        /// `web_listen` with its host as an IP address (a name resolved), for
        /// `ListenAddress.serves(localAddress:)`.
        var scope: ListenAddress = .default
    }

    /// The sockets systemd passed, when it passed any (each must be a listening TCP socket),
    /// else sockets bound for `address`.
    static func open(_ address: ListenAddress) throws -> Opened {
        let passed = SocketActivation.takeDescriptors()
        var opened = passed.isEmpty ? try bind(address) : try adopt(passed, for: address)
        opened.scope = ListenAddress(host: try numericHost(address), port: address.port)
        return opened
    }

    static func adopt(_ fds: [Int32], for address: ListenAddress) throws -> Opened {
        var sockets: [ListeningSocket] = []
        for fd in fds {
            guard let socket = ListeningSocket.adopt(fd) else {
                throw WebSetupError(
                    "descriptor \(fd) from systemd is not a listening TCP socket (alarm-web.socket must say ListenStream=)"
                )
            }
            sockets.append(socket)
        }
        let described = sockets.map { s in
            s.host.contains(":")
                ? "[\(s.host)]:\(s.port)\(ListeningSocket.isIPv6Only(s.fd) ? "" : " (IPv4 too)")"
                : "\(s.host):\(s.port)"
        }
        var notes = ["serving on the sockets systemd passed: \(described.joined(separator: ", "))"]
        if address.port != 0, sockets.contains(where: { $0.port != address.port }) {
            notes.append(
                "web_listen says port \(address.port) but the socket unit's port is \(sockets[0].port): the socket unit's is used (change ListenStream= in a drop-in, see docs/alarm-web.md)"
            )
        }
        return Opened(sockets: sockets, notes: notes)
    }

    /// What alarm-web binds itself for `address`. A port another program holds on any of these
    /// addresses is an error: alarm-web does not serve beside it.
    static func bind(_ address: ListenAddress) throws -> Opened {
        do { return try bindOwn(address) } catch let e as SystemError where e.errno == EADDRINUSE {
            throw WebSetupError(
                "\(e): another program holds this port there (another user's would catch the browser's requests and their token); alarm-web does not serve beside it"
            )
        }
    }

    private static func bindOwn(_ address: ListenAddress) throws -> Opened {
        let host = try numericHost(address)
        if address.isWildcard {
            // One [::] socket with IPV6_V6ONLY off: both families on every address, so nobody
            // can bind [::]:PORT (IPv6 only) beside a 0.0.0.0 listener.
            do {
                return Opened(sockets: [try listen("::", address.port, bothFamilies: true)], notes: [])
            } catch let e where familyAbsent(e) {
                return Opened(
                    sockets: [try listen("0.0.0.0", address.port)],
                    notes: ["this machine has no IPv6 (\(e)): listening on IPv4 only"])
            }
        }
        guard address.isLoopback else {
            return Opened(sockets: [try listen(host, address.port)], notes: [])
        }
        // Loopback: the configured address and the other family's loopback, on one port.
        let other = host.contains(":") ? "127.0.0.1" : "::1"
        var attempts = 0
        while true {
            attempts += 1
            let first = try listen(host, address.port)
            do {
                return Opened(sockets: [first, try listen(other, first.port)], notes: [])
            } catch let e where familyAbsent(e) {
                return Opened(
                    sockets: [first], notes: ["this machine has no \(other) (\(e)): listening on \(host) only"])
            } catch let e as SystemError where e.errno == EADDRINUSE && address.port == 0 && attempts < 20 {
                // Any free port: that port was free on one family only. Try another.
                close(first.fd)
            } catch {
                close(first.fd)
                throw error
            }
        }
    }

    private static func listen(_ host: String, _ port: Int, bothFamilies: Bool = false) throws -> ListeningSocket {
        try ListeningSocket.bind(host: host, port: port, bothFamilies: bothFamilies, backlog: WebServer.backlog)
    }

    /// A family the machine does not have (IPv6 disabled, no ::1 on lo).
    private static func familyAbsent(_ error: any Error) -> Bool {
        guard let e = error as? SystemError else { return false }
        return e.errno == EADDRNOTAVAIL || e.errno == EAFNOSUPPORT
    }

    /// The address to bind for `address.host`: itself when numeric, `localhost` as 127.0.0.1,
    /// another name as the resolver gives it.
    private static func numericHost(_ address: ListenAddress) throws -> String {
        if address.host == "localhost" { return "127.0.0.1" }
        if address.isWildcard || address.host.contains(":")
            || address.host.allSatisfy({ $0.isNumber || $0 == "." })
        {
            return address.host
        }
        guard let ip = try SocketAddress.makeAddressResolvingHost(address.host, port: address.port).ipAddress else {
            throw WebSetupError("web_listen host '\(address.host)' has no IP address")
        }
        return ip
    }
}

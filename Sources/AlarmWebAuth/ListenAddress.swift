/// Where alarm-web listens (config `web_listen`): `HOST:PORT`, an IPv6 host in brackets
/// (`[::1]:8475`). The default is loopback only; a LAN address (or `0.0.0.0`, every IPv4
/// address) only when the config says so.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultText = "127.0.0.1:8475"
    public static let `default` = ListenAddress(host: "127.0.0.1", port: 8475)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `allowingAnyPort`: port 0 (any free port, for tests) is taken too.
    public init(_ text: String, allowingAnyPort: Bool = false) throws(WebSetupError) {
        let fail = WebSetupError(
            "web_listen '\(text)' is not HOST:PORT (such as \(Self.defaultText), 0.0.0.0:8475 or [::1]:8475)")
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw fail }
            portText = rest.dropFirst()
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { throw fail }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw fail }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.isEmpty, !host.contains(":"),
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
            else { throw fail }
        }
        guard let port = Int(portText), ((allowingAnyPort ? 0 : 1)...65535).contains(port),
            portText.allSatisfy(\.isNumber)
        else {
            throw WebSetupError("web_listen '\(text)': the port must be a number from 1 to 65535")
        }
        self.host = String(host)
        self.port = port
    }

    public var isIPv6: Bool { host.contains(":") }

    /// Loopback only: `127.x.x.x`, `::1`, `localhost`: a phone cannot reach it.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }

    /// Every address of the machine: `0.0.0.0` or `::`.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The address to open in a browser for host `host` (not a wildcard).
    public static func url(host: String, port: Int) -> String {
        (host.contains(":") ? "http://[\(host)]" : "http://\(host)") + ":\(port)/"
    }
}

extension ListenAddress {
    /// Whether a connection that arrived on the machine's address `local` is one this address
    /// serves. alarm-web asks for each connection on a socket systemd passed (`alarm-web.socket`
    /// holds the port on every address of both families; `web_listen` still says who is served):
    /// a wildcard serves every address, a loopback address every loopback address (127.0.0.0/8,
    /// `::1`), any other address only itself. An IPv4 address seen through an IPv6 socket
    /// (`::ffff:192.168.1.5`) counts as the IPv4 address.
    public func serves(localAddress local: String) -> Bool {
        if isWildcard { return true }
        let seen = HostPolicy.normalized(local)
        if isLoopback { return seen.hasPrefix("127.") || seen == "::1" }
        return seen == HostPolicy.normalized(host)
    }
}

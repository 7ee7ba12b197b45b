/// Which names the server may be called by and which pages may change its state: the defence
/// against DNS rebinding (a hostile name that resolves to the alarm clock: its `Host` header is
/// not one of ours) and against cross-site requests (a page elsewhere that posts to the clock:
/// its `Origin` is not the clock's page).
///
/// Pure: the names come in (the listen address, config `web_hosts`, the machine's addresses and
/// its host name, read by the server), the verdict goes out.
public struct HostPolicy: Sendable, Equatable {
    /// Lower-case host names and addresses, without brackets, port or trailing dot.
    public private(set) var names: Set<String>

    /// Loopback is always ours: a page can only call the clock `localhost` from the clock itself.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// `listen`: the address served (not a wildcard: itself; a wildcard: none, the machine's
    /// addresses come in `addresses`). `configured`: config `web_hosts` (DNS names the owner
    /// uses). `addresses`: the machine's own addresses. `hostName`: the machine's name; it and
    /// `NAME.local` (mDNS, as a Pi is reached on a home network) are accepted.
    public init(listen: ListenAddress, configured: [String] = [], addresses: [String] = [], hostName: String? = nil) {
        var names = Self.loopbackNames
        if !listen.isWildcard { names.insert(Self.normalized(listen.host)) }
        if listen.isWildcard { for a in addresses { names.insert(Self.normalized(a)) } }
        for c in configured { names.insert(Self.normalized(c)) }
        if let hostName, !hostName.isEmpty {
            names.insert(Self.normalized(hostName))
            names.insert(Self.normalized(hostName) + ".local")
        }
        names.remove("")
        self.names = names
    }

    public enum Verdict: Sendable, Equatable {
        case allowed
        /// 400: HTTP/1.1 needs a Host header.
        case missingHost
        /// 421: the request names a host this server is not (DNS rebinding, or a name missing
        /// from `web_hosts`).
        case wrongHost(String)
        /// 403: a state-changing request from another site's page.
        case crossOrigin(String)
    }

    /// `host`: the `Host` header; `origin`: the `Origin` header when sent; `changesState`: POST,
    /// PUT, PATCH or DELETE. Browsers send `Origin` with every cross-site POST, so a page
    /// elsewhere cannot sign in, ring or stop on the owner's behalf; scripts send none.
    public func check(host: String?, origin: String?, changesState: Bool) -> Verdict {
        guard let host, !host.isEmpty else { return .missingHost }
        guard let name = Self.hostName(ofAuthority: host), names.contains(name) else {
            return .wrongHost(host)
        }
        if changesState, let origin {
            // The page's own origin: this scheme-less authority, over http (or https behind a
            // proxy that keeps the Host header).
            let o = origin.lowercased()
            let authority = host.lowercased()
            guard o == "http://" + authority || o == "https://" + authority else { return .crossOrigin(origin) }
        }
        return .allowed
    }

    /// `name`, `name:port`, `[v6]`, `[v6]:port` → the name, lower case, without a trailing dot;
    /// nil when it is not an authority at all.
    public static func hostName(ofAuthority text: String) -> String? {
        var t = Substring(text)
        if t.hasPrefix("[") {
            guard let close = t.firstIndex(of: "]") else { return nil }
            let rest = t[t.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            t = t[t.index(after: t.startIndex)..<close]
        } else if let colon = t.lastIndex(of: ":") {
            guard t[t.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
            t = t[..<colon]
            guard !t.contains(":") else { return nil }
        }
        let name = normalized(String(t))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f }) else {
            return nil
        }
        return name
    }

    /// Whose connection this is, for the per-address cap: an IPv4 address itself, an IPv6
    /// address by its /64 (one device on IPv6 has a whole /64 to pick addresses from, and
    /// privacy extensions give it new ones daily). `address` as `normalized` gives it.
    public static func clientGroup(_ address: String) -> String {
        guard address.contains(":") else { return address }
        let zoneless = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        let halves = zoneless.components(separatedBy: "::")
        guard halves.count <= 2 else { return zoneless }
        let head = halves[0].split(separator: ":", omittingEmptySubsequences: true)
        let tail = halves.count == 2 ? halves[1].split(separator: ":", omittingEmptySubsequences: true) : []
        // An embedded IPv4 tail (::a.b.c.d) is two groups; it lies beyond the /64 anyway.
        let tailGroups = tail.reduce(0) { $0 + ($1.contains(".") ? 2 : 1) }
        let missing = 8 - head.count - tailGroups
        guard missing >= 0, halves.count == 2 || missing == 0 else { return zoneless }
        let groups = head.map(String.init) + Array(repeating: "0", count: missing) + tail.map(String.init)
        let prefix = groups.prefix(4).map { g -> String in
            let trimmed = g.drop { $0 == "0" }
            return trimmed.isEmpty ? "0" : String(trimmed)
        }
        return prefix.joined(separator: ":") + "::/64"
    }

    public static func normalized(_ name: String) -> String {
        var n = name.lowercased()
        if n.hasPrefix("[") && n.hasSuffix("]") { n = String(n.dropFirst().dropLast()) }
        while n.hasSuffix(".") { n.removeLast() }
        // An IPv4 address as IPv6 sees it (a socket bound to `::` reports IPv4 peers so).
        if n.hasPrefix("::ffff:"), n.dropFirst(7).contains(".") { n = String(n.dropFirst(7)) }
        return n
    }
}

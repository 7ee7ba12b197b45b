import Foundation

/// A hostile device on the network, over loopback: many connections from many 127.0.0.x
/// addresses, each doing one thing (holding the socket silent, idling between keep-alive requests,
/// pipelining requests it never reads the answers of, stalling mid-body), reopened when the
/// server closes them, from one thread polling every socket. Bounded: `Kind.addresses` times
/// `perAddress` sockets, until `stop`.
final class Attacker: @unchecked Sendable {
    struct Kind {
        var addresses: [String]
        var perAddress: Int
        /// Sent once the connection is open.
        var opening: [UInt8] = []
        /// Sent again every `every` seconds (nil: never).
        var again: [UInt8] = []
        var every: Double?
        /// Reads (and drops) what the server sends; false: never reads (a slow reader).
        var reads = true
        /// SO_RCVBUF before connecting (a slow reader's small window).
        var receiveBuffer: Int?
        /// Half-closes (FIN) after `opening`.
        var finishes = false
        var reopens = true
    }

    struct Figures: CustomStringConvertible {
        var opened = 0
        var closedByServer = 0
        var mostOpen = 0
        var bytesRead = 0
        var description: String {
            "\(opened) connections opened, \(closedByServer) closed by the server, at most \(mostOpen) open at once, \(bytesRead) bytes read"
        }
    }

    private struct Socket {
        var fd: Int32
        var kind: Int
        var source: String
        var lastSent = Date()
    }

    let port: Int
    let kinds: [Kind]
    private let lock = NSLock()
    private var running = true
    private var figures = Figures()
    private var thread: Thread?

    init(port: Int, _ kinds: [Kind]) {
        self.port = port
        self.kinds = kinds
    }

    func start() {
        raiseOpenFileLimit()
        let t = Thread { self.run() }
        thread = t
        t.start()
    }

    /// Stops, closes every socket, and gives the figures.
    @discardableResult
    func stop() -> Figures {
        lock.lock()
        running = false
        lock.unlock()
        while !(thread?.isFinished ?? true) { Thread.sleep(forTimeInterval: 0.05) }
        return current
    }

    var current: Figures {
        lock.lock()
        defer { lock.unlock() }
        return figures
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func count(_ change: (inout Figures) -> Void) {
        lock.lock()
        change(&figures)
        lock.unlock()
    }

    private func open(_ kind: Int, from source: String) -> Socket? {
        let k = kinds[kind]
        guard let fd = try? Attacker.connect(port: port, from: source, receiveBuffer: k.receiveBuffer) else {
            return nil
        }
        count { $0.opened += 1 }
        if !k.opening.isEmpty { _ = Attacker.send(fd, k.opening) }
        if k.finishes { shutdown(fd, Int32(SHUT_WR)) }
        return Socket(fd: fd, kind: kind, source: source)
    }

    private func run() {
        var sockets: [Socket] = []
        for (i, k) in kinds.enumerated() {
            for a in k.addresses {
                for _ in 0..<k.perAddress { if let s = open(i, from: a) { sockets.append(s) } }
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while isRunning {
            var polls = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0) }
            _ = poll(&polls, nfds_t(polls.count), 50)
            let now = Date()
            var openNow = 0
            for i in sockets.indices {
                let k = kinds[sockets[i].kind]
                let r = polls[i].revents
                var closed = r & (pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
                if k.reads && r & Int16(POLLIN) != 0 {
                    let n = recv(sockets[i].fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if n > 0 { count { $0.bytesRead += n } } else if n == 0 || errno != EAGAIN { closed = true }
                }
                if closed {
                    close(sockets[i].fd)
                    count { $0.closedByServer += 1 }
                    sockets[i].fd = -1
                    if k.reopens, let s = open(sockets[i].kind, from: sockets[i].source) { sockets[i] = s }
                    continue
                }
                openNow += 1
                if let every = k.every, now.timeIntervalSince(sockets[i].lastSent) >= every {
                    _ = Attacker.send(sockets[i].fd, k.again)
                    sockets[i].lastSent = now
                }
            }
            sockets.removeAll { $0.fd < 0 }
            count { $0.mostOpen = max($0.mostOpen, openNow) }
        }
        for s in sockets { close(s.fd) }
    }

    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// A TCP connection to 127.0.0.1:`port` from `source`, or over IPv6 to ::1 when `source` is
    /// "::1".
    static func connect(port: Int, from source: String, receiveBuffer: Int? = nil) throws -> Int32 {
        guard source == "::1" else {
            let fd = try RawHTTP.connect(port: port, from: source, receiveBuffer: receiveBuffer)
            return fd
        }
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.Failed(description: "socket: \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in6()
        addr.sin6_family = sa_family_t(AF_INET6)
        addr.sin6_port = in_port_t(UInt16(port).bigEndian)
        addr.sin6_addr = in6addr_loopback
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard ok == 0 else {
            let e = errno
            close(fd)
            throw RawHTTP.Failed(description: "connect to [::1]:\(port): errno \(e)")
        }
        return fd
    }
}

/// What the owner saw while an attack ran: a fresh connection from an address that holds none,
/// `GET /api/status` with the token, every `every` seconds.
struct OwnerProbe {
    var times: [Double] = []
    var statuses: [Int] = []
    var worst: Double { times.max() ?? .infinity }
    var summary: String {
        "owner: \(times.count) requests, statuses \(Set(statuses).sorted()), worst \(String(format: "%.3f", worst)) s, times \(times.map { String(format: "%.3f", $0) })"
    }

    static func run(_ http: RawHTTP, count: Int = 16, every: Double = 0.5) -> OwnerProbe {
        var probe = OwnerProbe()
        for _ in 0..<count {
            let started = Date()
            let status = (try? http.send("GET", "/api/status", timeout: 5))?.status ?? 0
            probe.times.append(Date().timeIntervalSince(started))
            probe.statuses.append(status)
            Thread.sleep(forTimeInterval: every)
        }
        return probe
    }
}

/// poll's POLLRDHUP (the peer closed its end; Glibc's Swift module leaves it out, being
/// _GNU_SOURCE only).
let pollReadHangUp: Int16 = 0x2000

/// VmRSS of process `pid` in bytes, or nil.
func residentBytes(_ pid: pid_t) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
            Int($0.trimmingCharacters(in: .whitespaces))
        })
    else { return nil }
    return kib * 1024
}

import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// The built `alarmd` under a real `NOTIFY_SOCKET`, as systemd runs it with `Type=notify`:
/// the test binds the datagram socket, starts the daemon in the harness's temporary root (no
/// sound card: `ALARM_DEVICE=null`; an empty config; the zone from a symlink to Europe/Berlin)
/// and reads what it says. Issue #5.
@Suite("alarmd speaks systemd's notify protocol (issue #5)", .serialized)
struct SystemdNotifyTests {
    @Test("READY=1 comes with STATUS= naming the next alarm on the system zone's wall clock")
    func readyWithStatus() throws {
        let h = try Self.harness()
        defer { h.shutdown() }
        // 2030-01-07 is a Monday; 05:30 UTC is 06:30 in Berlin (CET, +01:00).
        try Self.alarm(h, ["add", "--id", "wake", "--at", "2030-01-07T05:30:00Z"])
        let listener = try NotifyListener(path: h.root + "/notify")
        try Self.launch(h, notifySocket: listener.address)
        let ready = try #require(
            listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(h.log)")
        #expect(ready.lines.contains("STATUS=next: wake at Mon 06:30"), "\(ready.lines)")
        // READY means the FIFO is up: the CLI can reach the daemon.
        #expect(FileManager.default.fileExists(atPath: h.fifoPath))
    }

    @Test("a changed alarm list sends a new STATUS= line")
    func statusFollowsAlarms() throws {
        let h = try Self.harness()
        defer { h.shutdown() }
        try Self.alarm(h, ["add", "--id", "wake", "--at", "2030-01-07T05:30:00Z"])
        let listener = try NotifyListener(path: h.root + "/notify")
        try Self.launch(h, notifySocket: listener.address)
        _ = try #require(listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(h.log)")
        // 2029-12-31 is a Monday too, a week earlier: it becomes the next alarm.
        try Self.alarm(h, ["add", "--id", "early", "--at", "2029-12-31T05:00:00Z"])
        let status = listener.first(within: 5) { $0.contains("STATUS=next: early at Mon 06:00") }
        #expect(status != nil, "no STATUS for the new alarm; stderr: \(h.log)")
    }

    @Test("WATCHDOG_USEC=1s: WATCHDOG=1 about every 0.5 s, and STOPPING=1 then exit 0 after SIGTERM")
    func watchdogAndStopping() throws {
        let h = try Self.harness()
        defer { h.shutdown() }
        let listener = try NotifyListener(path: h.root + "/notify")
        try Self.launch(h, notifySocket: listener.address, extra: ["WATCHDOG_USEC": "1000000"])
        _ = try #require(listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(h.log)")
        let messages = listener.collect(for: 2.6)
        let pings = messages.filter { $0.lines.contains("WATCHDOG=1") }.map(\.at)
        #expect((4...6).contains(pings.count), "\(pings.count) pings in 2.6 s")
        let gaps = zip(pings.dropFirst(), pings).map { $0.timeIntervalSince($1) }
        #expect(!gaps.isEmpty)
        // The mean gap is what the daemon controls; single gaps may stretch on a loaded machine.
        if let first = pings.first, let last = pings.last, pings.count > 1 {
            let mean = last.timeIntervalSince(first) / Double(pings.count - 1)
            #expect(mean > 0.4 && mean < 0.65, "mean ping gap \(mean) s")
        }
        for gap in gaps { #expect(gap > 0.2 && gap < 1.0, "a ping gap of \(gap) s") }

        h.daemon?.signal(SIGTERM)
        let stopping = listener.first(within: 5) { $0.contains("STOPPING=1") }
        #expect(stopping != nil, "no STOPPING=1; stderr: \(h.log)")
        #expect(
            h.daemon?.wait(timeout: Slowdown.scaled(5)) == 0, "alarmd did not exit 0 after SIGTERM; stderr: \(h.log)")
        #expect(!FileManager.default.fileExists(atPath: h.fifoPath), "the FIFO was left behind")
    }

    @Test("without WATCHDOG_USEC, or with a WATCHDOG_PID for another process, there are no pings")
    func noWatchdog() throws {
        for extra in [[:], ["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"]] as [[String: String]] {
            let h = try Self.harness()
            defer { h.shutdown() }
            let listener = try NotifyListener(path: h.root + "/notify")
            try Self.launch(h, notifySocket: listener.address, extra: extra)
            _ = try #require(
                listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(h.log)")
            let pings = listener.collect(for: 1.2).filter { $0.lines.contains("WATCHDOG=1") }
            #expect(pings.isEmpty, "\(extra): \(pings.count) pings")
        }
    }

    @Test("an abstract NOTIFY_SOCKET (@name) gets READY=1 too")
    func abstractSocket() throws {
        let h = try Self.harness()
        defer { h.shutdown() }
        let listener = try NotifyListener(abstract: "alarm-test-\(UUID().uuidString)")
        try Self.launch(h, notifySocket: listener.address)
        #expect(listener.first(within: 10) { $0.contains("READY=1") } != nil, "no READY=1; stderr: \(h.log)")
    }

    @Test("with no alarmd, alarm status, stop and snooze say so and fail at once")
    func noDaemon() throws {
        let h = try Self.harness()
        defer { h.shutdown() }
        for args in [["status"], ["stop"], ["snooze"], ["snooze", "5m"]] {
            let started = Date()
            let r = try h.cli(args)
            let took = Date().timeIntervalSince(started)
            #expect(r.status != 0, "alarm \(args) exited 0")
            #expect(took < 1.5, "alarm \(args) took \(took) s")
            #expect((r.stdout + r.stderr).contains("not running"), "alarm \(args): \(r.stdout) \(r.stderr)")
        }
    }

    /// A harness in a short root (a socket path must fit in sun_path's 108 bytes) whose alarmd and
    /// CLI inherit none of the test runner's own notify and watchdog variables, nor its TZ.
    static func harness() throws -> AlarmdHarness {
        let h = try AlarmdHarness(
            root: "/tmp/alarm-sd-" + String(UUID().uuidString.prefix(8)), config: "", audio: .device("null"))
        h.removedEnvironment = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "TZ"]
        return h
    }

    /// Starts alarmd with `NOTIFY_SOCKET` (and `extra`) set, without waiting for it.
    static func launch(_ h: AlarmdHarness, notifySocket: String, extra: [String: String] = [:]) throws {
        try h.launch(environment: extra.merging(["NOTIFY_SOCKET": notifySocket]) { $1 })
    }

    static func alarm(_ h: AlarmdHarness, _ args: [String]) throws {
        let r = try h.cli(args)
        guard r.status == 0 else { throw Failure("alarm \(args) failed: \(r.stderr)") }
    }
}

/// A bound `AF_UNIX` datagram socket: what systemd listens on for `sd_notify` messages.
private final class NotifyListener {
    struct Message {
        var at: Date
        var lines: [String]
        func contains(_ line: String) -> Bool { lines.contains(line) }
    }

    let fd: Int32
    /// What to put in `NOTIFY_SOCKET`: the path, or `@name` for an abstract socket.
    let address: String
    private var pending: [Message] = []

    convenience init(path: String) throws { try self.init(address: path) }
    convenience init(abstract name: String) throws { try self.init(address: "@" + name) }

    private init(address: String) throws {
        self.address = address
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        var sa = sockaddr_un()
        sa.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: sa.sun_path) else {
            throw Failure("socket address too long: \(address)")
        }
        withUnsafeMutableBytes(of: &sa.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard rc == 0 else { throw Failure("bind \(address): errno \(errno)") }
    }

    deinit {
        close(fd)
        if !address.hasPrefix("@") { unlink(address) }
    }

    /// The next datagram, waiting up to `timeout` seconds.
    func receive(timeout: TimeInterval) -> Message? {
        if !pending.isEmpty { return pending.removeFirst() }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(max(0, timeout * 1000))) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        return Message(at: Date(), lines: text.split(separator: "\n").map(String.init))
    }

    /// The first message matching `match` within `seconds`; earlier ones are dropped.
    func first(within seconds: TimeInterval, _ match: (Message) -> Bool) -> Message? {
        let deadline = Date().addingTimeInterval(seconds)
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            guard let m = receive(timeout: left) else { return nil }
            if match(m) { return m }
        }
        return nil
    }

    /// Every message that arrives in the next `seconds`.
    func collect(for seconds: TimeInterval) -> [Message] {
        let deadline = Date().addingTimeInterval(seconds)
        var out: [Message] = []
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            if let m = receive(timeout: left) { out.append(m) }
        }
        return out
    }
}

private struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// The built `alarmd` under a real `NOTIFY_SOCKET`, as systemd runs it with `Type=notify`:
/// the test binds the datagram socket, starts the daemon in temporary directories (no sound
/// card: `ALARM_DEVICE=null`; no config: `/dev/null`; the zone from a symlink to Europe/Berlin)
/// and reads what it says. Issue #5.
@Suite("alarmd speaks systemd's notify protocol (issue #5)", .serialized)
struct SystemdNotifyTests {
    @Test("READY=1 comes with STATUS= naming the next alarm on the system zone's wall clock")
    func readyWithStatus() throws {
        let sandbox = try Sandbox()
        // 2030-01-07 is a Monday; 05:30 UTC is 06:30 in Berlin (CET, +01:00).
        try sandbox.alarm(["add", "--id", "wake", "--at", "2030-01-07T05:30:00Z"])
        let listener = try NotifyListener(path: sandbox.dir + "/notify")
        let daemon = try sandbox.startDaemon(notifySocket: listener.address)
        defer { daemon.kill() }
        let ready = try #require(
            listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(daemon.stderr)")
        #expect(ready.lines.contains("STATUS=next: wake at Mon 06:30"), "\(ready.lines)")
        // READY means the FIFO is up: the CLI can reach the daemon.
        #expect(FileManager.default.fileExists(atPath: sandbox.runtime + "/control"))
    }

    @Test("a changed alarm list sends a new STATUS= line")
    func statusFollowsAlarms() throws {
        let sandbox = try Sandbox()
        try sandbox.alarm(["add", "--id", "wake", "--at", "2030-01-07T05:30:00Z"])
        let listener = try NotifyListener(path: sandbox.dir + "/notify")
        let daemon = try sandbox.startDaemon(notifySocket: listener.address)
        defer { daemon.kill() }
        _ = try #require(listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(daemon.stderr)")
        // 2029-12-31 is a Monday too, a week earlier: it becomes the next alarm.
        try sandbox.alarm(["add", "--id", "early", "--at", "2029-12-31T05:00:00Z"])
        let status = listener.first(within: 5) { $0.contains("STATUS=next: early at Mon 06:00") }
        #expect(status != nil, "no STATUS for the new alarm; stderr: \(daemon.stderr)")
    }

    @Test("WATCHDOG_USEC=1s: WATCHDOG=1 about every 0.5 s, and STOPPING=1 then exit 0 after SIGTERM")
    func watchdogAndStopping() throws {
        let sandbox = try Sandbox()
        let listener = try NotifyListener(path: sandbox.dir + "/notify")
        let daemon = try sandbox.startDaemon(notifySocket: listener.address, extra: ["WATCHDOG_USEC": "1000000"])
        defer { daemon.kill() }
        _ = try #require(listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(daemon.stderr)")
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

        daemon.signal(SIGTERM)
        let stopping = listener.first(within: 5) { $0.contains("STOPPING=1") }
        #expect(stopping != nil, "no STOPPING=1; stderr: \(daemon.stderr)")
        #expect(daemon.wait(timeout: 5) == 0, "alarmd did not exit 0 after SIGTERM; stderr: \(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.runtime + "/control"), "the FIFO was left behind")
    }

    @Test("without WATCHDOG_USEC, or with a WATCHDOG_PID for another process, there are no pings")
    func noWatchdog() throws {
        for extra in [[:], ["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"]] as [[String: String]] {
            let sandbox = try Sandbox()
            let listener = try NotifyListener(path: sandbox.dir + "/notify")
            let daemon = try sandbox.startDaemon(notifySocket: listener.address, extra: extra)
            defer { daemon.kill() }
            _ = try #require(
                listener.first(within: 10) { $0.contains("READY=1") }, "no READY=1; stderr: \(daemon.stderr)")
            let pings = listener.collect(for: 1.2).filter { $0.lines.contains("WATCHDOG=1") }
            #expect(pings.isEmpty, "\(extra): \(pings.count) pings")
        }
    }

    @Test("an abstract NOTIFY_SOCKET (@name) gets READY=1 too")
    func abstractSocket() throws {
        let sandbox = try Sandbox()
        let listener = try NotifyListener(abstract: "alarm-test-\(UUID().uuidString)")
        let daemon = try sandbox.startDaemon(notifySocket: listener.address)
        defer { daemon.kill() }
        #expect(listener.first(within: 10) { $0.contains("READY=1") } != nil, "no READY=1; stderr: \(daemon.stderr)")
    }

    @Test("with no alarmd, alarm status, stop and snooze say so and fail at once")
    func noDaemon() throws {
        let sandbox = try Sandbox()
        for args in [["status"], ["stop"], ["snooze"], ["snooze", "5m"]] {
            let started = Date()
            let r = try Binaries.run("alarm", args, environment: sandbox.environment, timeout: 10)
            let took = Date().timeIntervalSince(started)
            #expect(r.status != 0, "alarm \(args) exited 0")
            #expect(took < 1.5, "alarm \(args) took \(took) s")
            #expect((r.stdout + r.stderr).contains("not running"), "alarm \(args): \(r.stdout) \(r.stderr)")
        }
    }
}

/// Temporary state and runtime directories, and a zone file that is a symlink into zoneinfo;
/// removed again when the sandbox goes away.
private final class Sandbox {
    let dir: String
    var state: String { dir + "/state" }
    var runtime: String { dir + "/run" }
    var localtime: String { dir + "/localtime" }

    init() throws {
        // Short: a socket path must fit in sun_path (108 bytes).
        dir = "/tmp/alarm-sd-" + String(UUID().uuidString.prefix(8))
        // The state directory exists, as systemd's StateDirectory= makes it (the CLI expects it).
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    var environment: [String: String] {
        [
            "ALARM_STATE_DIR": state, "ALARM_RUNTIME_DIR": runtime, "ALARM_DEVICE": "null",
            "ALARM_CONFIG": "/dev/null", "ALARM_LOCALTIME": localtime,
        ]
    }

    func alarm(_ args: [String]) throws {
        let r = try Binaries.run("alarm", args, environment: environment)
        guard r.status == 0 else { throw Failure("alarm \(args) failed: \(r.stderr)") }
    }

    func startDaemon(notifySocket: String, extra: [String: String] = [:]) throws -> Daemon {
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "TZ"] { env[key] = nil }
        for (k, v) in environment { env[k] = v }
        env["NOTIFY_SOCKET"] = notifySocket
        for (k, v) in extra { env[k] = v }
        return try Daemon(environment: env, log: dir + "/alarmd.log")
    }
}

/// A running `alarmd`; `kill()` is safe to call more than once.
private final class Daemon {
    let process = Process()
    let logPath: String

    init(environment: [String: String], log: String) throws {
        logPath = log
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = Binaries.directory.appendingPathComponent("alarmd")
        process.arguments = []
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
    }

    var stderr: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { _ = Glibc.kill(process.processIdentifier, sig) }

    /// The exit status, or nil if it is still running after `timeout` seconds.
    func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func kill() {
        guard process.isRunning else { return }
        signal(SIGKILL)
        process.waitUntilExit()
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

import AlarmSystem
import Foundation
import Glibc
import Testing

/// A bound SOCK_DGRAM unix socket playing systemd's part.
final class NotifyListener {
    let fd: Int32
    let address: String  // as NOTIFY_SOCKET spells it

    init(address: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        self.address = address
        var sa = sockaddr_un()
        sa.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &sa.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let r = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard r == 0 else { throw SystemError("bind", errno: errno) }
    }

    deinit { close(fd) }

    func receive(timeout milliseconds: Int32 = 1000) -> String? {
        guard waitReadable(fd, milliseconds: milliseconds) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
    }
}

@Suite("SDNotify")
struct SDNotifyTests {
    @Test("READY, STATUS, WATCHDOG and STOPPING reach a socket given by path")
    func pathSocket() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let listener = try NotifyListener(address: dir.sub("notify"))
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": listener.address])
        #expect(notify.isEnabled)

        try notify.ready(status: "next: wake at Mon 06:30")
        #expect(listener.receive() == "READY=1\nSTATUS=next: wake at Mon 06:30")
        try notify.status("two\nlines")
        #expect(listener.receive() == "STATUS=two lines")
        try notify.watchdog()
        #expect(listener.receive() == "WATCHDOG=1")
        try notify.stopping()
        #expect(listener.receive() == "STOPPING=1")
    }

    @Test("an @name NOTIFY_SOCKET reaches the abstract socket of that exact name")
    func abstractSocket() throws {
        let name = "@alarm-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = try NotifyListener(address: name)
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": name])
        try notify.ready()
        #expect(listener.receive() == "READY=1")
        // A longer or shorter name is a different abstract socket: no reader there.
        #expect(throws: SDNotify.Failure.self) {
            try SDNotify(environment: ["NOTIFY_SOCKET": name + "x"]).watchdog()
        }
    }

    @Test("without NOTIFY_SOCKET nothing is sent and nothing fails")
    func disabled() throws {
        let notify = SDNotify(environment: [:])
        #expect(!notify.isEnabled)
        #expect(try notify.send(["READY=1"]) == false)
        try notify.ready(status: "x")
        try notify.stopping()
    }

    @Test("unsupported addresses are refused with the address in the message")
    func badAddress() throws {
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": "vsock:2:1234"])
        #expect(throws: SDNotify.Failure.unsupportedAddress("vsock:2:1234")) { try notify.ready() }
        let tooLong = "/" + String(repeating: "x", count: 200)
        #expect(throws: SDNotify.Failure.unsupportedAddress(tooLong)) {
            try SDNotify(environment: ["NOTIFY_SOCKET": tooLong]).ready()
        }
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, only for the process WATCHDOG_PID names")
    func watchdogInterval() {
        let me = getpid()
        #expect(SDNotify(environment: ["WATCHDOG_USEC": "30000000"], pid: me).watchdogInterval == .seconds(15))
        #expect(
            SDNotify(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(me)"], pid: me)
                .watchdogInterval == .seconds(15))
        #expect(
            SDNotify(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(me + 1)"], pid: me)
                .watchdogInterval == nil)
        #expect(SDNotify(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SDNotify(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
        #expect(SDNotify(environment: [:]).watchdogInterval == nil)
    }
}

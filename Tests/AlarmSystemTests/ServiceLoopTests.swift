import AlarmSystem
import Foundation
import Glibc
import Testing

// The signal is raised with raise(3), at the calling thread, for the reason SignalFDTests gives.
@Suite("ServiceLoop")
struct ServiceLoopTests {
    @Test("READY with the status, watchdog pings while it runs, a signal that asks to stop ends it, then STOPPING")
    func readyWatchdogSignalStopping() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let listener = try NotifyListener(address: dir.sub("notify"))
        let environment = [
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "40000", "WATCHDOG_PID": String(getpid()),
        ]
        var failures: [String] = []
        let service = try ServiceLoop(signals: [.user1, .user2], environment: environment) { failures.append("\($0)") }
        defer { try? SignalFD.unblock([.user1, .user2]) }

        // The service's own source: after 0.3 s it raises SIGUSR2 (does not stop), then SIGUSR1 (stops).
        let timer = try TimerFD(clock: .monotonic)
        try timer.arm(after: .milliseconds(300))
        try service.loop.register(timer.descriptor, name: "the test's timer") { _ in
            _ = try timer.read()
            #expect(raise(SIGUSR2) == 0)
            #expect(raise(SIGUSR1) == 0)
        }
        // systemd's part is read in the same loop: a unix datagram socket queues only
        // net.unix.max_dgram_qlen (10) messages, and then sd_notify's send would wait.
        var messages: [String] = []
        try service.loop.register(listener.fd, name: "the test's notify socket") { _ in
            if let message = listener.receive(timeout: 0) { messages.append(message) }
        }
        var received: [Signal] = []
        try service.run(ready: "running") { signal in
            received.append(signal.signal)
            return signal.signal == .user1
        }

        while let message = listener.receive(timeout: 200) { messages.append(message) }
        #expect(messages.first == "READY=1\nSTATUS=running")
        #expect(messages.last == "STOPPING=1")
        // A ping every 20 ms (half of WATCHDOG_USEC) for 0.3 s; at least a few, however slow the machine.
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3, "\(messages)")
        #expect(received == [.user2, .user1] || received == [.user1, .user2])
        #expect(failures.isEmpty)
    }

    @Test("without NOTIFY_SOCKET nothing is sent and no watchdog runs; stop() ends run()")
    func withoutSystemd() throws {
        let service = try ServiceLoop(signals: [.user1], environment: [:]) { _ in }
        defer { try? SignalFD.unblock([.user1]) }
        let timer = try TimerFD(clock: .monotonic)
        try timer.arm(after: .milliseconds(50))
        try service.loop.register(timer.descriptor) { _ in
            _ = try timer.read()
            service.stop()
        }
        try service.run(ready: "running") { _ in
            Issue.record("no signal was sent")
            return true
        }
        #expect(!service.notify.isEnabled)
    }
}

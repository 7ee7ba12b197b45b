import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

@Suite("EventLoop")
struct EventLoopTests {
    @Test("timerfd, control FIFO and signalfd in one loop: each handler runs when its source is ready")
    func threeSources() throws {
        // Observed under a ClockSetWatch, asserted after: a set of the wall clock (another test's,
        // NTP's, the machine's) turns the timer's expiry into a clock change, and
        // that attempt is run again (issue #40).
        let (seen, spoiled) = try RealtimeClockGuard.shared.withoutClockSet { _ in
            let dir = TempDir()
            defer { dir.cleanup() }
            let loop = try EventLoop()
            let timer = try TimerFD()
            let fifo = try ControlFIFO(path: dir.sub("control"))
            let signals = try SignalFD([.hangup])
            defer { try? SignalFD.unblock([.hangup]) }

            var log: [String] = []
            try loop.register(timer.descriptor) { _ in
                if case .expired? = try timer.read() { log.append("timer") }
            }
            try loop.register(fifo.descriptor) { _ in
                log += try fifo.readCommands().map { "fifo \($0)" }
            }
            try loop.register(signals.descriptor) { _ in
                log += try signals.read().map { "signal \($0.signal.rawValue)" }
            }
            let registered = loop.count

            let start = Date()
            try timer.arm(at: start.addingTimeInterval(0.15))
            let path = fifo.path
            let sender = Thread {
                usleep(50_000)
                try? ControlFIFO.send(.snooze(duration: "5m"), to: path)
            }
            sender.start()
            let raised = raise(SIGHUP)

            while log.count < 3 && Date().timeIntervalSince(start) < 3 {
                try loop.runOnce(timeout: .seconds(3))
            }
            return (registered: registered, raised: raised, log: log, elapsed: Date().timeIntervalSince(start))
        }
        let note = spoiled > 0 ? " (\(spoiled) attempt(s) spoiled by a clock set)" : ""
        #expect(seen.registered == 3)
        #expect(seen.raised == 0)
        // The signal is pending before the first wait; the FIFO (50 ms) and the timer (150 ms)
        // follow, in an order a loaded machine could swap.
        #expect(seen.log.first == "signal \(SIGHUP)")
        #expect(Set(seen.log) == ["signal \(SIGHUP)", "fifo snooze 5m", "timer"], "\(seen.log)\(note)")
        #expect(seen.log.count == 3)
        #expect(seen.elapsed >= 0.145 && seen.elapsed < 2, "\(seen.elapsed)\(note)")
    }

    @Test("with nothing ready, runOnce sleeps for the timeout and calls nothing")
    func timeout() throws {
        let loop = try EventLoop()
        let fifo = try ControlFIFO(path: TempDir().sub("control"))
        defer { try? fifo.remove() }
        try loop.register(fifo.descriptor) { _ in Issue.record("nothing was written") }
        let start = Date()
        #expect(try loop.runOnce(timeout: .milliseconds(120)) == 0)
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.115 && elapsed < 0.6, "\(elapsed)")
        #expect(try loop.runOnce(timeout: .zero) == 0)
    }

    @Test("an unregistered descriptor gets no more calls; stop() ends run()")
    func unregisterAndStop() throws {
        let loop = try EventLoop()
        let dir = TempDir()
        defer { dir.cleanup() }
        let a = try ControlFIFO(path: dir.sub("a"))
        let b = try ControlFIFO(path: dir.sub("b"))
        var calls = 0
        var tokenA: EventLoop.Token?
        tokenA = try loop.register(a.descriptor) { _ in
            calls += 1
            try loop.unregister(tokenA!)  // leaves "a" unread: level-triggered would call again
        }
        try loop.register(b.descriptor) { _ in
            _ = try b.readCommands()
            loop.stop()
        }
        try ControlFIFO.send(.stop, to: a.path)
        #expect(try loop.runOnce(timeout: .seconds(1)) == 1)
        #expect(try loop.runOnce(timeout: .milliseconds(50)) == 0, "a is unregistered though still readable")
        try ControlFIFO.send(.stop, to: b.path)
        try loop.run()
        #expect(calls == 1)
        #expect(loop.count == 1)
        try loop.unregister(tokenA!)  // twice is harmless
    }

    @Test("a handler's error is reported with its name and descriptor, and the loop serves the next event")
    func handlerErrorsAreReportedAndTheLoopGoesOn() throws {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        var reports: [String] = []
        let loop = try EventLoop(reportFailure: { reports.append("\($0)") })
        let dir = TempDir()
        defer { dir.cleanup() }
        let failing = try ControlFIFO(path: dir.sub("failing"))
        let other = try ControlFIFO(path: dir.sub("other"))
        var failingCalls = 0
        var served: [String] = []
        try loop.register(failing.descriptor, name: "the failing FIFO") { _ in
            _ = try failing.readCommands()
            failingCalls += 1
            if failingCalls == 1 { throw Boom() }
            served.append("failing")
            loop.stop()
        }
        try loop.register(other.descriptor) { _ in
            served += try other.readCommands().map { "other \($0)" }
        }

        // Both ready in one turn: the failure is reported and the other handler still runs.
        try ControlFIFO.send(.reload, to: failing.path)
        try ControlFIFO.send(.stop, to: other.path)
        var called = 0
        for _ in 0..<20 where called < 2 { called += try loop.runOnce(timeout: .seconds(1)) }
        #expect(called == 2)
        #expect(reports == ["handling the failing FIFO (fd \(failing.descriptor)) failed: boom"])
        #expect(served == ["other stop"])

        // run() goes on after a failure and serves the next event (the handler stops it then).
        try ControlFIFO.send(.reload, to: failing.path)
        try loop.run()
        #expect(served == ["other stop", "failing"])
        #expect(reports.count == 1)
    }

    @Test("a handler that fails while its descriptor stays ready ends run() with HandlerKeepsFailing, not a spin")
    func aHandlerThatKeepsFailingEndsTheLoop() throws {
        struct Boom: Error {}
        var reports = 0
        let loop = try EventLoop(reportFailure: { _ in reports += 1 })
        let fifo = try ControlFIFO(path: TempDir().sub("control"))
        defer { try? fifo.remove() }
        try loop.register(fifo.descriptor, name: "the control FIFO") { _ in throw Boom() }  // never drains it
        try ControlFIFO.send(.reload, to: fifo.path)
        #expect(throws: EventLoop.HandlerKeepsFailing.self) { try loop.run() }
        #expect(reports == EventLoop.failureLimit)
    }

    @Test("registering the same descriptor twice is an error (EEXIST)")
    func doubleRegistration() throws {
        let loop = try EventLoop()
        let timer = try TimerFD()
        try loop.register(timer.descriptor) { _ in }
        #expect(throws: SystemError("epoll_ctl(ADD, \(timer.descriptor))", errno: EEXIST)) {
            try loop.register(timer.descriptor) { _ in }
        }
    }
}

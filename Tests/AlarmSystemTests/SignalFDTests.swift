import AlarmSystem
import Glibc
import Testing

// Signals here are raised with raise(3), which directs them at the calling thread: the test
// runner has other threads that do not block them, and a process-directed SIGTERM could be
// delivered to one of those and end the run. Nor can a test block it in every thread: the test
// runner's main thread has an empty mask (it was seen cleared even when the mask was inherited
// through exec) and no test code runs there. Process-directed delivery (kill -TERM from another
// process) is alarmd's end-to-end test, where main blocks the signals before any thread starts.
@Suite("SignalFD")
struct SignalFDTests {
    @Test("blocked SIGTERM, SIGHUP and SIGINT are read from the descriptor instead of killing us")
    func readsRaisedSignals() throws {
        let wanted: Set<Signal> = [.terminate, .hangup, .interrupt]
        let signals = try SignalFD(wanted)
        defer { try? SignalFD.unblock(wanted) }
        #expect(try signals.read().isEmpty)
        #expect(!waitReadable(signals.descriptor, milliseconds: 20))

        #expect(raise(SIGHUP) == 0)
        #expect(raise(SIGTERM) == 0)
        #expect(waitReadable(signals.descriptor, milliseconds: 1000))
        let got = try signals.read()
        #expect(Set(got.map(\.signal)) == [.hangup, .terminate])
        #expect(got.allSatisfy { $0.senderPID == getpid() && $0.senderUID == getuid() })
        #expect(try signals.read().isEmpty, "drained")

        #expect(raise(SIGINT) == 0)
        #expect(try signals.read().map(\.signal) == [.interrupt])
    }

    @Test("standard signals do not queue: two SIGHUPs before a read arrive as one")
    func coalesces() throws {
        let signals = try SignalFD([.user1])
        defer { try? SignalFD.unblock([.user1]) }
        #expect(raise(SIGUSR1) == 0)
        #expect(raise(SIGUSR1) == 0)
        #expect(try signals.read().map(\.signal) == [.user1])
    }

    @Test("a signal not in the set is not reported")
    func onlyItsSignals() throws {
        let signals = try SignalFD([.user2])
        try SignalFD.block([.user1])
        defer { try? SignalFD.unblock([.user2]) }
        #expect(raise(SIGUSR1) == 0)
        #expect(try signals.read().isEmpty)
        // Consume the pending SIGUSR1 with a second descriptor before unblocking it.
        let other = try SignalFD([.user1])
        #expect(try other.read().map(\.signal) == [.user1])
        try SignalFD.unblock([.user1])
    }

    @Test("signal names are readable in logs")
    func names() {
        #expect(Signal.terminate.description == "Terminated (15)")
        #expect(Signal.hangup.description == "Hangup (1)")
    }
}

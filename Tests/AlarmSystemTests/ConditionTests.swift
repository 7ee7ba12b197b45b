import AlarmSystem
import Foundation
import Testing

/// The lock and condition variable of the player and alarm-stream (`Condition`): timed waits on the monotonic clock.
/// What a wall-clock jump does to a wait cannot be shown here without setting the machine's
/// clock; these check that the monotonic waits keep their length and wake on a broadcast.
@Suite("Condition: timed waits")
struct ConditionTests {
    @Test("a wait for a deadline 0.2 s ahead reports it passed only after 0.2 s")
    func timesOut() {
        let c = Condition()
        c.lock()
        let start = ContinuousClock.now
        // pthread_cond_timedwait may wake spuriously (true): the caller's loop, as in the player.
        var waits = 0
        while c.wait(until: start + .milliseconds(200)) { waits += 1 }
        let took = ContinuousClock.now - start
        c.unlock()
        #expect(took >= .milliseconds(200))
        #expect(waits < 100, "\(waits) wake-ups without a broadcast")
    }

    @Test("a broadcast ends a long wait")
    func broadcastWakes() {
        final class Flag: @unchecked Sendable { var set = false }
        let c = Condition()
        let flag = Flag()
        c.lock()
        startThread(named: "test") {
            usleep(50_000)
            c.lock()
            flag.set = true
            c.broadcast()
            c.unlock()
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !flag.set && c.wait(until: deadline) {}
        c.unlock()
        #expect(flag.set)
        #expect(ContinuousClock.now < deadline)
    }

    @Test("a deadline already passed, or a zero or negative wait, returns false at once")
    func pastDeadline() {
        let c = Condition()
        c.lock()
        let start = ContinuousClock.now
        #expect(!c.wait(until: start - .seconds(1)))
        #expect(!c.wait(for: .zero))
        #expect(!c.wait(for: .seconds(-5)))
        c.unlock()
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}

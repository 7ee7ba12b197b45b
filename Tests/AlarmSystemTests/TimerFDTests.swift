import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

@Suite("TimerFD")
struct TimerFDTests {
    @Test("armed 200 ms ahead, it fires once, not before")
    func firesAtTheArmedInstant() throws {
        try RealtimeClockGuard.shared.sharing {
            let timer = try TimerFD()
            let start = Date()
            try timer.arm(at: start.addingTimeInterval(0.2))
            #expect(try timer.read() == nil, "nothing to read before the instant")
            #expect(waitReadable(timer.descriptor, milliseconds: 2000))
            let elapsed = Date().timeIntervalSince(start)
            #expect(elapsed >= 0.195, "fired after \(elapsed) s")
            #expect(elapsed < 1.5, "fired after \(elapsed) s")
            #expect(try timer.read() == .expired(count: 1))
            #expect(try timer.read() == nil, "one-shot: nothing more")
            #expect(try timer.armedUntil() == nil, "a fired one-shot timer is disarmed")
        }
    }

    @Test("an instant in the past fires at once")
    func pastInstantFiresImmediately() throws {
        try RealtimeClockGuard.shared.sharing {
            let timer = try TimerFD()
            try timer.arm(at: Date().addingTimeInterval(-3600))
            #expect(waitReadable(timer.descriptor, milliseconds: 100))
            #expect(try timer.read() == .expired(count: 1))
            try timer.arm(at: Date(timeIntervalSince1970: -5))
            #expect(waitReadable(timer.descriptor, milliseconds: 100))
            #expect(try timer.read() == .expired(count: 1))
        }
    }

    @Test("disarm cancels a pending expiry; re-arming replaces the instant")
    func disarmAndRearm() throws {
        try RealtimeClockGuard.shared.sharing {
            let timer = try TimerFD()
            try timer.arm(at: Date().addingTimeInterval(0.1))
            try timer.disarm()
            #expect(try timer.armedUntil() == nil)
            #expect(!waitReadable(timer.descriptor, milliseconds: 300))
            #expect(try timer.read() == nil)

            let target = Date().addingTimeInterval(60)
            try timer.arm(at: Date().addingTimeInterval(0.05))
            try timer.arm(at: target)
            let armed = try #require(try timer.armedUntil())
            #expect(abs(armed.timeIntervalSince(target)) < 0.05)
            #expect(!waitReadable(timer.descriptor, milliseconds: 200), "the first instant was replaced")
        }
    }

    @Test("an instant beyond the kernel's range (Date.distantFuture) is clamped, armed and quiet")
    func distantFuture() throws {
        try RealtimeClockGuard.shared.sharing {
            let timer = try TimerFD()
            try timer.arm(at: .distantFuture)
            let armed = try #require(try timer.armedUntil())
            #expect(armed.timeIntervalSinceNow > 100 * 365 * 86400)
            #expect(!waitReadable(timer.descriptor, milliseconds: 50))
        }
    }

    @Test("a monotonic interval timer counts every expiration since the last read")
    func monotonicInterval() throws {
        let timer = try TimerFD(clock: .monotonic)
        let start = Date()
        try timer.arm(after: .milliseconds(40), repeating: .milliseconds(40))
        #expect(waitReadable(timer.descriptor, milliseconds: 1000))
        #expect(Date().timeIntervalSince(start) >= 0.035)
        let firstRead = ContinuousClock.now
        #expect(try timer.read() == .expired(count: 1))
        usleep(130_000)  // three more periods pass unread
        guard case .expired(let count)? = try timer.read() else {
            Issue.record("no expiry after 130 ms")
            return
        }
        // No more than the periods that fit between the reads, as timed (a loaded machine may
        // oversleep): 4 for 130 ms.
        let between = (ContinuousClock.now - firstRead) / .milliseconds(40)
        #expect(count >= 3 && Double(count) <= between.rounded(.up), "\(count) expirations in \(between) periods")
        try timer.disarm()
        #expect(!waitReadable(timer.descriptor, milliseconds: 100))
    }

    @Test("a zero delay fires at once instead of disarming")
    func zeroDelay() throws {
        let timer = try TimerFD(clock: .monotonic)
        try timer.arm(after: .zero)
        #expect(waitReadable(timer.descriptor, milliseconds: 100))
        #expect(try timer.read() == .expired(count: 1))
    }

    @Test(
        "setting the real-time clock (even to the same time) reports clockChanged once",
        .enabled(
            if: Privileges.canSetClock,
            "clock_settime needs CAP_SYS_TIME in the initial user namespace, which this process lacks"))
    func clockSetReportsClockChanged() throws {
        try RealtimeClockGuard.shared.exclusive {
            let timer = try TimerFD()
            let watcher = try TimerFD()
            let disarmed = try TimerFD()
            try timer.arm(at: Date().addingTimeInterval(3600))
            try watcher.watchClockChanges()
            #expect(try timer.read() == nil)

            let err = setRealtimeClockToNow()
            #expect(err == 0, "clock_settime failed: \(String(cString: strerror(err)))")

            #expect(waitReadable(timer.descriptor, milliseconds: 1000))
            #expect(try timer.read() == .clockChanged)
            #expect(try timer.read() == nil, "reported once per change")
            #expect(try timer.armedUntil() != nil, "the timer stays armed for its old instant")
            #expect(waitReadable(watcher.descriptor, milliseconds: 1000))
            #expect(try watcher.read() == .clockChanged)
            #expect(!waitReadable(disarmed.descriptor, milliseconds: 50), "a disarmed timer does not watch the clock")

            try timer.arm(at: Date().addingTimeInterval(0.05))
            #expect(waitReadable(timer.descriptor, milliseconds: 1000))
            #expect(try timer.read() == .expired(count: 1), "re-armed: fires normally again")
        }
    }
}

import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// Issue #11: a pre-rolled ring opens its device ahead and starts at its instant by itself.
@Suite("AlarmPlayer pre-roll")
struct PrerollTests {
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: PlaybackStarted?
        func set(_ s: PlaybackStarted) {
            lock.lock()
            if value == nil { value = s }
            lock.unlock()
        }
        var get: PlaybackStarted? {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    @Test("starts by itself at the instant, not before")
    func startsAtTheInstant() throws {
        let player = AlarmPlayer(devices: ["null"], log: { _ in })
        let first = Box()
        let instant = Date().addingTimeInterval(0.6)
        player.preroll(DefaultTone.clip(), at: instant, onFirstFrame: { first.set($0) })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(first.get == nil, "it sounded before its instant")
        #expect(player.isRinging)
        #expect(waitUntil(timeout: 5, poll: 0.005) { first.get != nil })
        let started = try #require(first.get)
        #expect(
            started.date >= instant.addingTimeInterval(-0.001),
            "started \(started.date.timeIntervalSince(instant)) s from the instant")
        #expect(
            started.date.timeIntervalSince(instant) < 0.25, "started \(started.date.timeIntervalSince(instant)) s late")
        #expect(started.device == "null")
        let summary = player.stop()
        #expect(summary.framesWritten > 0 && summary.stoppedByCaller)
    }

    @Test("stop before the instant: no frame is written")
    func stopCancels() {
        let player = AlarmPlayer(devices: ["null"], log: { _ in })
        let first = Box()
        player.preroll(DefaultTone.clip(), at: Date().addingTimeInterval(0.5), onFirstFrame: { first.set($0) })
        Thread.sleep(forTimeInterval: 0.1)
        let summary = player.stop()
        #expect(!player.isRinging)
        #expect(summary.framesWritten == 0)
        Thread.sleep(forTimeInterval: 0.7)
        #expect(first.get == nil)
    }

    @Test("go() starts it before its instant")
    func goStartsEarly() {
        let player = AlarmPlayer(devices: ["null"], log: { _ in })
        let first = Box()
        player.preroll(DefaultTone.clip(), at: Date().addingTimeInterval(30), onFirstFrame: { first.set($0) })
        player.go()
        #expect(waitUntil(timeout: 5, poll: 0.005) { first.get != nil })
        player.stop()
    }

    @Test("woken long after its instant (clock set forward), it waits for go()")
    func lateWaitsForGo() {
        let player = AlarmPlayer(devices: ["null"], log: { _ in })
        let first = Box()
        player.preroll(
            DefaultTone.clip(), at: Date().addingTimeInterval(-5), window: 1, onFirstFrame: { first.set($0) })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(first.get == nil, "it started on its own 5 s after its instant")
        player.go()
        #expect(waitUntil(timeout: 5, poll: 0.005) { first.get != nil })
        player.stop()
    }

    @Test("a device that fails in pre-roll is replaced by the next of the chain before the instant")
    func failingDeviceIsReplacedAhead() throws {
        let lines = LogLines()
        let player = AlarmPlayer(devices: ["nosuch-preroll", "null"], log: { lines.add($0) })
        let first = Box()
        let instant = Date().addingTimeInterval(0.8)
        player.preroll(DefaultTone.clip(), at: instant, onFirstFrame: { first.set($0) })
        #expect(
            waitUntil(timeout: 0.6, poll: 0.005) {
                lines.all.contains { $0.contains("pre-roll") && $0.contains("nosuch-preroll") }
            }, "\(lines.all)")
        #expect(first.get == nil)
        #expect(waitUntil(timeout: 5, poll: 0.005) { first.get != nil })
        #expect(try #require(first.get).device == "null")
        #expect(try #require(first.get).date.timeIntervalSince(instant) < 0.25)
        player.stop()
    }
}

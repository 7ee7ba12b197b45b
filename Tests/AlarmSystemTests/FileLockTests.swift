import AlarmTestSupport
import Foundation
import Testing

@testable import AlarmSystem

@Suite struct FileLockTests {
    @Test func aSecondLockerTimesOutWhileTheFirstHoldsIt() throws {
        let dir = try temporaryDirectory()
        let first = try FileLock(path: dir + "/lock", timeout: 1)
        let start = Date()
        #expect(throws: LockTimeout(path: dir + "/lock", seconds: 0.2)) {
            _ = try FileLock(path: dir + "/lock", timeout: 0.2)
        }
        let waited = Date().timeIntervalSince(start)
        #expect(waited >= 0.2 && waited < 2)
        first.unlock()
        let second = try FileLock(path: dir + "/lock", timeout: 0.2)
        second.unlock()
    }

    @Test func theLockIsReleasedWhenTheHolderGoesAway() throws {
        let dir = try temporaryDirectory()
        do { _ = try FileLock(path: dir + "/lock", timeout: 1) }
        _ = try FileLock(path: dir + "/lock", timeout: 0.1)
    }

    /// The waiter blocks in `flock`, so it runs on a thread of its own: as a task it would hold
    /// one of the few threads of Swift's cooperative pool, and with other tests' tasks on the
    /// rest, the holder's task could wait past the waiter's timeout for a thread to resume on
    /// (it did: a 74 s run with the whole suite in parallel).
    @Test func aWaiterGetsTheLockOnceItIsReleased() throws {
        let dir = try temporaryDirectory()
        let first = try FileLock(path: dir + "/lock", timeout: 1)
        final class Outcome: @unchecked Sendable {
            var got: Date?
            var error: Error?
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                let l = try FileLock(path: dir + "/lock", timeout: 30)
                outcome.got = Date()
                l.unlock()
            } catch {
                outcome.error = error
            }
            done.signal()
        }
        usleep(300_000)
        let released = Date()
        first.unlock()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.got.map { $0 >= released } == true, "the waiter got the lock only after its release")
    }

    @Test func threadsIncrementingUnderTheLockLoseNothing() async throws {
        let dir = try temporaryDirectory()
        let counter = dir + "/counter"
        try AtomicFile.write(Array("0".utf8), to: counter)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    for _ in 0..<40 {
                        try FileLock.withLock(dir + "/lock", timeout: 10) {
                            let n = Int(String(decoding: try AtomicFile.read(counter) ?? [], as: UTF8.self))!
                            try AtomicFile.write(Array(String(n + 1).utf8), to: counter)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(String(decoding: try AtomicFile.read(counter) ?? [], as: UTF8.self) == "240")
    }

    @Test func anotherProcessHoldingTheLockIsWaitedFor() throws {
        let dir = try temporaryDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        p.arguments = ["-x", dir + "/lock", "sleep", "0.6"]
        try p.run()
        // Wait until the child holds it (starting flock and then sleep is slow on a loaded machine).
        let held = try waitUntil(timeout: 10, poll: 0.01) {
            do {
                let l = try FileLock(path: dir + "/lock", timeout: 0)
                l.unlock()
                return false
            } catch is LockTimeout {
                return true
            }
        }
        #expect(held, "the child process should hold the lock")
        let start = Date()
        let l = try FileLock(path: dir + "/lock", timeout: 5)
        #expect(Date().timeIntervalSince(start) > 0.1)
        l.unlock()
        p.waitUntilExit()
    }
}

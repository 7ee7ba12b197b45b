import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

@Suite("ContextSwitches and ResidentMemory")
struct ProcessStatisticsTests {
    @Test("a thread idle in the event loop for 300 ms wakes up about once, not per millisecond")
    func idleLoopBarelyWakes() throws {
        let loop = try EventLoop()
        let timer = try TimerFD()  // registered, never armed: nothing to do
        try loop.register(timer.descriptor) { _ in Issue.record("unarmed timer fired") }
        let before = try ContextSwitches.currentThread()
        #expect(try loop.runOnce(timeout: .milliseconds(300)) == 0)
        let after = try ContextSwitches.currentThread()
        let wakeups = after.voluntary - before.voluntary
        #expect(wakeups >= 1 && wakeups <= 3, "\(wakeups) voluntary switches in 300 ms of idling")
    }

    @Test("a thread sleeping 20 times shows at least 20 voluntary switches")
    func sleepsAreCounted() throws {
        let before = try ContextSwitches.currentThread()
        for _ in 0..<20 { usleep(2000) }
        let after = try ContextSwitches.currentThread()
        #expect(after.voluntary - before.voluntary >= 20)
    }

    @Test("the per-thread sample sees this thread and counts a new busy thread's wake-ups")
    func processSample() throws {
        let first = try ContextSwitches.sample()
        // /proc/thread-self links to "PID/task/TID".
        let me = try #require(
            Int32(
                try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
                    .split(separator: "/").last.map(String.init) ?? ""))
        #expect(first.threads.contains { $0.id == me })
        #expect(first.threads.allSatisfy { !$0.name.isEmpty })

        // [0]: the sleeper has slept; [1]: it has been sampled (it stays alive until then).
        let flags = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        flags.initialize(repeating: 0, count: 2)
        defer { flags.deallocate() }
        let box = UInt(bitPattern: flags)
        let sleeper = Thread {
            let flag = UnsafeMutablePointer<Int32>(bitPattern: box)!
            for _ in 0..<30 { usleep(1000) }
            flag[0] = 1
            let deadline = Date().addingTimeInterval(60)
            while flag[1] == 0 && Date() < deadline { usleep(5000) }
        }
        sleeper.start()
        while flags[0] == 0 { usleep(5000) }
        let second = try ContextSwitches.sample()
        flags[1] = 1
        while !sleeper.isFinished { usleep(5000) }
        #expect(second.wakeups(since: first) >= 30)
        #expect(second.wakeups(since: second) == 0)
    }

    @Test("another process is sampled by pid: a shell running five sleeps wakes at least five times")
    func otherProcess() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "read line; for i in 1 2 3 4 5; do sleep 0.02; done; read line"]
        let input = Pipe()
        p.standardInput = input
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        // The child may not have exec'd sh yet when run() returns (under qemu-user, spawning is a
        // fork and then an exec): wait until it has.
        let comm = "/proc/\(p.processIdentifier)/comm"
        let deadline = Date().addingTimeInterval(30)
        while (try? String(contentsOfFile: comm, encoding: .utf8)) != "sh\n" && Date() < deadline { usleep(5_000) }
        let first = try ContextSwitches.sample(process: p.processIdentifier)
        #expect(first.threads.count == 1)
        #expect(first.threads.first?.name == "sh")
        input.fileHandleForWriting.write(Data("go\n".utf8))
        // Five sleeps (each a child the shell waits for) take a while on a loaded machine.
        var second = first
        #expect(
            try waitUntil(timeout: 10) {
                second = try ContextSwitches.sample(process: p.processIdentifier)
                return second.wakeups(since: first) >= 5
            }, "\(second.wakeups(since: first)) wake-ups")
        #expect(try ResidentMemory.bytes(process: p.processIdentifier) > 0)
        input.fileHandleForWriting.write(Data("done\n".utf8))
        p.waitUntilExit()
        #expect(throws: SystemError.self) { try ContextSwitches.sample(process: p.processIdentifier) }
    }

    @Test("resident memory of this process is plausible and grows when pages are touched")
    func residentMemory() throws {
        let before = try ResidentMemory.bytes()
        #expect(before > 1 << 20 && before < 8 << 30)
        let size = 64 << 20
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { block.deallocate() }
        memset(block, 1, size)
        let after = try ResidentMemory.bytes()
        #expect(after >= before + UInt64(size) / 2, "\(before) -> \(after)")
    }
}

import Foundation
import Testing

@testable import AlarmSystem

@Suite("startThread: named threads")
struct ThreadTests {
    @Test("a started thread carries its name, cut to Linux's 15 bytes, in /proc/self/task/*/comm")
    func startedThreadIsNamed() throws {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        startThread(named: "alarm-thread-test-long-name") {
            running.signal()
            release.wait()
        }
        defer { release.signal() }
        #expect(running.wait(timeout: .now() + 30) == .success)
        let names = try ProcFile.list("/proc/self/task").compactMap { tid in
            // A thread may end between listing and reading.
            (try? ProcFile.read("/proc/self/task/\(tid)/comm"))?.trimmingCharacters(in: .newlines)
        }
        #expect(names.contains("alarm-thread-te"), "thread names: \(names)")
    }

    @Test("a name longer than 15 bytes is cut at a character boundary")
    func longNamesAreCut() {
        #expect(threadName("alarm-player") == "alarm-player")
        #expect(threadName("alarm-preroll-device") == "alarm-preroll-d")
        #expect(threadName("wecker-äöüäöü") == "wecker-äöüä")  // 7 + 4 × 2 bytes; a fifth ä would make 17
    }
}

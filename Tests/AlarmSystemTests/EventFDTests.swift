import AlarmSystem
import Foundation
import Testing

@Suite("EventFD")
struct EventFDTests {
    @Test("a signal from another thread wakes the loop, and drain clears it")
    func wakesLoop() throws {
        let loop = try EventLoop()
        let fd = try EventFD()
        // The handler runs on this thread, inside runOnce.
        final class Count { var value: UInt64 = 0 }
        let woke = Count()
        _ = try loop.register(fd.descriptor) { _ in woke.value += try fd.drain() }
        let t = Thread { usleep(50_000); fd.signal(); fd.signal() }
        t.start()
        var handled = 0
        for _ in 0..<40 where woke.value < 2 { handled += try loop.runOnce(timeout: .milliseconds(100)) }
        #expect(woke.value == 2)
        #expect(try fd.drain() == 0)
        #expect(try loop.runOnce(timeout: .milliseconds(50)) == 0)
    }
}

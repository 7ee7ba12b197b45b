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
        let t = Thread {
            usleep(50_000)
            fd.signal()
            fd.signal()
        }
        t.start()
        var handled = 0
        for _ in 0..<40 where woke.value < 2 { handled += try loop.runOnce(timeout: .milliseconds(100)) }
        #expect(woke.value == 2)
        #expect(try fd.drain() == 0)
        #expect(try loop.runOnce(timeout: .milliseconds(50)) == 0)
    }
}

@Suite("ControlFIFO.probe")
struct ControlFIFOProbeTests {
    @Test("probe tells a listening daemon from none, and writes nothing")
    func probe() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)").path
        try Directories.create(dir, mode: 0o700)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/control"
        #expect(throws: ControlFIFOError.missing(path: path)) { try ControlFIFO.probe(path) }
        let fifo = try ControlFIFO(path: path)
        try ControlFIFO.probe(path)
        #expect(try fifo.readCommands().isEmpty)
        try ControlFIFO.send(line: "stop", to: path)
        #expect(try fifo.readCommands() == [.stop])
    }
}

@Suite("ControlFIFO.send after a writer died mid-line")
struct ControlFIFOPartialLineTests {
    @Test("a partial line left by a dead writer does not swallow the next command (issue #4 garbage case)")
    func partialLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)").path
        try Directories.create(dir, mode: 0o700)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/control"
        let fifo = try ControlFIFO(path: path)
        let writer = try #require(FileHandle(forWritingAtPath: path))
        writer.write(Data("sto".utf8))
        try writer.close()
        try ControlFIFO.send(line: "ring a440.wav", to: path)
        let commands = try fifo.readCommands()
        #expect(commands.last == .ring(sound: "a440.wav"), "\(commands)")
        #expect(commands.count == 2)
        if case .invalid = commands.first {
        } else {
            Issue.record("the stranded 'sto' must be reported invalid: \(commands)")
        }
    }
}

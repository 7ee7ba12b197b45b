import AlarmCore
import Foundation
import Glibc
import Testing

@testable import AlarmState

/// Issue #13: alarmd's event log and its readers. Real files, real inotify, a real writer thread.
@Suite("EventLog and EventFollower (issue #13)", .serialized)
struct EventLogTests {
    func runtimeDir() throws -> String {
        let path = NSTemporaryDirectory() + "alarm-events-" + UUID().uuidString + "/run"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func event(_ n: Int, label: String? = nil) -> AlarmEvent {
        AlarmEvent(
            "ringing", at: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)), alarm: "a\(n)", label: label,
            scheduled: Date(timeIntervalSince1970: 1_800_000_000), sound: "default", timeZone: .utc)
    }

    /// Reads from `follower` whenever inotify says so, until `done` holds or `timeout` passes.
    func collect(
        _ follower: EventFollower, timeout: Double = 10, into lines: inout [EventLine],
        until done: ([EventLine]) -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(lines), Date() < deadline {
            var p = pollfd(fd: follower.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            lines += try follower.read()
        }
    }

    func seqs(_ lines: [EventLine]) -> [Int] { lines.compactMap(\.seq) }

    @Test(
        "lines get seq 1, 2, 3 …, one JSON object each; the file is 0640; a new log on the same file goes on from the last seq"
    )
    func seqAcrossRestarts() throws {
        let dir = try runtimeDir()
        let log = EventLog(path: dir + "/events.jsonl")
        let written = try log.append([event(1), event(2)])
        #expect(written.map(\.seq) == [1, 2])
        try log.append([event(3)])
        let mode = try FileManager.default.attributesOfItem(atPath: log.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3 && text.hasSuffix("\n"))
        for (i, line) in lines.enumerated() {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["seq"] as? Int == i + 1)
            #expect(object["event"] as? String == "ringing")
        }
        // alarmd restarts, after a crash in the middle of a write.
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"alarm\":\"torn".utf8))
        try handle.close()
        let again = EventLog(path: log.path)
        #expect(again.lastSeq == 3, "the torn line has no seq; the last whole one counts")
        try again.append([event(4)])
        let all = try EventFollower.lines(of: log.path)
        #expect(all.count == 5)
        #expect(all[3].event == nil, "the torn line stays a line of its own, which readers skip")
        #expect(all[4].seq == 4 && all[4].event?.alarm == "a4")
    }

    @Test(
        "rotation: past maxBytes the log moves to events.jsonl.1 and a new one starts; seq goes on; a reader misses nothing"
    )
    func rotation() throws {
        let dir = try runtimeDir()
        let log = EventLog(path: dir + "/events.jsonl", maxBytes: 4096)
        let follower = try EventFollower(path: log.path)
        for n in 1...100 { try log.append([event(n)]) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int)
        #expect(size <= 4096)
        #expect(FileManager.default.fileExists(atPath: log.path + ".1"))
        let rotated = try EventFollower.lines(of: log.path + ".1")
        let current = try EventFollower.lines(of: log.path)
        #expect(seqs(rotated + current) == Array((seqs(rotated).first ?? 0)...100))
        #expect(EventLog(path: log.path).lastSeq == 100)
        // The follower fell many rotations behind here (a single thread wrote all of it): what
        // is no longer kept is gone, what is kept comes in order, each once.
        var lines: [EventLine] = []
        try collect(follower, into: &lines) { seqs($0).last == 100 }
        let got = seqs(lines)
        #expect(got == got.sorted() && Set(got).count == got.count)
        #expect(got.suffix(current.count) == seqs(current)[...])
        #expect(Set(seqs(rotated)).isSubset(of: Set(got)), "events.jsonl.1 is read for the lines between")
    }

    @Test("a reader two rotations behind takes the lines between from events.jsonl.1")
    func twoRotationsBehind() throws {
        let dir = try runtimeDir()
        let log = EventLog(path: dir + "/events.jsonl", maxBytes: 4096)
        for n in 1...5 { try log.append([event(n)]) }
        let follower = try EventFollower(path: log.path)
        var lines = try follower.read()
        #expect(lines.isEmpty, "it starts at the end")
        // Write until the log rotated twice since the follower opened it.
        var rotations = 0
        var last = try FileManager.default.attributesOfItem(atPath: log.path)[.systemFileNumber] as? Int
        var n = 5
        while rotations < 2 {
            n += 1
            try log.append([event(n)])
            let now = try FileManager.default.attributesOfItem(atPath: log.path)[.systemFileNumber] as? Int
            if now != last {
                rotations += 1
                last = now
            }
        }
        try log.append([event(n + 1)])
        try collect(follower, into: &lines) { seqs($0).last == n + 1 }
        #expect(seqs(lines) == Array(6...(n + 1)))
    }

    @Test(
        "a writer thread with many rotations and a follower started in the middle: every line after the start, once, in order"
    )
    func concurrentWriter() throws {
        let dir = try runtimeDir()
        let path = dir + "/events.jsonl"
        let total = 3000
        final class Progress: @unchecked Sendable {
            let lock = NSLock()
            var written = 0
            var value: Int { lock.withLock { written } }
        }
        let progress = Progress()
        let events = (1...total).map { event($0, label: String(repeating: "x", count: $0 % 50)) }
        let writer = Thread {
            let log = EventLog(path: path, maxBytes: 64 * 1024)
            for n in 1...total {
                try! log.append([events[n - 1]])
                progress.lock.withLock { progress.written = n }
                if n % 10 == 0 { usleep(1000) }
            }
        }
        writer.start()
        while progress.value < 400 { usleep(1000) }
        let follower = try EventFollower(path: path)
        let startedAfter = progress.value
        var lines: [EventLine] = []
        try collect(follower, timeout: 60, into: &lines) { seqs($0).last == total }
        let got = seqs(lines)
        #expect(got.last == total)
        #expect(
            got.first.map { $0 <= startedAfter + 1 } == true,
            "the first line after its start is \(startedAfter + 1); it began at \(got.first ?? -1)")
        #expect(got == Array((got.first ?? 0)...total), "a gap or a line twice")
        #expect(lines.allSatisfy { $0.event != nil })
    }

    @Test(
        "no log yet, then its directory and the log appear: read from the first line; the directory removed and made again: the new log from its start"
    )
    func directoryComesAndGoes() throws {
        let dir = try runtimeDir()
        try FileManager.default.removeItem(atPath: dir)
        let path = dir + "/events.jsonl"
        let follower = try EventFollower(path: path)
        var lines: [EventLine] = []
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = EventLog(path: path)
        try log.append([event(1), event(2)])
        try collect(follower, into: &lines) { $0.count == 2 }
        #expect(seqs(lines) == [1, 2])
        // systemd removes /run/alarm when alarmd stops and makes it anew when it starts.
        try FileManager.default.removeItem(atPath: dir)
        lines += try follower.read()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fresh = EventLog(path: path)
        #expect(fresh.lastSeq == 0)
        try fresh.append([event(10)])
        try collect(follower, into: &lines) { $0.count == 3 }
        #expect(lines.count == 3)
        #expect(lines.last?.event?.alarm == "a10")
        try fresh.append([event(11)])
        try collect(follower, into: &lines) { $0.count == 4 }
        #expect(lines.last?.event?.alarm == "a11")
    }

    @Test("start points: the end, the last n lines, after a seq (events.jsonl.1 included)")
    func startPoints() throws {
        let dir = try runtimeDir()
        let log = EventLog(path: dir + "/events.jsonl", maxBytes: 4096)
        for n in 1...40 { try log.append([event(n)]) }
        let rotated = seqs(try EventFollower.lines(of: log.path + ".1"))
        #expect(!rotated.isEmpty)
        #expect(try EventFollower(path: log.path).read().isEmpty)
        #expect(seqs(try EventFollower(path: log.path, from: .last(3)).read()) == [38, 39, 40])
        let from = rotated[1]
        #expect(seqs(try EventFollower(path: log.path, from: .after(seq: from)).read()) == Array((from + 1)...40))
    }

    @Test("the seq of a line is found without decoding it, and not in a label that looks like one")
    func seqScan() throws {
        let tricky = event(7, label: "\"seq\":99, seq 98 \\\"seq\\\":97")
        var numbered = tricky
        numbered.seq = 7
        let line = try numbered.jsonLine()
        #expect(EventLine(line).seq == 7)
        #expect(EventLine(Array("{\"seq\": 12}".utf8)).seq == 12)
        #expect(EventLine(Array("not json".utf8)).seq == nil)
        #expect(EventLine(Array("{\"alarm\":\"x\"}".utf8)).seq == nil)
    }
}

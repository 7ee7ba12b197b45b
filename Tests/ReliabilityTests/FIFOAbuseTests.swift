import AlarmTestSupport
import Foundation
import Testing

/// FIFO abuse (issue #6): random bytes, NULs, 1 MiB lines, 50 concurrent writers and writers
/// killed mid-line, against a running alarmd. While the abuse goes on and right after it, a real
/// `alarm ring` and `alarm stop` confirm within their 2 s; the daemon's resident memory grows by a
/// bounded amount; and a real `stop` still silences a ring afterwards.
@Suite(.serialized) struct FIFOAbuseTests {
    /// Resident memory the abuse may add (KiB): the line reader keeps at most 513 bytes, so what
    /// grows is allocator slack and log buffers, never the abuse's megabytes.
    static let rssGrowthBoundKiB = 4_096

    /// Counters shared by the abusing threads.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func add(_ key: String, _ n: Int = 1) {
            lock.lock()
            counts[key, default: 0] += n
            lock.unlock()
        }
        var snapshot: [String: Int] {
            lock.lock()
            defer { lock.unlock() }
            return counts
        }
    }

    /// Writes all of `bytes` to the FIFO through a non-blocking descriptor, waiting out a full
    /// FIFO (the daemon drains it) for at most `timeout` s. Returns the bytes written.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8], timeout: Double = 10, tally: Tally) -> Int {
        var done = 0
        let deadline = Date().addingTimeInterval(timeout)
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n > 0 {
                done += n
                continue
            }
            if n < 0 && errno == EAGAIN {
                tally.add("full FIFO waits")
                if Date() > deadline {
                    tally.add("writes given up")
                    return done
                }
                usleep(500)
                continue
            }
            tally.add("write errors")
            return done
        }
        tally.add("bytes", done)
        return done
    }

    static func openWriter(_ path: String) -> Int32 { open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }

    /// One round of every kind of abuse, on threads; returns when all have finished.
    static func abuse(_ fifo: String, seed: UInt64, flood: Bool, tally: Tally) {
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread.detachNewThread {
                body()
                group.leave()
            }
        }
        // Random bytes (NULs and newlines among them), in random pieces.
        spawn {
            var rng = SplitMix(state: seed)
            let fd = openWriter(fifo)
            defer { close(fd) }
            for _ in 0..<300 {
                let bytes = (0..<Int.random(in: 1...4_096, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }
                write(fd, bytes, tally: tally)
            }
            tally.add("random-byte pieces", 300)
        }
        // NUL lines, and a long run of NULs without a newline.
        if flood {
            spawn {
                let fd = openWriter(fifo)
                defer { close(fd) }
                for _ in 0..<200 { write(fd, [0, 0, 0] + Array("sto".utf8) + [0, 10], tally: tally) }
                write(fd, [UInt8](repeating: 0, count: 200_000) + [10], tally: tally)
                tally.add("NUL lines", 201)
            }
        }
        // 1 MiB lines.
        if flood {
            spawn {
                let fd = openWriter(fifo)
                defer { close(fd) }
                for i in 0..<4 {
                    let line = [UInt8](repeating: UInt8(ascii: i % 2 == 0 ? "r" : "s"), count: 1 << 20) + [10]
                    write(fd, line, timeout: 30, tally: tally)
                }
                tally.add("1 MiB lines", 4)
            }
        }
        // 50 concurrent writers of short bad lines.
        for w in 0..<50 {
            spawn {
                let fd = openWriter(fifo)
                defer { close(fd) }
                for i in 0..<40 {
                    // Never a valid command: the abuse must not ring or stop anything itself.
                    let junk = [
                        "bogus \(w) \(i)", "snooze forever", "ringring", "reload-all", "stopstop", "snooze -5m",
                        String(repeating: "x", count: 600),
                    ]
                    write(fd, Array(junk[(w + i) % junk.count].utf8) + [10], tally: tally)
                }
                tally.add("lines from 50 concurrent writers", 40)
            }
        }
        // Writers that vanish mid-line: in-process (close after half a line) and as processes
        // killed with SIGKILL after writing half a command.
        spawn {
            for i in 0..<100 {
                let fd = openWriter(fifo)
                // Never a whole command: the next writer's leading newline would complete it.
                write(fd, Array((i % 2 == 0 ? "rin" : "snoo").utf8), tally: tally)
                close(fd)
            }
            tally.add("writers closed mid-line", 100)
        }
        spawn {
            for _ in 0..<10 {
                guard
                    let p = try? Spawned(
                        "/bin/sh", ["-c", "exec 3>\"$0\"; printf 'sto' >&3; exec sleep 30", fifo], environment: [:])
                else {
                    tally.add("spawn errors")
                    continue
                }
                usleep(30_000)
                kill(p.pid, SIGKILL)
                _ = p.wait(timeout: 5)
                tally.add("writer processes killed mid-line")
            }
        }
        group.wait()
    }

    @Test(
        "random bytes, NULs, 1 MiB lines, 50 writers, writers killed mid-line: alarmd stays responsive and bounded, stop works"
    )
    func abuseTheFIFO() throws {
        let rig = try ReliabilityRig(config: "ring = 5m\n")
        defer { rig.shutdown() }
        guard try rig.start() != nil else {
            Issue.record("alarmd did not start: \(rig.log)")
            return
        }
        let began = Date()
        // Warm up the ring and stop paths, then take the baseline.
        #expect(try rig.cli("ring") == 0, "ring before abuse")
        #expect(try rig.cli("stop") == 0, "stop before abuse")
        Thread.sleep(forTimeInterval: 0.3)
        let before = try #require(rig.residentKiB())

        let tally = Tally()
        var confirmations = 0
        var busy = 0
        var refusals: [String] = []
        // Rounds with a flood of 1 MiB and NUL lines, then rounds without. The writers keep the
        // FIFO full most of the time, so a client may be told at once that it is full (exit 3:
        // a FIFO cannot favour one writer); what got in must be confirmed within 2 s (never
        // exit 1), and never may a client hang.
        for round in 0..<4 {
            let flood = round < 2
            let done = DispatchSemaphore(value: 0)
            let fifo = rig.fifoPath
            Thread.detachNewThread {
                Self.abuse(fifo, seed: UInt64(round + 1), flood: flood, tally: tally)
                done.signal()
            }
            // While the abuse goes on: real commands confirm.
            var abuseOver = false
            while !abuseOver {
                // ring, then stop (a stop only after a confirmed ring, until it is confirmed).
                var ringing = (rig.status()?["state"] as? String) == "ringing"
                for cmd in [ringing ? "stop" : "ring"] {
                    let t0 = Date()
                    let (code, output) = try rig.cliOutput(cmd)
                    let took = Date().timeIntervalSince(t0)
                    if code == 0 {
                        confirmations += 1
                        ringing = cmd == "ring"
                    } else if code == 3 && output.contains("full") && took < 1 {
                        busy += 1
                    } else {
                        refusals.append(
                            "round \(round): alarm \(cmd) exited \(code) after \(String(format: "%.2f", took)) s: \(output)"
                        )
                    }
                }
                abuseOver = done.wait(timeout: .now()) == .success
            }
            #expect(rig.isRunning, "alarmd died under abuse: \(rig.log.suffix(2_000))")
            guard rig.isRunning else { return }
        }
        // Right after: the daemon answers, a real ring is silenced by a real stop.
        if (rig.status()?["state"] as? String) == "ringing" {
            #expect(try rig.cli("stop") == 0, "stop of the last ring")
        }
        #expect(try rig.cli("ring") == 0, "ring after abuse")
        #expect(rig.wait(10) { (rig.status()?["state"] as? String) == "ringing" })
        #expect(try rig.cli("stop") == 0, "stop after abuse")
        #expect(
            rig.wait(10) { (rig.status()?["state"] as? String) == "idle" }, "status after stop: \(rig.status() ?? [:])")
        Thread.sleep(forTimeInterval: 0.3)
        let after = try #require(rig.residentKiB())
        let ignored = rig.log.components(separatedBy: "ignored control line").count - 1
        let counts = tally.snapshot
        print(
            "FIFO abuse: 4 rounds (2 with floods) in \(String(format: "%.1f", Date().timeIntervalSince(began))) s; \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); daemon logged \(ignored) ignored lines; \(confirmations) ring/stop confirmed during abuse, \(busy) told at once that the flooded FIFO is full, \(refusals.count) failed; VmRSS \(before) KiB before, \(after) KiB after (+\(after - before), bound \(Self.rssGrowthBoundKiB))"
        )
        #expect(refusals.isEmpty, "real commands were not confirmed during abuse:\n\(refusals.joined(separator: "\n"))")
        #expect(confirmations >= 4, "real commands should get through during the abuse")
        #expect(after - before <= Self.rssGrowthBoundKiB, "VmRSS grew from \(before) to \(after) KiB")
        #expect(ignored > 1_000, "the abuse should reach the daemon (\(ignored) ignored lines logged)")
        #expect(rig.stop() == 0, "alarmd exits cleanly on SIGTERM after the abuse")
    }

    @Test("alarm ring while a manual ring already rings: confirmed, exit 0")
    func ringWhileRinging() throws {
        let rig = try ReliabilityRig(config: "ring = 5m\n")
        defer { rig.shutdown() }
        try #require(try rig.start() != nil, "alarmd did not start: \(rig.log)")
        #expect(try rig.cli("ring") == 0)
        let second = try rig.cliOutput("ring")
        #expect(second.code == 0, "second ring: \(second.output)")
        #expect(try rig.cli("stop") == 0)
        #expect(rig.stop() == 0)
    }
}

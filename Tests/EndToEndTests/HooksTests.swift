import AlarmTestSupport
import Foundation
import Testing

/// Issue #13: `alarm-hooks` against a real alarmd: hooks get each event as JSON on stdin and the
/// ALARM_* variables; a slow hook is killed at hook_timeout and holds up neither the ring nor the
/// other hooks; failures are logged.
@Suite("alarm-hooks end to end (issue #13)", .serialized)
struct HooksTests {
    static let a440 = DaemonHarness.a440

    func write(_ path: String, _ text: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// Splits what the recording hook wrote into runs: (the stdin JSON, the ALARM_* variables).
    func runs(_ path: String) -> [(event: [String: Any], env: [String: String])] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // Whole runs only: the last block may still be being written.
        return text.components(separatedBy: "---\n").dropLast().compactMap { block in
            let lines = block.split(separator: "\n").map(String.init)
            guard let first = lines.first,
                let object = try? JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
            else { return nil }
            var env: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let eq = line.firstIndex(of: "=") else { continue }
                env[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            return (object, env)
        }
    }

    @Test(
        "a ring runs every hook: the event on stdin, ALARM_EVENT/ID/LABEL/SCHEDULED set; a slow hook is killed at the time limit without delaying the ring or the others; a failing one is logged"
    )
    func hooksAtARing() throws {
        let h = try DaemonHarness(config: "ring = 30s\nhook_timeout = 2s\n", withA440: true)
        defer { h.shutdown() }
        let hooks = h.root + "/hooks.d"
        let record = h.root + "/record.txt"
        let slowPids = h.root + "/slow.pids"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        try write(hooks + "/10-record", "#!/bin/sh\n{ cat; env | grep '^ALARM_' | sort; echo ---; } >> '\(record)'\n")
        // Starts a child of its own and waits: the time limit must kill both.
        try write(hooks + "/20-slow", "#!/bin/sh\nsleep 60 &\necho $! >> '\(slowPids)'\nwait\n")
        try write(hooks + "/30-fail", "#!/bin/sh\necho 'no lights today' >&2\nexit 3\n")
        try "not a program".write(toFile: hooks + "/40-notes", atomically: true, encoding: .utf8)
        h.environment["ALARM_HOOKS_DIR"] = hooks
        try h.start()
        let runner = try Follower(h, "alarm-hooks", [], output: h.root + "/hooks.log", mergeStderr: true)
        defer { runner.stop() }
        #expect(runner.waitUntilWatching(), "alarm-hooks did not start: \(runner.text)")

        let due = Date().addingTimeInterval(3)
        #expect(
            try h.cli("add", "--in", "3s", "--id", "hooked", "--label", "Hook me", "--sound", Self.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(
            h.wait(10) { runs(record).contains { $0.event["event"] as? String == "ringing" } },
            "the hook got no ringing: \(runner.text)")
        let ring = try #require(runs(record).first { $0.event["event"] as? String == "ringing" })
        #expect(ring.event["alarm"] as? String == "hooked")
        #expect(ring.env["ALARM_EVENT"] == "ringing")
        #expect(ring.env["ALARM_ID"] == "hooked")
        #expect(ring.env["ALARM_LABEL"] == "Hook me")
        #expect(ring.env["ALARM_SCHEDULED"] == ring.event["scheduled"] as? String)
        #expect(ring.env["ALARM_SOUND"] == Self.a440)
        #expect(ring.env["ALARM_SEQ"] == "\(ring.event["seq"] as? Int ?? -1)")
        #expect(ring.env["ALARM_RUNTIME_DIR"] == h.runtimeDir)

        // The slow hook is still on its first event (alarms-changed); the others are not held up.
        let stopAt = Date()
        #expect(try h.cli("stop").status == 0)
        #expect(
            h.wait(10) { runs(record).contains { $0.event["event"] as? String == "stopped" } },
            "the hook got no stopped: \(runner.text)")
        #expect(Date().timeIntervalSince(stopAt) < 1.8, "the record hook waited for the slow one")

        // The ring was on time: the first frame within a second of its instant.
        let entry = try #require(h.history().first { $0.string("alarm") == "hooked" })
        let scheduled = try #require(entry.string("scheduled").flatMap(parseRFC3339))
        let started = try #require(entry.string("started").flatMap(parseRFC3339))
        #expect(abs(scheduled.timeIntervalSince(due)) < 1.5)
        #expect(started.timeIntervalSince(scheduled) < 1.0, "started \(started) for \(scheduled)")

        // The slow hook: killed at 2 s for each event (alarms-changed, ringing, stopped, …) in turn.
        let events = h.lastSeq
        #expect(events >= 3)
        #expect(
            h.wait(30) { runner.text.components(separatedBy: "20-slow for ").count - 1 == events }, "\(runner.text)")
        let log = runner.text
        #expect(log.contains("20-slow for alarms-changed (seq 1) was killed after 2s (hook_timeout)"), "\(log)")
        #expect(log.contains("20-slow for ringing of 'hooked'") && log.contains("was killed after 2s"), "\(log)")
        #expect(log.contains("30-fail for ringing of 'hooked'") && log.contains("exited with status 3"), "\(log)")
        #expect(log.contains("no lights today"), "a hook's stderr goes to the runner's (the journal)")
        #expect(log.contains("40-notes is not an executable file"), "\(log)")
        // Their children died with them. SIGKILL went to the hook's whole process group when the
        // runner killed it, but a member that got it dies when the kernel next schedules it: on a
        // loaded machine that can be after its parent, the hook, was reaped and logged (issue #40,
        // seen in CI: state S a moment after the log line). So each is given time to go; a child
        // that escaped the group would still be sleeping, in state S, at the end of the wait.
        let pids = ((try? String(contentsOfFile: slowPids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            Int32($0)
        }
        #expect(pids.count == events)
        func state(_ pid: Int32) -> Substring? {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2)
                .first
        }
        for pid in pids {
            #expect(h.wait(10) { state(pid) == nil || state(pid) == "Z" }, "the slow hook's sleep \(pid) still runs")
        }
        // In order, each once, for the record hook.
        let seqs = runs(record).compactMap { $0.event["seq"] as? Int }
        #expect(seqs == Array(1...(seqs.last ?? 0)), "\(seqs)")
    }
}

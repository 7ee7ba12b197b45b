import AlarmCore
import AlarmDaemon
import AlarmState
import AlarmTestSupport
import Foundation
import Testing

/// Crash safety (issue #6): kill -9 the daemon and the CLI at random moments while alarms are
/// added, removed and rung, hundreds of times. After every round the store loads, every
/// acknowledged change (an `alarm add` / `alarm remove` that exited 0) is there, and the daemon
/// restarts; at the end every acknowledged ring-soon alarm has rung to an end, and no occurrence
/// rang twice: per (alarm, scheduled) history holds any number of `snoozed` episodes (a snooze
/// re-rings the same occurrence) followed by at most one ending (`stopped`, `silenced`, `missed`,
/// `failed`), and nothing after it.
@Suite(.serialized) struct CrashSafetyTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["CRASH_ROUNDS"] ?? "") ?? 240
    /// The random sequence of operations and kills: fixed, so a CI failure can be replayed;
    /// `CRASH_SEED=N` walks another (repeated runs should each take a new one).
    static let seed = UInt64(ProcessInfo.processInfo.environment["CRASH_SEED"] ?? "") ?? 0xA1A2_0006

    enum Known: Equatable { case present, absent, unknown }

    enum Victim: String, CaseIterable { case daemon, cli, both, none }

    @Test(
        "kill -9 of alarmd and alarm at random moments: the store loads, nothing acknowledged is lost, nothing rings twice"
    )
    func killNineRounds() throws { try rounds(strict: false) }

    @Test(
        "kill -9 at random moments: every acknowledged alarm's ring ends in history and a rung --in alarm leaves the store"
    )
    func killNineKeepsHistoryAndStore() throws { try rounds(strict: true) }

    func rounds(strict: Bool) throws {
        // Short rings and snoozes so occurrences end within the run; instant audio.
        let rig = try ReliabilityRig(config: "ring = 1s\nsnooze = 1s\ngrace = 10m\n")
        defer { rig.shutdown() }
        var rng = SplitMix(state: Self.seed)
        let store = AlarmStore(stateDir: rig.stateDir, lockTimeout: 10)

        var keep: [String: Known] = [:]  // far-future alarms: their presence is checked every round
        var mustRing = Set<String>()  // ring-soon alarms whose add was acknowledged (or took effect)
        var pendingRing = Set<String>()  // ring-soon adds killed mid-way: resolved from the store
        var failures: [String] = []
        var knownBug: [String] = []  // what the disabled strict variant fails on
        var kills: [Victim: Int] = [:]
        var acknowledged = 0
        var killedCLIs = 0
        var restarts = 0
        var slowestStart = 0.0
        let began = Date()
        let trace = ProcessInfo.processInfo.environment["RELIABILITY_KEEP"] == "1"

        func fail(_ round: Int, _ what: String) { failures.append("round \(round): \(what)") }

        for round in 0..<Self.rounds {
            if !rig.isRunning {
                guard let took = try rig.start() else {
                    fail(round, "alarmd did not restart: \(rig.log.suffix(2_000))")
                    break
                }
                slowestStart = max(slowestStart, took)
                restarts += 1
            }
            // One operation.
            let op = Int.random(in: 0..<100, using: &rng)
            var args: [String]
            var onAck: () -> Void = {}
            var onKill: () -> Void = {}
            if op < 35 || keep.isEmpty {
                let id = "k\(round)"
                args =
                    Bool.random(using: &rng)
                    ? ["add", "*-12-25 04:00", "--id", id] : ["add", "--at", "2099-01-01T04:00:00Z", "--id", id]
                onAck = { keep[id] = .present }
                onKill = { keep[id] = .unknown }
            } else if op < 55 {
                let candidates = keep.filter { $0.value == .present }.map(\.key).sorted()
                guard let id = candidates.randomElement(using: &rng) else { continue }
                args = ["remove", id]
                onAck = { keep[id] = .absent }
                onKill = { keep[id] = .unknown }
            } else if op < 80 {
                let id = "r\(round)"
                args = ["add", "--in", "\(Int.random(in: 1...3, using: &rng))s", "--id", id]
                onAck = { mustRing.insert(id) }
                onKill = { pendingRing.insert(id) }
            } else if op < 88 {
                args = ["ring"]
            } else if op < 94 {
                args = ["snooze", "1s"]
            } else {
                args = ["stop"]
            }
            let cli = try rig.spawnCLI(args)
            // Mostly within the CLI's own run (tens of milliseconds), sometimes later.
            usleep(
                Int.random(in: 0..<4, using: &rng) == 0
                    ? UInt32.random(in: 0...400_000, using: &rng) : UInt32.random(in: 0...60_000, using: &rng))
            let victim = Victim.allCases[[0, 0, 0, 0, 1, 1, 1, 2, 2, 3][Int.random(in: 0..<10, using: &rng)]]
            kills[victim, default: 0] += 1
            if victim == .cli || victim == .both { kill(cli.pid, SIGKILL) }
            if victim == .daemon || victim == .both { rig.crash() }
            let code = cli.wait(timeout: 15)
            if code == nil { cli.terminate() }
            if code == 0 {
                acknowledged += 1
                onAck()
            } else {
                killedCLIs += victim == .cli || victim == .both ? 1 : 0
                onKill()
            }

            if trace {
                let state = (try? String(contentsOfFile: rig.stateDir + "/state.json", encoding: .utf8)) ?? "-"
                let ring = state.range(of: "\"ring\"").map { String(state[$0.lowerBound...]) } ?? state
                let line =
                    "round \(round) \(args) victim \(victim) code \(code.map(String.init) ?? "-") state \(ring.prefix(300))"
                try? rig.appendTrace(line)
            }
            // The store loads, and holds every acknowledged change.
            let alarms: [Alarm]
            do { alarms = try store.load() } catch {
                fail(round, "the store does not load after \(args) with \(victim) killed: \(error)")
                break
            }
            let ids = Set(alarms.map(\.id))
            for (id, known) in keep {
                switch known {
                case .present where !ids.contains(id): fail(round, "acknowledged add of \(id) lost")
                case .absent where ids.contains(id): fail(round, "acknowledged remove of \(id) lost")
                case .unknown: keep[id] = ids.contains(id) ? .present : .absent
                default: break
                }
            }
            for id in pendingRing where ids.contains(id) { mustRing.insert(id) }
            pendingRing.removeAll()
        }

        // Let every ring-soon alarm ring to its end, then stop cleanly.
        if !rig.isRunning { _ = try rig.start() }
        let drained = rig.wait(60) {
            let left = ((try? store.load()) ?? []).filter { $0.id.hasPrefix("r") }
            return left.isEmpty && (rig.status()?["state"] as? String) == "idle"
        }
        let stale = ((try? store.load()) ?? []).filter { $0.id.hasPrefix("r") }.map(\.id)
        if !drained {
            let text = "ring-soon alarms \(stale) still stored or not idle after 60 s: status \(rig.status() ?? [:])"
            if strict || stale.isEmpty { failures.append(text) } else { knownBug.append(text) }
        }
        let code = rig.stop()
        if code != 0 {
            failures.append("alarmd did not exit cleanly on SIGTERM: \(code.map(String.init) ?? "timeout")")
        }

        // Nothing rang twice; everything acknowledged rang.
        let (entries, unreadable) = try HistoryLog(stateDir: rig.stateDir).read()
        if unreadable > 0 { failures.append("\(unreadable) unreadable history lines") }
        struct Key: Hashable {
            var alarm: String
            var scheduled: Date
        }
        var episodes: [Key: [RingOutcome]] = [:]
        for e in entries {
            if let id = e.alarm { episodes[Key(alarm: id, scheduled: e.scheduled), default: []].append(e.outcome) }
        }
        var twice = 0
        for (k, outcomes) in episodes {
            let endings = outcomes.filter { $0 != .snoozed }
            if endings.count > 1 || (endings.count == 1 && outcomes.last == .snoozed) {
                twice += 1
                failures.append("\(k.alarm) at \(k.scheduled) rang twice: \(outcomes)")
            }
        }
        // An occurrence whose history ends in `snoozed` is fine when the snooze was ended on
        // purpose: `alarm stop` while snoozed, or a newer ring that superseded it. The engine logs
        // both, but a kill -9 may cut the log lines that follow a persisted change, so a ring
        // that started after the snooze also counts. An occurrence that rang together with
        // another follows that one.
        let log = rig.log
        func primary(of id: String) -> String {
            for line in log.split(separator: "\n") where line.contains("together with") && line.contains("'\(id)' at") {
                if let open = line.range(of: "ringing '"), let close = line[open.upperBound...].firstIndex(of: "'") {
                    return String(line[open.upperBound..<close])
                }
            }
            return id
        }
        func snoozeEndedOnPurpose(_ id: String) -> Bool {
            let p = primary(of: id)
            if let snoozed = entries.last(where: { $0.alarm == id && $0.outcome == .snoozed })?.ended,
                entries.contains(where: { ($0.started ?? $0.ended ?? .distantPast) > snoozed })
            {
                return true
            }
            return log.contains("'\(p)' stopped while snoozed")
                || log.split(separator: "\n").contains {
                    $0.contains("snooze of '\(p)' until") && $0.contains("dropped")
                }
        }
        let ended = Set(episodes.filter { $0.value.contains { $0 != .snoozed } }.map(\.key.alarm))
        var lostSnoozes: [String] = []
        var noHistory: [String] = []
        for id in mustRing.sorted() where !ended.contains(id) {
            let outcomes = episodes.filter { $0.key.alarm == id }.map(\.value)
            if outcomes.isEmpty {
                noHistory.append(id)
                (strict ? { failures.append($0) } : { knownBug.append($0) })(
                    "acknowledged alarm \(id) has no history entry")
            } else if !snoozeEndedOnPurpose(id) {
                lostSnoozes.append(id)
                (strict ? { failures.append($0) } : { knownBug.append($0) })(
                    "acknowledged alarm \(id) was snoozed and never rang again, with no stop and no newer ring: \(outcomes)"
                )
            }
        }
        let missed = entries.filter { $0.outcome == .missed }.count

        print(
            "crash safety (seed \(Self.seed)): \(Self.rounds) rounds in \(String(format: "%.1f", Date().timeIntervalSince(began))) s; kill -9 of alarmd \(kills[.daemon, default: 0]), of alarm \(kills[.cli, default: 0]), of both \(kills[.both, default: 0]), none \(kills[.none, default: 0]); \(killedCLIs) CLI runs cut short, \(acknowledged) acknowledged; \(restarts) daemon starts (slowest \(String(format: "%.2f", slowestStart)) s); \(keep.count) far alarms tracked, \(mustRing.count) ring-soon alarms, \(entries.count) history entries over \(episodes.count) occurrences (\(missed) missed); acknowledged ring-soon alarms without any history entry \(noHistory.count) \(noHistory), left in the store \(stale.count), snoozes lost without a stop or a newer ring \(lostSnoozes.count) \(lostSnoozes) (the known bug: \(knownBug.count) findings); \(failures.count) failures"
        )
        #expect(
            failures.isEmpty,
            "\(failures.count) failures:\n\(failures.prefix(30).joined(separator: "\n"))\n\(failures.isEmpty ? "" : String(rig.log.suffix(3_000)))"
        )
        let killRounds = kills[.daemon, default: 0] + kills[.cli, default: 0] + kills[.both, default: 0]
        #expect(
            killRounds >= 200 && kills[.daemon, default: 0] + kills[.both, default: 0] >= 100 && mustRing.count >= 20,
            "the run should kill -9 at least 200 times and ring a lot: \(killRounds) kill rounds, \(mustRing.count) rings"
        )
    }
}

import Foundation
import Testing

@testable import AlarmCore

/// The core's deterministic generator (SplitMix64), seeded by the test, so a failing seed replays.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    init(seed: UInt64) { self.init(state: seed) }
}

/// Many simulated days of random snoozes, stops, zone swaps, clock jumps, restarts, reloads and
/// manual rings.
/// An independent bookkeeper works out from the timeline alone which occurrences must ring (on
/// time, or late after a jump or a restart within grace) and which must be recorded as missed;
/// the engine's actions must match it exactly: nothing rings twice, nothing is left out, nothing
/// rings that should not.
@Suite struct EngineSoakTests {
    struct Key: Hashable, CustomStringConvertible {
        var alarm: String
        var at: Date
        var description: String { "\(alarm)@\(RFC3339.format(at, in: Zone.utc))" }
    }

    enum Expect: Equatable {
        case onTime
        case late(Bool)
        case missed
    }

    struct Bookkeeper {
        let alarms: [Alarm]
        let settings: EngineSettings
        /// The latest instant the engine was told about: occurrences at or before it were
        /// handled (the engine only learns that time passed through events).
        var reached: Date
        var expected: [Key: Expect] = [:]

        /// Time ran continuously from `from` to `to` in `zone` (the daemon was up, no clock set).
        mutating func ran(from: Date, to: Date, zone: Zone) {
            for (a, t) in occurrences(from: from, to: to, zone: zone) { expect(Key(alarm: a.id, at: t), .onTime) }
        }

        /// The clock jumped, or the daemon was down, from `from` to `to`.
        mutating func skipped(from: Date, to: Date, zone: Zone) {
            for (a, t) in occurrences(from: from, to: to, zone: zone) {
                let late = to.timeIntervalSince(t)
                expect(Key(alarm: a.id, at: t), late > settings.grace ? .missed : .late(late > 0))
            }
        }

        private mutating func expect(_ k: Key, _ e: Expect) {
            if let old = expected[k] { Issue.record("bookkeeper saw \(k) twice (\(old), \(e))") }
            expected[k] = e
        }

        /// Occurrences in (max(from, reached), to]: what lies before `reached` was handled already.
        private func occurrences(from: Date, to: Date, zone: Zone) -> [(Alarm, Date)] {
            var out: [(Alarm, Date)] = []
            let start = max(from, reached)
            guard start < to else { return out }
            for a in alarms {
                var t = start
                while let n = a.nextRing(after: t, systemZone: zone), n <= to {
                    out.append((a, n))
                    t = n
                }
            }
            return out
        }
    }

    static let zones = [
        "Europe/London", "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Lord_Howe", "UTC",
        "Asia/Kolkata", "Pacific/Chatham",
    ]

    func alarms() throws -> [Alarm] {
        var list = [
            try alarm("weekday", "Mon..Fri 06:30"),
            try alarm("daily", "07:00"),
            try alarm("same", "07:00"),  // coincides with "daily"
            try alarm("night", "02:30"),  // in DST gaps somewhere
            try alarm("overlap", "01:30"),
            try alarm("pinned", "08:15 America/New_York"),
            try alarm("pinned2", "Sat,Sun 09:00 Australia/Lord_Howe"),
            try alarm("often", "*-*-* 0/5:10:00", snooze: 60, ring: 120),
            try alarm("monthly", "*-*-01 12:00"),
        ]
        let base = at("2026-03-01T00:00:00Z")
        for i in 0..<12 {
            list.append(instantAlarm("at\(i)", base.addingTimeInterval(Double(i) * 4.7 * 86400 + 3600 * Double(i % 5))))
        }
        return list
    }

    /// With `when_ignored = silence` (the rig's) and with the default, `snooze`: a ring nobody
    /// answers snoozes itself up to its limit, then ends `ignored`; each occurrence still ends once.
    @Test(arguments: 1...12, [WhenIgnored.silence, .snooze])
    func everyOccurrenceRingsExactlyOnceThroughRandomDays(seed: Int, whenIgnored: WhenIgnored) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 7919)
        let list = try alarms()
        var settings = Rig.settings
        settings.whenIgnored = whenIgnored
        var z = zone(Self.zones[seed % Self.zones.count])
        let start = at("2026-03-01T00:00:00Z")
        let end = at("2026-04-30T00:00:00Z")
        var rig = Rig(list, now: start, zone: z, settings: settings)
        var book = Bookkeeper(alarms: list, settings: settings, reached: start)
        var steps = 0

        var trace: [String] = []
        func note(_ what: String, _ rig: Rig) {
            trace.append("\(RFC3339.format(rig.now, in: Zone.utc)) \(rig.zone.identifier): \(what)")
        }
        while rig.now < end {
            steps += 1
            let h0 = rig.history.count
            let r0 = rig.rings.count
            let from = rig.now
            let (_, roll) = try Self.step(&rig, &book, &z, &rng, zones: Self.zones)
            note(
                "from \(RFC3339.format(from, in: Zone.utc)) roll \(roll) rings \(rig.rings[r0...].map { "\($0.alarm ?? "-")@\($0.scheduled)" }) history \(rig.history[h0...].map { "\($0.alarm ?? "-")@\($0.scheduled) \($0.outcome)" })",
                rig)
        }
        if ProcessInfo.processInfo.environment["SOAK_TRACE"] == "\(seed)" { print(trace.joined(separator: "\n")) }
        // What still rings or waits in a snooze at the end is stopped, so that it ends too.
        if rig.playing != nil || rig.status?.state == .snoozed { rig.send(.stop) }
        try check(rig, book, seed: seed, steps: steps)
        if whenIgnored == .snooze {
            // The soak let rings go unanswered: some snoozed themselves, and some of those ended ignored.
            #expect(rig.history.contains { $0.outcome == .ignored }, "seed \(seed): no ring was ignored")
        }
    }

    /// What one random step of a soak did.
    enum Step { case reacted, ran, zoneSwap, jump, restart, reload, ringNow }

    /// One random step of a soak, shared by the soaks: someone reacts to a ring (snooze or stop,
    /// sometimes after the ring length), time passes (up to `idleMax` seconds, with probability
    /// `idleUpTo` − 0.5), the zone changes, the clock jumps forward (within grace or far) or back,
    /// the daemon restarts through JSON, the store is reloaded, or someone rings now. Returns the
    /// step and the roll that chose it.
    static func step(
        _ rig: inout Rig, _ book: inout Bookkeeper, _ z: inout Zone, _ rng: inout SeededRandom, zones: [String],
        idleUpTo: Double = 0.75, idleMax: Int = 8 * 3600
    ) throws -> (Step, Double) {
        let roll = Double.random(in: 0..<1, using: &rng)
        let from = rig.now
        let step: Step
        if rig.playing != nil, roll < 0.5 {
            // Someone reacts after a while (sometimes after the ring length: auto-silence).
            let to = from.addingTimeInterval(Double(Int.random(in: 0...900, using: &rng)))
            rig.run(until: to)
            book.ran(from: from, to: to, zone: z)
            if rig.playing != nil {
                if Bool.random(using: &rng) {
                    rig.send(.snooze(Bool.random(using: &rng) ? nil : Double(Int.random(in: 1...600, using: &rng))))
                } else {
                    rig.send(.stop)
                }
            }
            step = .reacted
        } else if roll < idleUpTo {
            let to = from.addingTimeInterval(Double(Int.random(in: 1...idleMax, using: &rng)))
            rig.run(until: to)
            book.ran(from: from, to: to, zone: z)
            step = .ran
        } else if roll < 0.82 {
            z = zone(zones.randomElement(using: &rng)!)
            rig.changeZone(z)
            step = .zoneSwap
        } else if roll < 0.88 {
            // Forward jump: small (within grace) or large.
            let by =
                Bool.random(using: &rng)
                ? Int.random(in: 1...700, using: &rng) : Int.random(in: 1...(30 * 3600), using: &rng)
            let to = from.addingTimeInterval(Double(by))
            rig.jump(to: to)
            book.skipped(from: from, to: to, zone: z)
            step = .jump
        } else if roll < 0.93 {
            rig.jump(to: from.addingTimeInterval(-Double(Int.random(in: 1...(5 * 3600), using: &rng))))
            step = .jump
        } else if roll < 0.97 {
            let to = from.addingTimeInterval(Double(Int.random(in: 0...(3 * 3600), using: &rng)))
            rig.persisted = try rig.persisted.map {
                try JSONDecoder().decode(EngineState.self, from: JSONEncoder().encode($0))
            }
            rig.restart(at: to)
            book.skipped(from: from, to: to, zone: z)
            step = .restart
        } else if roll < 0.985 {
            rig.send(.alarmsChanged(rig.store))
            step = .reload
        } else {
            rig.send(.ringNow(sound: nil))
            step = .ringNow
        }
        book.reached = max(book.reached, rig.latestEvent)
        return (step, roll)
    }

    func check(_ rig: Rig, _ book: Bookkeeper, seed: Int, steps: Int) throws {
        // Replay what happened per occurrence: fresh rings, re-rings and history, in order.
        enum Happening {
            case ring(late: Bool, at: Date)
            case entry(HistoryEntry)
        }
        var seen: [Key: [Happening]] = [:]
        var order: [(Key, Happening)] = []
        for (r, t) in zip(rig.rings, rig.ringTimes) {
            guard let id = r.alarm else { continue }
            order.append((Key(alarm: id, at: r.scheduled), .ring(late: r.late, at: t)))
        }
        // History and rings are separate streams; what matters per key is terminal-ness.
        var terminal: Set<Key> = []
        var terminalCount: [Key: Int] = [:]
        for e in rig.history {
            guard let id = e.alarm else { continue }
            let k = Key(alarm: id, at: e.scheduled)
            seen[k, default: []].append(.entry(e))
            if e.outcome != .snoozed {
                terminalCount[k, default: 0] += 1
                terminal.insert(k)
            }
        }
        for (k, h) in order { seen[k, default: []].append(h) }

        var problems: [String] = []
        for (k, n) in terminalCount where n > 1 { problems.append("\(k) ended \(n) times") }
        // Every occurrence that rang ends with an entry other than `snoozed` (stopped, silenced,
        // ignored, missed, ...): a snooze stopped or superseded has an entry of its own (issue
        // #23), and a snooze, by hand or by itself, that just never comes back is a silent alarm.
        for k in Set(order.map(\.0)) where !terminal.contains(k) {
            let entries = (seen[k] ?? []).compactMap { (h: Happening) -> HistoryEntry? in
                if case .entry(let e) = h { e } else { nil }
            }
            problems.append("\(k) rang and never ended: its history is \(entries.map(\.outcome))")
        }
        // Every fresh ring of a key comes before its terminal entry: at most one "first ring".

        for (k, happenings) in seen {
            guard let expect = book.expected[k] else {
                problems.append("\(k) happened but was never due: \(happenings.count) event(s)")
                continue
            }
            let entries = happenings.compactMap { if case .entry(let e) = $0 { e } else { nil } }
            let rings = happenings.compactMap { if case .ring(let late, let t) = $0 { (late, t) } else { nil } }
            switch expect {
            case .missed:
                if !rings.isEmpty { problems.append("\(k) should be missed but rang") }
                if entries.first?.outcome != .missed {
                    problems.append("\(k) should be missed: \(entries.map(\.outcome))")
                }
            case .onTime, .late:
                let merged = entries.first?.reason?.contains("rang together with") == true
                if rings.isEmpty && !merged {
                    problems.append("\(k) should ring but did not: \(entries.map(\.outcome))")
                }
                if entries.first?.outcome == .missed { problems.append("\(k) should ring but was recorded missed") }
                if let first = entries.first {
                    let late: Bool = { if case .late(let l) = expect { return l } else { return false } }()
                    if first.late != late && !merged { problems.append("\(k) late \(first.late), expected \(late)") }
                }
                if case .onTime = expect, let r = rings.first, r.1 != k.at, !merged {
                    problems.append("\(k) rang at \(r.1), not on time")
                }
            }
        }
        for (k, e) in book.expected where seen[k] == nil {
            problems.append("\(k) was due (\(e)) but nothing happened: silent")
        }
        let summary = problems.prefix(20).joined(separator: "\n")
        #expect(problems.isEmpty, "seed \(seed), \(steps) steps, \(book.expected.count) occurrences:\n\(summary)")
        #expect(
            book.expected.count > 100, "the soak should cover many occurrences (seed \(seed): \(book.expected.count))")
    }
}

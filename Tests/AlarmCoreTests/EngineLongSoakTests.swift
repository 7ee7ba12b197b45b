import Foundation
import Testing

@testable import AlarmCore

/// The reliability suite's time soak (issue #6): at least 1,000 simulated days through the zones
/// with the oddest clocks (half-hour and 45-minute offsets, 30-minute DST in Lord Howe, Dublin's
/// negative DST, Apia skipping 30 December 2011, Casablanca's Ramadan flips, Troll's two-hour DST,
/// Moscow's 2011 and 2014 changes), with DST changes, zone swaps, forward and backward clock jumps,
/// restarts, snoozes and stops.
///
/// It reuses `EngineSoakTests`' independent bookkeeper and its per-occurrence check: every
/// occurrence rings exactly once at its instant (late within grace after a forward jump or a
/// restart; recorded missed beyond), nothing rings twice, nothing rings that was not due.
@Suite struct EngineLongSoakTests {
    static let zones = [
        "America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Chatham", "Pacific/Apia",
        "Asia/Kolkata", "Australia/Sydney", "America/Santiago", "Asia/Kathmandu", "Africa/Casablanca",
        "Antarctica/Troll",
        "America/St_Johns", "Pacific/Kiritimati", "Europe/Moscow", "Asia/Tehran", "UTC",
    ]

    /// Eras: one that holds Apia's skipped day and Moscow's changes, one around now.
    static let eras = ["2011-06-01T00:00:00Z", "2025-01-01T00:00:00Z"]

    static let daysPerRun = 250
    static let seeds = 1...4

    func alarms(from start: Date, days: Int) throws -> [Alarm] {
        var list = [
            try alarm("weekday", "Mon..Fri 06:30"),
            try alarm("daily", "07:00"),
            try alarm("same", "07:00"),  // coincides with "daily"
            try alarm("gap", "02:30"),  // in a DST gap somewhere (one hour, or Lord Howe's 30 minutes)
            try alarm("gap2", "02:15"),
            try alarm("overlap", "01:30"),  // twice on fall-back nights
            try alarm("midnight", "00:00"),  // Apia's skipped day, Casablanca's midnight flips
            try alarm("pinned-ny", "08:15 America/New_York"),
            try alarm("pinned-lh", "Sat,Sun 02:10 Australia/Lord_Howe"),
            try alarm("pinned-apia", "*-*-* 23:30 Pacific/Apia"),
            try alarm("pinned-chatham", "Mon,Thu 02:45 Pacific/Chatham"),
            try alarm("often", "*-*-* 0/6:10:00", snooze: 60, ring: 120),
            try alarm("monthly", "*-*-01 12:00"),
            try alarm("leap", "*-02-29 06:00"),
        ]
        for i in 0..<40 {
            let offset = Double(i) * Double(days) * 86400 / 40 + 3600 * Double(i % 7) + 60 * Double(i % 13)
            list.append(instantAlarm("at\(i)", start.addingTimeInterval(offset)))
        }
        return list
    }

    @Test(
        "1,000 simulated days in many zones: every occurrence rings exactly once, at its instant",
        arguments: Array(Self.seeds))
    func thousandDays(seed: Int) throws {
        var occurrences = 0
        var steps = 0
        var zoneSwaps = 0
        var jumps = 0
        var restarts = 0
        let began = Date()
        for (e, era) in Self.eras.enumerated() {
            let run = try soak(seed: seed * 10 + e, start: at(era), days: Self.daysPerRun / Self.eras.count)
            occurrences += run.occurrences
            steps += run.steps
            zoneSwaps += run.zoneSwaps
            jumps += run.jumps
            restarts += run.restarts
        }
        print(
            "time soak seed \(seed): \(Self.daysPerRun) days, \(steps) steps, \(occurrences) occurrences checked, \(zoneSwaps) zone swaps, \(jumps) clock jumps, \(restarts) restarts, \(String(format: "%.1f", Date().timeIntervalSince(began))) s (failures are reported as issues above)"
        )
    }

    struct Figures { var occurrences = 0, steps = 0, zoneSwaps = 0, jumps = 0, restarts = 0 }

    func soak(seed: Int, start: Date, days: Int) throws -> Figures {
        var rng = SeededRandom(seed: UInt64(seed) &* 104_729)
        let list = try alarms(from: start, days: days)
        // Half the eras with the default `when_ignored = snooze` (a ring nobody answers snoozes
        // itself, then ends ignored), half with `silence`.
        var settings = Rig.settings
        settings.whenIgnored = seed.isMultiple(of: 2) ? .snooze : .silence
        var z = zone(Self.zones[seed % Self.zones.count])
        let end = start.addingTimeInterval(Double(days) * 86400)
        var rig = Rig(list, now: start, zone: z, settings: settings)
        var book = EngineSoakTests.Bookkeeper(alarms: list, settings: settings, reached: start)
        var f = Figures()

        while rig.now < end {
            f.steps += 1
            // Longer quiet stretches than the 60-day soak: 1,000 days in reasonable time.
            switch try EngineSoakTests.step(
                &rig, &book, &z, &rng, zones: Self.zones, idleUpTo: 0.72, idleMax: 12 * 3600
            ).0 {
            case .zoneSwap: f.zoneSwaps += 1
            case .jump: f.jumps += 1
            case .restart: f.restarts += 1
            case .reacted, .ran, .reload, .ringNow: break
            }
        }
        // What still rings or waits in a snooze at the end is stopped, so that it ends too.
        if rig.playing != nil || rig.status?.state == .snoozed { rig.send(.stop) }
        try EngineSoakTests().check(rig, book, seed: seed, steps: f.steps)
        f.occurrences = book.expected.count
        return f
    }
}

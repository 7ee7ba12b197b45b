import AlarmCore
import FoundationEssentials

/// An alarm's occurrences in order, each with its fate (it rings, a holiday skips it, a pause
/// holds it, `alarm skip` takes it), until `count` of them ring: the walk the engine makes as
/// time passes, as `alarm preview` prints it and `/api/preview` answers it.
package struct PreviewWalk {
    package struct Line {
        package var at: Date
        /// `rings`, `skipped` or `paused`.
        package var outcome: String
        package var reason: String?
    }

    package var lines: [Line] = []
    package var rings = 0

    /// From `start` (or the alarm's `created`, if later). Without `verbose` only the rings are
    /// listed and a pause is jumped over whole; paused until `alarm resume`, nothing rings:
    /// `count` of its occurrences are walked, and the walk stops.
    package init(
        _ alarm: Alarm, from start: Date, count: Int, systemZone: Zone, holidays: HolidayCalendar, verbose: Bool
    ) {
        let shown = alarm.displayZone(systemZone: systemZone)
        var passed = 0
        var skipNext = alarm.skipNext
        var cursor = max(start, alarm.created ?? start)
        let limit = alarm.pause == .indefinitely ? count : 10_000
        while rings < count, passed < limit, let t = alarm.nextRing(after: cursor, systemZone: systemZone) {
            cursor = t
            switch alarm.fate(of: t, systemZone: systemZone, holidays: holidays) {
            case .paused:
                passed += 1
                if verbose {
                    lines.append(Line(at: t, outcome: "paused", reason: alarm.pauseReason(systemZone: systemZone)))
                } else if let end = alarm.pauseEnd(systemZone: systemZone) {
                    cursor = max(t, end.addingTimeInterval(-1))
                } else {
                    cursor = .distantFuture
                }
            case .holiday(let name):
                passed += 1
                if verbose {
                    lines.append(
                        Line(at: t, outcome: "skipped", reason: HolidayCalendar.reason(name, on: t, in: shown)))
                }
            case .rings:
                if skipNext {
                    skipNext = false
                    passed += 1
                    if verbose {
                        lines.append(Line(at: t, outcome: "skipped", reason: "skipped as asked (alarm skip)"))
                    }
                    continue
                }
                rings += 1
                lines.append(Line(at: t, outcome: "rings", reason: nil))
            }
        }
    }
}

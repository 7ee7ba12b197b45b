import FoundationEssentials

/// When a calendar expression rings: pure functions, no clock and no I/O inside.
public enum Schedule {
    /// The first ring strictly after `after`, on the wall clock of the expression's pinned zone or
    /// else of `zone`; nil when it never rings again (a date in the past, or past year 2199).
    ///
    /// Ring instants follow `Zones.instant(for:in:)`: a wall time in a DST gap rings shifted forward
    /// by the gap, one in an overlap rings at its first occurrence, and wall times that map to one
    /// instant ring once. Successive calls with `after` set to the previous result therefore give
    /// strictly increasing instants, each wake-up exactly once.
    public static func next(_ expr: CalendarExpression, after: Date, in zone: Zone) -> Date? {
        let tz = expr.zone.flatMap { try? Zones.zone(named: $0) } ?? zone
        let afterT = after.timeIntervalSince1970
        guard afterT.isFinite else { return nil }
        let afterSec = Int64(afterT.rounded(.down))
        var startLocal = Zones.civil(at: after, in: tz).localSeconds + 1
        // A gap just before `after` shifts earlier wall times to instants after it: start there.
        let near = Zones.segments(in: tz, from: afterSec - 27 * 3600, to: afterSec + 27 * 3600)
        for i in near.indices.dropFirst() where near[i].offset > near[i - 1].offset {
            startLocal = min(startLocal, near[i].start + near[i - 1].offset)
        }

        var cursor = CivilTime(localSeconds: startLocal)
        var best: Int64? = nil
        var bound = Int64.max  // local seconds beyond which no wall time can map below `best`
        var steps = 0
        while steps < 500_000, let match = nextCivil(expr, atOrAfter: cursor) {
            let local = match.localSeconds
            if local > bound { break }
            let t = Zones.instantSeconds(forLocal: local, in: tz)
            if TimeInterval(t) > afterT {
                if best == nil || t < best! { best = t }
                if bound == .max {
                    // Around a transition the wall-to-instant map is not monotonic; look on while a
                    // later wall time could still map to an earlier instant. Elsewhere: done.
                    let around = Zones.segments(in: tz, from: t - 27 * 3600, to: t + 27 * 3600)
                    if around.count == 1 && near.count == 1 { break }
                    bound = t + (around + near).map(\.offset).max()!
                }
            }
            cursor = CivilTime(localSeconds: local + 1)
            steps += 1
        }
        return best.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// The next `count` rings after `after` (fewer when the expression runs out).
    public static func upcoming(_ expr: CalendarExpression, after: Date, in zone: Zone, count: Int) -> [Date] {
        var out: [Date] = []
        var cursor = after
        while out.count < count, let n = next(expr, after: cursor, in: zone) {
            out.append(n)
            cursor = n
        }
        return out
    }

    /// The first wall time at or after `from` whose every component matches, ignoring zones;
    /// nil when there is none up to the end of `CalendarExpression.yearRange`.
    public static func nextCivil(_ e: CalendarExpression, atOrAfter from: CivilTime) -> CivilTime? {
        var (y, mo, d, h, mi, s) = (from.year, from.month, from.day, from.hour, from.minute, from.second)
        if y < CalendarExpression.yearRange.lowerBound {
            (y, mo, d, h, mi, s) = (CalendarExpression.yearRange.lowerBound, 1, 1, 0, 0, 0)
        }
        // Each failed component moves the next larger one on and resets the smaller ones; a value
        // past its maximum (hour 24, day 32, month 13) fails in the next round and carries.
        let (months, hours, minutes, seconds, weekdays) = (
            e.months.values, e.hours.values, e.minutes.values, e.seconds.values, e.weekdays
        )
        let everyYear = e.years.isAll
        let days = e.endOfMonth ? nil : e.days.values  // else per month
        for _ in 0..<2_000_000 {
            if y > CalendarExpression.yearRange.upperBound { return nil }
            if !everyYear {
                guard let ny = e.years.next(atLeast: y) else { return nil }
                if ny != y { (y, mo, d, h, mi, s) = (ny, 1, 1, 0, 0, 0) }
                if y > CalendarExpression.yearRange.upperBound { return nil }
            }
            guard let nm = months.next(atLeast: mo) else {
                (y, mo, d, h, mi, s) = (y + 1, 1, 1, 0, 0, 0)
                continue
            }
            if nm != mo { (mo, d, h, mi, s) = (nm, 1, 0, 0, 0) }
            let length = CivilTime.daysIn(month: mo, year: y)
            guard let nd = (days ?? e.daySet(monthLength: length)).next(atLeast: d), nd <= length else {
                (mo, d, h, mi, s) = (mo + 1, 1, 0, 0, 0)
                continue
            }
            if nd != d { (d, h, mi, s) = (nd, 0, 0, 0) }
            if !weekdays.contains(CivilTime.weekday(ofDays: CivilTime.days(year: y, month: mo, day: d))) {
                (d, h, mi, s) = (d + 1, 0, 0, 0)
                continue
            }
            guard let nh = hours.next(atLeast: h) else {
                (d, h, mi, s) = (d + 1, 0, 0, 0)
                continue
            }
            if nh != h { (h, mi, s) = (nh, 0, 0) }
            guard let nmi = minutes.next(atLeast: mi) else {
                (h, mi, s) = (h + 1, 0, 0)
                continue
            }
            if nmi != mi { (mi, s) = (nmi, 0) }
            guard let ns = seconds.next(atLeast: s) else {
                (mi, s) = (mi + 1, 0)
                continue
            }
            return CivilTime(year: y, month: mo, day: d, hour: h, minute: mi, second: ns)
        }
        return nil
    }

    /// Why an expression can never match any wall time, or nil when it can.
    static func whyNeverMatches(_ e: CalendarExpression) -> String? {
        let monthNames = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        // Days counted from the month's end (at most 28) fall in every month.
        let firstDay = e.days.values.min ?? 32
        let possible =
            e.endOfMonth
            || (1...12).contains { e.months.values.contains($0) && firstDay <= CivilTime.daysIn(month: $0, year: 2000) }
        if !possible {
            let months = e.months.values.values.map { monthNames[$0 - 1] }.joined(separator: ", ")
            let days = e.days.values.values.map(String.init).joined(separator: ", ")
            return "this date never occurs: \(months) \(e.months.values.count == 1 ? "has" : "have") no day \(days)"
        }
        if nextCivil(e, atOrAfter: CivilTime(year: CalendarExpression.yearRange.lowerBound, month: 1, day: 1)) == nil {
            let weekdays =
                e.weekdays.isAll(CalendarExpression.weekdayRange)
                ? "" : "falls on \(CalendarExpression.printWeekdays(e.weekdays)) and "
            return
                "it never matches: no date in \(CalendarExpression.yearRange.lowerBound)..\(CalendarExpression.yearRange.upperBound) "
                + "\(weekdays)matches \(e.datePart)"
        }
        return nil
    }
}

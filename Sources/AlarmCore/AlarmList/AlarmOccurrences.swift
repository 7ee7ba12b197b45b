import FoundationEssentials

/// When an alarm's occurrences are, and what becomes of each (issue #12). Pure functions of the
/// alarm, the system zone and the holiday calendar: the engine, `alarm list`, `next` and
/// `preview` all ask these, so they agree by construction.
///
/// An *occurrence* is an instant the alarm's schedule names: its trigger, thinned or repeated by
/// `every`, within `from` and `until`. A pause or a holiday does not remove an occurrence; it
/// decides its fate (`OccurrenceFate`): the engine still visits it, at its instant, and records
/// it as `paused` or `skipped`.
extension Alarm {
    /// The first occurrence strictly after `after`; `systemZone` is the wall clock of floating
    /// alarms. Pauses, holidays and `skipNext` are not applied (see `nextSounding`).
    public func nextRing(after: Date, systemZone: Zone) -> Date? {
        if every == nil && from == nil && until == nil {
            // The common case, as before issue #12: no zone needed beyond the expression's own.
            switch trigger {
            case .instant(let t): return t > after ? t : nil
            case .calendar(let e): return Schedule.next(e, after: after, in: systemZone)
            }
        }
        let tz = displayZone(systemZone: systemZone)
        var after = after
        if let from {
            // Occurrences are whole seconds, and so is the bound: "strictly after start - 1" is
            // "at or after start". Long after a wall-clock bound, no zone is needed to tell.
            let clear = from.wallSeconds.map { Zone.unix(after) >= $0 + Self.offsetMargin } ?? false
            if !clear {
                let start = from.start(in: tz).addingTimeInterval(-1)
                if after < start { after = start }
            }
        }
        guard let t = unbounded(after: after, zone: tz, systemZone: systemZone) else { return nil }
        if let until {
            let clear = until.wallEnd.map { Zone.unix(t) <= $0 - Self.offsetMargin } ?? false
            if !clear {
                let end = until.end(in: tz)
                if end.inclusive ? t > end.at : t >= end.at { return nil }
            }
        }
        return t
    }

    /// More than any UTC offset: a wall time this far from an instant is on the same side of it
    /// in every zone.
    static let offsetMargin: Int64 = 26 * 3600

    /// How far `nextSounding` walks over holidays before it calls an alarm silent: ten years.
    static let holidayHorizon: TimeInterval = 3653 * 86400

    /// `nextRing` without `from` and `until` (which the caller applies).
    private func unbounded(after: Date, zone tz: Zone, systemZone: Zone) -> Date? {
        switch (trigger, every) {
        case (.instant(let t), nil):
            return t > after ? t : nil
        case (.instant(let anchor), .seconds(let step)?):
            // anchor + k * step, k >= 0: the first strictly after `after`.
            let a = Zone.unix(anchor)
            let x = after.timeIntervalSince1970
            guard x.isFinite else { return nil }
            if x < Double(a) { return anchor }
            let k = Int64(((x - Double(a)) / Double(step)).rounded(.down)) + 1
            var t = a + k * step
            while Double(t - step) > x { t -= step }  // rounding of a huge `after`
            return Date(timeIntervalSince1970: TimeInterval(t))
        case (.instant, _?):
            return nil  // days or weeks need an expression (refused when decoded)
        case (.calendar(let e), nil):
            return Schedule.next(e, after: after, in: systemZone)
        case (.calendar(let e), let every?):
            // An exact interval needs an instant.
            guard let cycle = every.cycle(namesWeekdays: e.weekdays.count < 7) else { return nil }
            let anchor = from?.day(in: tz) ?? 0
            var cursor = after
            // Each off day jumps to the start of the next "on" block: two searches at most, bar
            // expressions with no match in a block (a bounded walk that ends in nil).
            for _ in 0..<400 {
                guard let t = Schedule.next(e, after: cursor, in: systemZone) else { return nil }
                let day = Self.localDay(t, tz)
                let r = floorMod(day - anchor, cycle.period)
                if r < cycle.block { return t }
                let start = Self.instantSeconds(forLocal: (day + cycle.period - r) * 86400, in: tz, after: Zone.unix(t))
                cursor = max(t, Date(timeIntervalSince1970: TimeInterval(start - 1)))
            }
            return nil
        }
    }

    /// Whether the pause covers the instant `t`.
    public func isPaused(at t: Date, systemZone: Zone) -> Bool {
        switch pause {
        case nil: return false
        case .indefinitely?: return true
        case .until(let b)?: return t < b.start(in: displayZone(systemZone: systemZone))
        }
    }

    /// The instant the pause ends (nil: not paused, or paused until `alarm resume`).
    public func pauseEnd(systemZone: Zone) -> Date? {
        pausedUntilBound?.start(in: displayZone(systemZone: systemZone))
    }

    /// What a paused occurrence's history entry says: "paused until 2026-12-01" or "paused
    /// until alarm resume".
    public func pauseReason(systemZone: Zone) -> String {
        guard let b = pausedUntilBound else { return "paused until alarm resume" }
        return "paused until \(b.spoken(in: displayZone(systemZone: systemZone)))"
    }

    /// What becomes of the occurrence at `t`: it rings, the pause covers it, or it falls on a
    /// holiday (with `skipHolidays`). A pause comes before a holiday.
    public func fate(of t: Date, systemZone: Zone, holidays: HolidayCalendar) -> OccurrenceFate {
        if isPaused(at: t, systemZone: systemZone) { return .paused }
        if skipHolidays, !holidays.isEmpty, let name = holidays.holiday(at: t, in: displayZone(systemZone: systemZone))
        {
            return .holiday(name)
        }
        return .rings
    }

    /// The first occurrence strictly after `after` that rings: no pause and no holiday covers it.
    public func nextSounding(after: Date, systemZone: Zone, holidays: HolidayCalendar) -> Date? {
        // Most alarms: nothing decides, the first occurrence rings.
        if pause == nil && !(skipHolidays && !holidays.isEmpty) {
            return nextRing(after: after, systemZone: systemZone)
        }
        return nextSounding(after: after, systemZone: systemZone, holidays: holidays) {
            nextRing(after: $0, systemZone: systemZone)
        }
    }

    /// `nextSounding` with `next(x)` standing for `nextRing(after: x, ...)` (the engine's memo).
    public func nextSounding(
        after: Date, systemZone: Zone, holidays: HolidayCalendar, next: (Date) -> Date?
    ) -> Date? {
        if case .indefinitely? = pause { return nil }
        let decides = pause != nil || (skipHolidays && !holidays.isEmpty)
        var cursor = after
        var firstHoliday: Date? = nil
        // A pause is jumped over whole, a holiday a day at a time: a few steps, however often
        // the alarm repeats. An alarm whose occurrences all fall on holidays for ten years (a
        // `*-12-25` alarm skipping a yearly Christmas) is taken as never ringing: the walk stops
        // there instead of at the end of the calendar. (Its occurrences are still each recorded
        // `skipped` as they pass.)
        for _ in 0..<5000 {
            guard let t = next(cursor) else { return nil }
            if !decides { return t }
            if let first = firstHoliday, t.timeIntervalSince(first) > Self.holidayHorizon { return nil }
            switch fate(of: t, systemZone: systemZone, holidays: holidays) {
            case .rings: return t
            case .paused:
                guard let end = pauseEnd(systemZone: systemZone) else { return nil }
                cursor = max(t, end.addingTimeInterval(-1))
            case .holiday:
                if firstHoliday == nil { firstHoliday = t }
                let tz = displayZone(systemZone: systemZone)
                let next = Self.instantSeconds(
                    forLocal: (Self.localDay(t, tz) + 1) * 86400, in: tz, after: Zone.unix(t))
                cursor = max(t, Date(timeIntervalSince1970: TimeInterval(next - 1)))
            }
        }
        return nil
    }
}

extension Alarm {
    /// The date of `t` on the wall clock of `tz`, as days since 1970-01-01.
    @inline(__always)
    static func localDay(_ t: Date, _ tz: Zone) -> Int64 {
        let u = Zone.unix(t)
        return floorDiv(u + Int64(tz.offset(atUnix: u)), 86400)
    }

    /// `Zones.instantSeconds(forLocal:in:)` for a wall time near the instant `t` (by default the
    /// wall time read as UTC): the offset at `t` when the zone keeps it for a day around both (no
    /// gap or overlap can be near), without the general search and its allocations.
    static func instantSeconds(forLocal local: Int64, in tz: Zone, after t: Int64? = nil) -> Int64 {
        let near = t ?? local
        let guess = local - Int64(tz.offset(atUnix: near))
        let lo = min(near, guess) - offsetMargin
        if tz.offset(atUnix: lo) == tz.offset(atUnix: near),
            tz.nextTransition(afterUnix: lo).map({ $0 > max(near, guess) + offsetMargin }) ?? true
        {
            return guess
        }
        return Zones.instantSeconds(forLocal: local, in: tz)
    }
}

/// What becomes of one occurrence.
public enum OccurrenceFate: Equatable, Sendable {
    case rings
    /// `alarm pause` covers it: recorded `paused`.
    case paused
    /// A holiday (its name) and the alarm skips holidays: recorded `skipped`.
    case holiday(String)
}

@inline(__always)
func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
    let r = a % b
    return r < 0 ? r + b : r
}

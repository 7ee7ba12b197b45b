import AlarmCore
import FoundationEssentials

/// The schedule rules of an alarm as typed (issue #12): `--every`, `--from`, `--until`,
/// `--skip-holidays` in the CLI, the same fields in alarm-web's preview. What they mean is
/// `Alarm`'s (AlarmOccurrences.swift); this turns the text into an alarm's fields.
package struct ScheduleRules {
    package var every: String?
    package var from: String?
    package var until: String?
    package var skipHolidays = false

    package init(every: String? = nil, from: String? = nil, until: String? = nil, skipHolidays: Bool = false) {
        self.every = every
        self.from = from
        self.until = until
        self.skipHolidays = skipHolidays
    }

    package struct Parsed {
        package var every: RepeatInterval?
        package var from: ScheduleBound?
        package var until: ScheduleBound?
    }

    package func parsed() throws -> Parsed {
        var p = Parsed()
        do { p.every = try every.map(RepeatInterval.parse) } catch { throw UserError("--every: \(error)") }
        do { p.from = try from.map(ScheduleBound.parse) } catch { throw UserError("--from: \(error)") }
        do { p.until = try until.map(ScheduleBound.parse) } catch { throw UserError("--until: \(error)") }
        return p
    }

    /// The alarm's trigger and rules from what was typed: `trigger` is the expression or instant
    /// given (nil: neither). `zone` reads local dates of floating alarms; `now` is the moment of
    /// the command.
    ///
    /// - An expression with days or weeks: kept, `from` defaults to today (the cycle's first day).
    /// - An exact interval repeats an instant: `--at`/`--in`, else the expression's first
    ///   occurrence from `--from` (or now), else `--from` itself, else now plus the interval.
    /// - `--at`/`--in` with days or weeks: its wall-clock time every N days from its date.
    /// An unnamed alarm of `trigger` with these rules, as `alarm preview` and `/api/preview`
    /// show it; throws when the rules do not fit the trigger.
    package func previewAlarm(_ trigger: AlarmTrigger?, zone: Zone, now: Date) throws -> Alarm {
        let (t, rules) = try apply(to: trigger, zone: zone, now: now)
        if let problem = Alarm.whyRulesDoNotFit(trigger: t, every: rules.every) { throw UserError(problem) }
        return Alarm(
            id: "", trigger: t, every: rules.every, from: rules.from, until: rules.until, skipHolidays: skipHolidays)
    }

    package func apply(to trigger: AlarmTrigger?, zone: Zone, now: Date) throws -> (AlarmTrigger, Parsed) {
        var p = try parsed()
        guard let every = p.every else {
            guard let trigger else {
                throw UserError("give exactly one of: an expression, --in DURATION, --at TIME (or --every)")
            }
            return (trigger, p)
        }
        let pinned: Zone = {
            if case .calendar(let e)? = trigger, let name = e.zone, let z = try? Zones.zone(named: name) { return z }
            return zone
        }()
        let today = ScheduleBound.day(dayOf(now, in: pinned))
        switch (trigger, every.isCalendar) {
        case (.calendar?, true):
            if p.from == nil { p.from = today }
            return (trigger!, p)
        case (.calendar(let e)?, false):
            let start = p.from.map { $0.start(in: pinned).addingTimeInterval(-1) } ?? now
            guard let first = Schedule.next(e, after: start, in: zone) else {
                throw UserError(
                    "'\(e)' has no time after \(RFC3339.format(start, in: pinned)) to start --every \(every) from")
            }
            p.from = nil
            return (.instant(first), p)
        case (.instant(let t)?, false):
            return (.instant(t), p)
        case (.instant(let t)?, true):
            return try daily(at: Zones.civil(at: t, in: zone), &p)
        case (nil, false):
            if let from = p.from {
                p.from = nil
                return (.instant(from.start(in: zone)), p)
            }
            guard case .seconds(let s) = every else { fatalError("unreachable") }
            let anchor = (now.timeIntervalSince1970 + Double(s)).rounded(.up)
            return (.instant(Date(timeIntervalSince1970: anchor)), p)
        case (nil, true):
            switch p.from {
            case .local(let s)?: return try daily(at: CivilTime(localSeconds: s), &p)
            case .instant(let t)?: return try daily(at: Zones.civil(at: t, in: zone), &p)
            default:
                throw UserError(
                    "--every \(every) needs the time of day: give an expression, e.g. alarm add 06:00 --every \(every) --from \(today)"
                )
            }
        }
    }

    /// `HH:MM:SS` every N days (floating), from the date of `c`.
    private func daily(at c: CivilTime, _ p: inout Parsed) throws -> (AlarmTrigger, Parsed) {
        let time = Text.zeroPadded(c.hour, 2) + ":" + Text.zeroPadded(c.minute, 2) + ":" + Text.zeroPadded(c.second, 2)
        let expr: CalendarExpression
        do { expr = try CalendarExpression(time) } catch { throw UserError(error) }
        // A --from that is a date stays the cycle's first day; else the date of the time given.
        if case .day? = p.from {} else { p.from = .day(CivilTime(year: c.year, month: c.month, day: c.day)) }
        return (.calendar(expr), p)
    }

    private func dayOf(_ t: Date, in zone: Zone) -> CivilTime {
        let c = Zones.civil(at: t, in: zone)
        return CivilTime(year: c.year, month: c.month, day: c.day)
    }
}

extension Alarm {
    /// How `alarm list` and `preview` describe the rules: "every 2w from 2026-11-23 until
    /// 2026-12-31, skipping holidays"; empty when there are none.
    package func rulesText(zone: Zone) -> String {
        var parts: [String] = []
        if let every { parts.append("every \(every)") }
        if let from { parts.append("from \(from.spoken(in: zone))") }
        if let until { parts.append("until \(until.spoken(in: zone))") }
        var text = parts.joined(separator: " ")
        if skipHolidays { text += text.isEmpty ? "skipping holidays" : ", skipping holidays" }
        return text
    }
}

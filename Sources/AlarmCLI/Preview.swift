import AlarmCore
import AlarmState
import AlarmOptions
import ArgumentParser
import FoundationEssentials

/// `alarm preview`: the next rings of an expression (with `alarm add`'s schedule options), or of
/// a stored alarm by its id, so users can check an alarm before they trust it (our answer to
/// `systemd-analyze calendar`). The rings are those alarmd would ring: the same pure functions
/// decide (`Alarm.nextRing`, `Alarm.fate`).
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Print the next ring instants of a calendar expression, or of an alarm by its id.",
        discussion: """
            EXPR is a systemd.time(7) calendar event, [WEEKDAYS] [[YEAR-]MONTH-DAY] [HOUR:MINUTE[:SECOND]] \
            [ZONE] or a shortcut such as 'daily', e.g. 'Mon..Fri 06:30', '*-12-25 08:00', '*-*~01 09:00' \
            (the last day of every month), 'weekends 09:00 Europe/Berlin'. Instants are printed in \
            RFC 3339 with the UTC offset in force in the alarm's zone at that instant. --every, --from, \
            --until and --skip-holidays work as for alarm add; --verbose first prints the expression in \
            systemd's normalized form, then also lists the occurrences that do not ring (holidays, a \
            pause, alarm skip) and why. An id of a stored alarm previews that alarm, its pause included.
            """)

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The calendar expression (quote it, or give its words as separate arguments), or an alarm's id.")
    var expression: [String] = []

    @Option(help: "List rings strictly after this RFC 3339 instant (default: now).")
    var after: String?

    @Option(help: "How many rings to list.")
    var count: Int = 5

    @Option(help: "The zone a floating expression is read in (default: the system zone).")
    var zone: String?

    @Option(
        name: .customLong("at"),
        help: ArgumentHelp("Preview an instant (with --every: a repeating one).", valueName: "time"))
    var instant: String?

    @Option(
        name: .customLong("in"),
        help: ArgumentHelp("Preview the instant this long after --after (or now).", valueName: "duration"))
    var inDuration: String?

    @OptionGroup var schedule: ScheduleOptions

    @Option(
        help: ArgumentHelp(
            "The holidays file for --skip-holidays (default: the config's 'holidays').", valueName: "file"))
    var holidays: String?

    @Flag(help: "Print a JSON array of RFC 3339 strings (with --verbose: objects with at, outcome, reason).")
    var json = false

    @Flag(
        help:
            "First print the expression in its normal form (systemd's normalized form, 'normal form: ...'); also list the occurrences that do not ring, and why."
    )
    var verbose = false

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000") }
        guard !expression.isEmpty || instant != nil || inDuration != nil || schedule.every != nil else {
            throw ValidationError(
                "give a calendar expression, an alarm's id, --at TIME, --in DURATION or --every DURATION")
        }
        if [!expression.isEmpty, instant != nil, inDuration != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of: an expression, --at TIME, --in DURATION")
        }
    }

    func run() throws {
        let config = options.lenientConfiguration()
        let systemZone: Zone
        do { systemZone = try zone.map { try Zones.zone(named: $0) } ?? SystemZone.current(config) } catch {
            throw UserError(error)
        }
        var start = Date()
        if let after {
            guard let parsed = RFC3339.parse(after) else {
                throw UserError("--after '\(after)' is not an RFC 3339 timestamp such as 2026-03-08T00:00:00-05:00")
            }
            start = parsed
        }
        let alarm = try makeAlarm(config: config, zone: systemZone, start: start)
        let shown = alarm.displayZone(systemZone: systemZone)
        let calendar = try holidayCalendar(for: alarm, config: config)
        if let c = alarm.created, c > start { start = c }
        let walk = PreviewWalk(
            alarm, from: start, count: count, systemZone: systemZone, holidays: calendar, verbose: verbose)
        let lines = walk.lines
        let rings = walk.rings
        let pauseNote: String? =
            alarm.isPaused(at: start, systemZone: systemZone)
            ? "\(alarm.id.isEmpty ? "it" : alarm.id) is paused "
                + (alarm.pauseEnd(systemZone: systemZone).map { "until " + RFC3339.format($0, in: shown) }
                    ?? "until alarm resume")
            : nil
        if verbose && !json, case .calendar(let expr) = alarm.trigger { print("normal form: \(expr)") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
            if verbose {
                struct Line: Encodable { let at: String, outcome: String, reason: String? }
                let out = lines.map {
                    Line(at: RFC3339.format($0.at, in: shown), outcome: $0.outcome, reason: $0.reason)
                }
                print(String(decoding: try encoder.encode(out), as: UTF8.self))
            } else {
                print(
                    String(decoding: try encoder.encode(lines.map { RFC3339.format($0.at, in: shown) }), as: UTF8.self))
            }
        } else {
            if let pauseNote { print(pauseNote) }
            for l in lines {
                let at = RFC3339.format(l.at, in: shown)
                switch l.outcome {
                case "rings": print(at)
                case "paused": print("\(at)  \(l.reason ?? "paused")")
                default: print("\(at)  \(l.outcome) (\(l.reason ?? ""))")
                }
            }
        }
        if rings == 0 && pauseNote == nil {
            throw UserError("'\(describe(alarm))' never rings after \(RFC3339.format(start, in: shown))")
        }
    }

    /// The stored alarm named by a lone word, else an alarm made of what was typed.
    private func makeAlarm(config: Configuration, zone systemZone: Zone, start: Date) throws -> Alarm {
        if expression.count == 1, instant == nil, inDuration == nil, schedule.every == nil, schedule.from == nil,
            schedule.until == nil,
            let stored = try? AlarmStore(stateDir: config.stateDir).load().first(where: { $0.id == expression[0] })
        {
            var a = stored
            if schedule.skipHolidays { a.skipHolidays = true }
            return a
        }
        var trigger: AlarmTrigger? = nil
        if let inDuration {
            let d: TimeInterval
            do { d = try Durations.parse(inDuration) } catch { throw UserError("--in: \(error)") }
            trigger = .instant(
                Date(timeIntervalSince1970: start.addingTimeInterval(d).timeIntervalSince1970.rounded(.up)))
        } else if let instant {
            guard let t = RFC3339.parse(instant) else {
                throw UserError("--at '\(instant)' is not an RFC 3339 timestamp such as 2026-12-24T07:00:00+01:00")
            }
            trigger = .instant(Date(timeIntervalSince1970: t.timeIntervalSince1970.rounded(.down)))
        } else if !expression.isEmpty {
            do { trigger = .calendar(try CalendarExpression(expression.joined(separator: " "))) } catch {
                throw UserError(error)
            }
        }
        return try schedule.previewAlarm(trigger, zone: systemZone, now: start)
    }

    /// The holidays to skip: `--holidays`, else the config's file; a file that cannot be used is
    /// an error here (preview is how one checks it), naming the line and the reason.
    private func holidayCalendar(for alarm: Alarm, config: Configuration) throws -> HolidayCalendar {
        guard alarm.skipHolidays else { return .empty }
        guard let path = holidays ?? config.holidays else {
            printError(
                "warning: no holidays file: set 'holidays = FILE' in \(config.configPath) or give --holidays FILE")
            return .empty
        }
        do { return try HolidaysFile.load(path) } catch { throw UserError(error) }
    }

    private func describe(_ alarm: Alarm) -> String {
        var text: String
        switch alarm.trigger {
        case .calendar(let e): text = e.description
        case .instant(let t): text = RFC3339.format(t, in: .utc)
        }
        let rules = alarm.rulesText(zone: .utc)
        return rules.isEmpty ? text : text + " " + rules
    }
}

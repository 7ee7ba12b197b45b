import AlarmCore
import AlarmDaemon
import ArgumentParser
import FoundationEssentials

/// `alarm preview`: the next rings of an expression, so users can check an alarm before they
/// trust it (our answer to `systemd-analyze calendar`).
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the next ring instants of a calendar expression.",
        discussion: """
            EXPR is a systemd.time(7) calendar event, [WEEKDAYS] [[YEAR-]MONTH-DAY] [HOUR:MINUTE[:SECOND]]
            [ZONE] or a shortcut such as 'daily', e.g. 'Mon..Fri 06:30', '*-12-25 08:00', '*-*~01 09:00'
            (the last day of every month), 'weekends 09:00 Europe/Berlin'. Instants are printed in
            RFC 3339 with the UTC offset in force in the alarm's zone at that instant; --verbose first
            prints the expression in systemd's normalized form.
            """)

    @Argument(help: "The calendar expression (quote it, or give its words as separate arguments).")
    var expression: [String]

    @Option(help: "List rings strictly after this RFC 3339 instant (default: now).")
    var after: String?

    @Option(help: "How many rings to list.")
    var count: Int = 5

    @Option(help: "The zone a floating expression is read in (default: the system zone).")
    var zone: String?

    @Flag(help: "Print a JSON array of RFC 3339 strings.")
    var json = false

    @Flag(help: "First print the expression in its normal form (systemd's normalized form), as 'normal form: ...'.")
    var verbose = false

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000") }
    }

    func run() throws {
        let text = expression.joined(separator: " ")
        let expr: CalendarExpression
        do { expr = try CalendarExpression(text) } catch { throw CLIError(error) }
        let systemZone: Zone
        do { systemZone = try zone.map { try Zones.zone(named: $0) } ?? SystemZone.current(Configuration()) } catch { throw CLIError(error) }
        var start = Date()
        if let after {
            guard let parsed = RFC3339.parse(after) else {
                throw CLIError("--after '\(after)' is not an RFC 3339 timestamp such as 2026-03-08T00:00:00-05:00")
            }
            start = parsed
        }
        let shown = expr.zone.flatMap { try? Zones.zone(named: $0) } ?? systemZone
        let rings = Schedule.upcoming(expr, after: start, in: systemZone, count: count).map { RFC3339.format($0, in: shown) }
        if verbose && !json { print("normal form: \(expr)") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(rings), as: UTF8.self))
        } else {
            for r in rings { print(r) }
        }
        if rings.isEmpty {
            throw CLIError("'\(expr)' never rings after \(RFC3339.format(start, in: shown))")
        }
    }
}

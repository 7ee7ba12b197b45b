import AlarmOptions
import AlarmCore
import ArgumentParser
import FoundationEssentials

/// `alarm list`: every alarm with its next ring. `--json` is the import/export format.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the alarms and when each rings next.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print a JSON array (the format of alarm import / export).")
    var json = false

    func run() throws {
        let ctx = try Context(options)
        let alarms = try ctx.loadAlarms()
        if json {
            print(try ctx.json(alarms))
            return
        }
        if alarms.isEmpty {
            print("no alarms (add one with: alarm add 'Mon..Fri 06:30')")
            return
        }
        var rows = [["ID", "NEXT", "WHEN", "ZONE", "SOUND", "LABEL"]]
        // Each next ring computed once, not once per comparison.
        let nexts = alarms.map { ($0, ctx.nextRing($0)) }.sorted { ($0.1 ?? .distantFuture) < ($1.1 ?? .distantFuture) }
        for (alarm, nextRing) in nexts {
            let when: String
            switch alarm.trigger {
            case .calendar(let e): when = e.print(withZone: false) + (alarm.once ? " (once)" : "")
            case .instant(let t): when = "at " + ctx.rfc3339(t)
            }
            var next = nextRing.map { ctx.short($0) } ?? "never"
            if alarm.skipNext { next += " (skipping one)" }
            rows.append([alarm.id, next, when, alarm.zone ?? alarm.mode.rawValue, alarm.sound ?? "default", alarm.label ?? ""])
        }
        printTable(rows)
    }
}

/// `alarm export`: the alarms as JSON on stdout, for `alarm import`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the alarms as JSON (the list --json format).")

    @OptionGroup var options: SettingsOptions

    func run() throws {
        let ctx = try Context(options)
        print(try ctx.json(try ctx.loadAlarms()))
    }
}

func printTable(_ rows: [[String]]) {
    guard let first = rows.first else { return }
    var widths = first.map(\.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    for row in rows {
        let line = row.enumerated().map { i, cell in
            i == row.count - 1 ? cell : Text.padded(cell, widths[i])
        }.joined(separator: "  ")
        print(line.trimmingBlanks())
    }
}

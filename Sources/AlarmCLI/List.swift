import AlarmState
import AlarmOptions
import AlarmCore
import ArgumentParser
import FoundationEssentials

/// `alarm list`: every alarm with its next ring. `--json` is the import/export format.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the alarms and when each rings next.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print a JSON array (the format of alarm import / export).")
    var json = false

    func run() throws {
        let ctx = try AlarmContext(options)
        let alarms = try ctx.loadAlarms()
        if json {
            try ctx.printJSON(alarms)
            return
        }
        if alarms.isEmpty {
            print("no alarms (add one with: alarm add 'Mon..Fri 06:30')")
            return
        }
        var rows = [["ID", "NEXT", "WHEN", "ZONE", "SOUND", "LABEL"]]
        // Each next ring computed once, not once per comparison; indices sorted, not alarms
        // (moving 10,000 alarms around costs more than the rest of the listing).
        let nexts = alarms.map { ctx.nextRing($0) }
        let order = nexts.indices.sorted { a, b in
            let (x, y) = (nexts[a] ?? .distantFuture, nexts[b] ?? .distantFuture)
            return x != y ? x < y : a < b
        }
        for i in order {
            let (alarm, nextRing) = (alarms[i], nexts[i])
            var when: String
            switch alarm.trigger {
            case .calendar(let e): when = e.print(withZone: false) + (alarm.once ? " (once)" : "")
            case .instant(let t): when = (alarm.every == nil ? "at " : "from ") + ctx.rfc3339(t)
            }
            let rules = alarm.rulesText(zone: alarm.displayZone(systemZone: ctx.zone))
            if !rules.isEmpty { when += " " + rules }
            let ringing = alarm.ringingText
            if !ringing.isEmpty { when += " (" + ringing + ")" }
            var next = nextRing.map { ctx.short($0) } ?? "never"
            if let paused = ctx.pauseText(alarm) {
                next = alarm.pausedUntilBound == nil ? "paused (until alarm resume)" : next + " (paused \(paused))"
            }
            if alarm.skipNext { next += " (skipping one)" }
            rows.append([
                alarm.id, next, when, alarm.zone ?? alarm.mode.rawValue, alarm.sound ?? "default", alarm.label ?? "",
            ])
        }
        printTable(rows)
    }
}

extension Alarm {
    /// Issue #13's options, where set: "volume 20-80 %, max 3 snoozes, when ignored: silence",
    /// and issue #43's pre-alarm leads: "pre-alarm 30m,10m".
    var ringingText: String {
        var parts: [String] = []
        if let from = volumeFrom { parts.append("volume \(from)-\(volume.map(String.init) ?? "default") %") }
        switch maxSnoozes {
        case .limited(let n)?: parts.append(n == 1 ? "max 1 snooze" : "max \(n) snoozes")
        case .unlimited?: parts.append("unlimited snoozes")
        case nil: break
        }
        if let w = whenIgnored { parts.append("when ignored: \(w.rawValue)") }
        if let p = preAlarm { parts.append("pre-alarm \(p)") }
        if let f = fallbackSound { parts.append("fallback \(f)") }
        return parts.joined(separator: ", ")
    }
}

/// `alarm export`: the alarms as JSON on stdout, for `alarm import`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print the alarms as JSON (the list --json format).")

    @OptionGroup var options: SettingsOptions

    func run() throws {
        let ctx = try AlarmContext(options)
        try ctx.printJSON(try ctx.loadAlarms())
    }
}

func printTable(_ rows: [[String]]) {
    guard !rows.isEmpty else { return }
    // Widths counted once per cell; one write for the whole table (10,000 rows).
    let counts = rows.map { $0.map(\.count) }
    var widths = counts[0]
    for c in counts { for (i, n) in c.enumerated() where i < widths.count { widths[i] = max(widths[i], n) } }
    var out = ""
    for (r, row) in rows.enumerated() {
        var line = ""
        for (i, cell) in row.enumerated() {
            if i > 0 { line += "  " }
            line += cell
            if i < row.count - 1, i < widths.count { line += String(repeating: " ", count: widths[i] - counts[r][i]) }
        }
        while line.last == " " { line.removeLast() }
        out += line
        out += "\n"
    }
    print(out, terminator: "")
}

import AlarmOptions
import AlarmCore
import AlarmState
import ArgumentParser
import FoundationEssentials

/// `alarm history`: one entry per ring, newest last.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show what rang, when, and how it ended.",
        discussion: """
            One entry per ring episode of an occurrence, or per occurrence that did not ring. An \
            occurrence snoozed twice and stopped has three: snoozed, snoozed, stopped. The \
            outcome (JSON key outcome) says how the episode ended: stopped (alarm stop; reason \
            "stopped while snoozed" when it came during a snooze); snoozed (by hand, or by \
            itself when nobody answered; never an occurrence's last entry); silenced (its ring \
            length passed, or a newer ring took over, from a snooze too); ignored (nobody \
            answered: it snoozed itself as often as allowed, then was silenced); missed (passed \
            by more than the grace window: alarmd down, the clock set); failed (nothing could \
            be played); paused (alarm pause covered it); skipped (a holiday, named in reason); \
            ended (the alarm's last occurrence passed and the alarm was removed). JSON keys: \
            alarm, scheduled, started, ended, outcome, sound, reason, late, and fallback and \
            mixer where they apply.
            """)

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print a JSON array of entries.")
    var json = false

    @Option(help: "Show only the last N entries.")
    var last: Int?

    func run() throws {
        let ctx = try AlarmContext(options)
        let log = HistoryLog(stateDir: ctx.config.stateDir)
        var (entries, unreadable) = try { do { return try log.read() } catch { throw UserError(error) } }()
        if let last { entries = Array(entries.suffix(max(0, last))) }
        if unreadable > 0 { printError("warning: \(unreadable) unreadable line(s) in \(log.path) were skipped") }
        if json {
            print(try historyJSON(entries))
            return
        }
        if entries.isEmpty {
            print("no history yet")
            return
        }
        var rows = [["SCHEDULED", "ALARM", "OUTCOME", "STARTED", "ENDED", "SOUND", "NOTE"]]
        for e in entries {
            var note = e.late ? "late" : ""
            if let reason = e.reason { note += (note.isEmpty ? "" : "; ") + reason }
            if let fallback = e.fallback { note += (note.isEmpty ? "" : "; ") + "fallback_command: " + fallback }
            if let mixer = e.mixer { note += (note.isEmpty ? "" : "; ") + mixer }
            rows.append([
                ctx.rfc3339(e.scheduled), e.alarm ?? "(ring)", e.outcome.rawValue,
                e.started.map { ctx.clock($0) } ?? "-", e.ended.map { ctx.clock($0) } ?? "-", e.sound ?? "-", note,
            ])
        }
        printTable(rows)
    }
}

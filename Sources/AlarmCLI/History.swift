import AlarmOptions
import AlarmCore
import AlarmDaemon
import ArgumentParser
import FoundationEssentials

/// `alarm history`: one entry per ring, newest last.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what rang, when, and how it ended.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print a JSON array of entries.")
    var json = false

    @Option(help: "Show only the last N entries.")
    var last: Int?

    func run() throws {
        let ctx = try Context(options)
        let log = HistoryLog(stateDir: ctx.config.stateDir)
        var (entries, unreadable) = try { do { return try log.read() } catch { throw CLIError(error) } }()
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

/// What `alarm history --json` prints.
func historyJSON(_ entries: [HistoryEntry]) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(entries), as: UTF8.self)
}

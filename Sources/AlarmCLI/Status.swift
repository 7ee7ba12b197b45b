import AlarmState
import AlarmOptions
import AlarmCore
import AlarmSystem
import ArgumentParser
import FoundationEssentials

/// `alarm status`: what alarmd is doing, from its status.json, and whether it is running.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show whether alarmd runs, and what it is doing.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print status.json, with \"running\" added.")
    var json = false

    func run() throws {
        let ctx = try AlarmContext(options, lenient: true)
        let (running, why) = daemonRunning(ctx)
        if json {
            print(try statusJSON(ctx, running: running))
        } else if !running {
            print(why ?? "alarmd is not running")
        } else if let status = readStatus(ctx) {
            print(describe(status, ctx))
            // The alarms `alarm pause` holds: their occurrences are recorded, never rung.
            if !status.paused.isEmpty {
                print(
                    "paused: "
                        + status.paused.map { p in
                            "\(p.id) (" + (p.until.map { "until " + ctx.clock($0) } ?? "until alarm resume") + ")"
                        }.joined(separator: ", "))
            }
            // What alarmd's pre-flight found wrong before the next ring (alarm check says more).
            for warning in status.warnings { print("warning: \(warning)") }
        } else {
            print("alarmd is running (no status yet)")
        }
        if !running { throw ExitCode.notRunning }
    }
}

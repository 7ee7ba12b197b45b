import AlarmState
import AlarmCore
import AlarmOptions
import ArgumentParser
import FoundationEssentials

/// `alarm resume [ID...|--all]`: ends a pause now.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "End the pause of alarms: they ring again from now.")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The ids to resume.")
    var ids: [String] = []

    @Flag(help: "Resume every alarm.")
    var all = false

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give the ids to resume, or --all") }
    }

    func run() throws {
        let ctx = try AlarmContext(options)
        var wasPaused = Set<String>()
        let changed = try ctx.changeEach(ids: ids, all: all, done: "resumed") { a in
            if a.pause != nil, a.isPaused(at: ctx.now, systemZone: ctx.zone) { wasPaused.insert(a.id) }
            a.pause = nil
        }
        if changed.isEmpty { print("no alarms to resume") }
        for a in changed where !all || wasPaused.contains(a.id) {
            let next = ctx.nextRing(a).map { "next ring " + ctx.rfc3339($0, for: a) } ?? "it never rings again"
            print(wasPaused.contains(a.id) ? "resumed \(a.id): \(next)" : "\(a.id) was not paused: \(next)")
        }
        if all && wasPaused.isEmpty && !changed.isEmpty { print("no alarm was paused") }
    }
}

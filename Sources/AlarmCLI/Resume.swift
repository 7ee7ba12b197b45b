import AlarmCore
import AlarmOptions
import ArgumentParser
import FoundationEssentials

/// `alarm resume [ID...|--all]`: ends a pause now.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End the pause of alarms: they ring again from now.")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The ids to resume.")
    var ids: [String] = []

    @Flag(help: "Resume every alarm.")
    var all = false

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give the ids to resume, or --all") }
    }

    func run() throws {
        let ctx = try Context(options)
        var wasPaused = Set<String>()
        let result: (changed: [Alarm], missing: [String])
        do {
            result = try ctx.store.update { list in
                let missing = ids.filter { id in !list.contains { $0.id == id } }
                guard missing.isEmpty else { return ([], missing) }
                var changed: [Alarm] = []
                for i in list.indices where all || ids.contains(list[i].id) {
                    if list[i].pause != nil, list[i].isPaused(at: ctx.now, systemZone: ctx.zone) { wasPaused.insert(list[i].id) }
                    list[i].pause = nil
                    changed.append(list[i])
                }
                return (changed, [])
            }
        } catch { throw CLIError(error) }
        if !result.missing.isEmpty {
            throw CLIError("no alarm with id \(result.missing.map { "'\($0)'" }.joined(separator: ", ")); nothing was resumed")
        }
        if result.changed.isEmpty { print("no alarms to resume") }
        for a in result.changed where !all || wasPaused.contains(a.id) {
            let next = ctx.nextRing(a).map { "next ring " + ctx.rfc3339($0, for: a) } ?? "it never rings again"
            print(wasPaused.contains(a.id) ? "resumed \(a.id): \(next)" : "\(a.id) was not paused: \(next)")
        }
        if all && wasPaused.isEmpty && !result.changed.isEmpty { print("no alarm was paused") }
    }
}

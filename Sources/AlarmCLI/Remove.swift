import AlarmState
import AlarmOptions
import AlarmCore
import ArgumentParser

/// `alarm remove ID... | --all`.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove alarms by id, or all of them.")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The ids to remove.")
    var ids: [String] = []

    @Flag(help: "Remove every alarm.")
    var all = false

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give the ids to remove, or --all") }
    }

    func run() throws {
        let ctx = try AlarmContext(options)
        do {
            if all {
                let n = try ctx.store.removeAll()
                print("removed \(n) alarm(s)")
                return
            }
            let missing = try ctx.store.remove(ids: ids)
            let removed = ids.filter { !missing.contains($0) }
            if !removed.isEmpty { print("removed \(removed.joined(separator: ", "))") }
            if !missing.isEmpty {
                throw UserError("no alarm with id \(missing.map { "'\($0)'" }.joined(separator: ", "))")
            }
        } catch let error as UserError { throw error } catch { throw UserError(error) }
    }
}

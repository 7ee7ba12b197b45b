import AlarmOptions
import AlarmCore
import ArgumentParser
import Foundation

/// `alarm import FILE`: adds every alarm of a `list --json` / `export` file; ids already
/// stored are replaced. All or nothing: a bad file changes nothing.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add the alarms of a JSON file (the list --json format; '-' for stdin).")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The file to import, or - for standard input.")
    var file: String

    func run() throws {
        let ctx = try Context(options)
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch { throw CLIError("cannot read \(file): \(error.localizedDescription)") }
        let incoming: [Alarm]
        do { incoming = try JSONDecoder().decode([Alarm].self, from: data) } catch {
            throw CLIError("\(file) is not an alarm list (the format of alarm list --json): \(error)")
        }
        var seen = Set<String>()
        for alarm in incoming {
            do { try Alarm.validate(id: alarm.id) } catch { throw CLIError("\(file): \(error)") }
            guard seen.insert(alarm.id).inserted else { throw CLIError("\(file): the id '\(alarm.id)' appears twice") }
        }
        var replaced = 0
        do {
            try ctx.store.update { alarms in
                for alarm in incoming {
                    if let i = alarms.firstIndex(where: { $0.id == alarm.id }) {
                        alarms[i] = alarm
                        replaced += 1
                    } else {
                        alarms.append(alarm)
                    }
                }
            }
        } catch { throw CLIError(error) }
        print("imported \(incoming.count) alarm(s)\(replaced > 0 ? " (\(replaced) replaced)" : "")")
    }
}

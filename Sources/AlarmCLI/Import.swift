import AlarmState
import AlarmSystem
import AlarmOptions
import AlarmCore
import ArgumentParser
import FoundationEssentials

/// `alarm import FILE`: adds every alarm of a `list --json` / `export` file; ids already
/// stored are replaced. All or nothing: a bad file changes nothing.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the alarms of a JSON file (the list --json format; '-' for stdin).")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The file to import, or - for standard input.")
    var file: String

    func run() throws {
        let ctx = try AlarmContext(options)
        let data: Data
        do {
            data = Data(
                try AtomicFile.read(file == "-" ? "/dev/stdin" : file)
                    ?? { throw UserError("cannot read \(file): no such file") }())
        } catch let error as UserError { throw error } catch { throw UserError("cannot read \(file): \(error)") }
        let incoming: [Alarm]
        do { incoming = try JSONDecoder().decode([Alarm].self, from: data) } catch {
            throw UserError("\(file) is not an alarm list (the format of alarm list --json): \(error)")
        }
        var seen = Set<String>()
        for alarm in incoming {
            do { try Alarm.validate(id: alarm.id) } catch { throw UserError("\(file): \(error)") }
            guard seen.insert(alarm.id).inserted else { throw UserError("\(file): the id '\(alarm.id)' appears twice") }
        }
        var replaced = 0
        do {
            try ctx.store.update { alarms in
                // A given `created` is kept (a backup restored rings what it owed); else the
                // alarm counts from now, like one just added.
                let now = Alarm.stamp(Date())
                var index = Dictionary(alarms.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
                for var alarm in incoming {
                    if alarm.created == nil { alarm.created = now }
                    if let i = index[alarm.id] {
                        alarms[i] = alarm
                        replaced += 1
                    } else {
                        index[alarm.id] = alarms.count
                        alarms.append(alarm)
                    }
                }
            }
        } catch { throw UserError(error) }
        print("imported \(incoming.count) alarm(s)\(replaced > 0 ? " (\(replaced) replaced)" : "")")
    }
}

import AlarmCore
import AlarmOptions
import AlarmState
import ArgumentParser
import FoundationEssentials

/// `alarm config`: every effective setting, its value and where it came from (issue #41): the
/// default, a line of the config file or of one of its drop-ins (`alarm.conf.d/*.conf`), the
/// environment or an option. Refuses a config with an unknown key or a bad value, naming each
/// file and line, so that a drop-in's typo is found before the morning it matters.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show every setting in force, with its value and where it came from.",
        discussion: """
            Settings come from /etc/alarm/alarm.conf, then every *.conf file in \
            /etc/alarm/alarm.conf.d/ in name order (a later file wins), then the environment \
            (ALARM_STATE_DIR, ...) and options. Each line reads KEY = VALUE # SOURCE, SOURCE being \
            default, FILE:LINE, environment NAME or option --NAME; an unset setting has no value \
            and says what applies. Exit status 1, with each bad line named, when a file has an \
            unknown key or a value that cannot be used.
            """)

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print {\"KEY\": {\"value\": ..., \"source\": ...}, ...} (value null when unset).")
    var json = false

    func run() throws {
        let problems = Configuration.problems(flags: options.flags)
        guard problems.isEmpty else {
            throw UserError(problems.map(\.description).joined(separator: "\n"))
        }
        let config = try options.configuration()
        let settings = config.effectiveSettings()
        if json {
            var object: [String: JSONValue] = [:]
            for s in settings {
                object[s.key] = .object([
                    "value": s.value.map(JSONValue.string) ?? .null, "source": .string(s.source),
                ])
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self))
            return
        }
        let left = settings.map { "\($0.key) = \($0.value ?? "")" }
        let width = left.map(\.count).max() ?? 0
        for (text, s) in zip(left, settings) {
            let pad = String(repeating: " ", count: width - text.count)
            let source = s.value == nil && s.source == "default" ? "default (unset: \(s.unset))" : s.source
            print("\(text)\(pad)  # \(source)")
        }
    }
}

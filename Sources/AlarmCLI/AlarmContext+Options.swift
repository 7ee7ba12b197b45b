import AlarmOptions
import AlarmState

extension AlarmContext {
    /// The context of a subcommand, from its settings options; `lenient` for the commands that
    /// talk to a running alarmd (a broken config file is then a warning).
    init(_ options: SettingsOptions, lenient: Bool = false) throws {
        self.init(config: lenient ? options.lenientConfiguration() : try options.configuration())
    }
}

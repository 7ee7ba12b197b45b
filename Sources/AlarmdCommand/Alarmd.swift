import AlarmDaemon
import AlarmState
import AlarmOptions
import AlarmSystem
import ArgumentParser
import FoundationEssentials
import Logging

/// `alarmd`: the alarm clock daemon. Wiring only: settings → `Daemon` → run. The `alarmd`
/// executable and the multi-call binary (when called as `alarmd`) run it.
public struct Alarmd: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarmd",
        abstract: "The alarm clock daemon: rings alarms on time and obeys alarm snooze / alarm stop.",
        discussion: """
            Settings come from the flag, else the environment variable, else the config file, else the default. \
            Logs go to stderr with syslog priority prefixes, for journald.
            """,
        version: AlarmVersion.string)

    @OptionGroup var settings: SettingsOptions
    @Flag(help: "Log debug messages too.")
    var verbose = false

    public func run() throws {
        // Before anything can start a thread: signal masks are inherited by threads, and
        // SIGTERM must reach the signalfd, not kill the process mid-write.
        try SignalFD.block([.terminate, .interrupt, .hangup])
        try SignalFD.ignore(.pipe)
        _ = Directories.setUmask(0o007)
        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        var logger = Logger(label: "alarmd")
        logger.logLevel = verbose ? .debug : .info
        AlsaLog.route(to: logger)
        do {
            let flags = settings.flags
            let daemon = try Daemon(
                config: try Configuration.resolve(flags: flags), logger: logger,
                resolveConfiguration: { try Configuration.resolve(flags: flags) })
            try daemon.run()
        } catch {
            logger.critical("alarmd cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

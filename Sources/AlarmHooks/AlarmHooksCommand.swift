import AlarmCore
import AlarmState
import AlarmOptions
import AlarmSystem
import ArgumentParser
import FoundationEssentials
import Logging

/// `alarm-hooks`: runs the hooks for each event alarmd writes (issue #13). Wiring only: settings
/// → `HooksRunner` → run. The multi-call binary runs it when called as `alarm-hooks`;
/// `alarm-hooks.service` starts it.
public struct AlarmHooksCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarm-hooks",
        abstract: "Run the hooks in /etc/alarm/hooks.d for each event of alarmd, until stopped.",
        discussion: """
            Each executable of the hooks directory runs once per event, with the event as one JSON object \
            on stdin (as `alarm watch --json` prints it) and ALARM_EVENT, ALARM_ID, ALARM_LABEL, \
            ALARM_SCHEDULED, ALARM_AT, ALARM_SOUND, ALARM_SEQ, ALARM_LEAD (a pre-alarm's lead in seconds) \
            and ALARM_RUNTIME_DIR in its environment. \
            A run that takes longer than hook_timeout is killed; failures are logged. \
            It runs as its own service (alarm-hooks.service), never inside alarmd.
            """,
        version: AlarmVersion.string)

    @OptionGroup var settings: SettingsOptions

    @Option(
        help: ArgumentHelp(
            "The hooks (env ALARM_HOOKS_DIR, config hooks_dir; default /etc/alarm/hooks.d).", valueName: "dir"))
    var hooksDir: String?

    @Option(
        help: ArgumentHelp(
            "How long one hook may run before it is killed (config hook_timeout; default 10s).", valueName: "duration"))
    var timeout: String?

    @Flag(help: "Log each hook's start too.")
    var verbose = false

    public func validate() throws {
        if let timeout {
            do { _ = try Durations.parse(timeout) } catch { throw ValidationError("--timeout: \(error)") }
        }
    }

    public func run() throws {
        try SignalFD.block([.terminate, .interrupt])
        try SignalFD.ignore(.pipe)
        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        var logger = Logger(label: "alarm-hooks")
        logger.logLevel = verbose ? .debug : .info
        do {
            let config = try settings.configuration()
            let environment = ProcessInfo.processInfo.environment
            let runner = try HooksRunner(
                settings: .init(
                    eventsPath: config.eventsPath, hooksDir: hooksDir ?? config.hooksDir,
                    timeout: try timeout.map(Durations.parse) ?? config.hookTimeout, runtimeDir: config.runtimeDir,
                    environment: environment),
                logger: logger)
            try runner.run()
        } catch {
            logger.critical("alarm-hooks cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

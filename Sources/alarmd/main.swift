import AlarmDaemon
import AlarmSystem
import ArgumentParser
import Foundation
import Logging

/// `alarmd`: the alarm clock daemon. Wiring only: settings → `Daemon` → run.
@main
struct Alarmd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarmd",
        abstract: "The alarm clock daemon: rings alarms on time and obeys alarm snooze / alarm stop.",
        discussion: """
            Settings come from the flag, else the environment variable, else the config file, else the
            default. Logs go to stderr with syslog priority prefixes, for journald.
            """)

    @Option(help: ArgumentHelp("Alarms, ring state and history (env ALARM_STATE_DIR; default /var/lib/alarm).", valueName: "dir"))
    var stateDir: String?
    @Option(help: ArgumentHelp("The control FIFO and status.json (env ALARM_RUNTIME_DIR; default /run/alarm).", valueName: "dir"))
    var runtimeDir: String?
    @Option(help: ArgumentHelp("Sound directories, colon-separated (env ALARM_SOUNDS_DIR).", valueName: "dirs"))
    var soundsDir: String?
    @Option(help: ArgumentHelp("The ALSA PCM to play on (env ALARM_DEVICE; default 'default').", valueName: "pcm"))
    var device: String?
    @Option(help: ArgumentHelp("The config file (env ALARM_CONFIG; default /etc/alarm/alarm.conf).", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("The zone file to read and watch (env ALARM_LOCALTIME; default /etc/localtime).", valueName: "path"))
    var localtime: String?
    @Flag(help: "Log debug messages too.")
    var verbose = false

    func run() throws {
        // Before anything can start a thread: signal masks are inherited by threads, and
        // SIGTERM must reach the signalfd, not kill the process mid-write.
        try SignalFD.block([.terminate, .interrupt, .hangup])
        try SignalFD.ignore(.pipe)
        _ = Directories.setUmask(0o007)
        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        var logger = Logger(label: "alarmd")
        logger.logLevel = verbose ? .debug : .info
        do {
            let flags = Configuration.Flags(
                stateDir: stateDir, runtimeDir: runtimeDir, soundsDir: soundsDir, device: device, config: config,
                localtime: localtime)
            let settings = try Configuration.resolve(flags: flags)
            let daemon = try Daemon(config: settings, logger: logger, resolveConfiguration: { try Configuration.resolve(flags: flags) })
            try daemon.run()
        } catch {
            logger.critical("alarmd cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

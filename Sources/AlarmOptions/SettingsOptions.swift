import AlarmState
import ArgumentParser
import AlarmSystem
import FoundationEssentials

/// The settings `alarm` and `alarmd` share, declared once: flag, then environment variable, then
/// the config file, then the default (see `Configuration`).
public struct SettingsOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "Alarms, ring state and history (env ALARM_STATE_DIR; default /var/lib/alarm).", valueName: "dir"))
    var stateDir: String?

    @Option(
        help: ArgumentHelp(
            "The control FIFO and status.json (env ALARM_RUNTIME_DIR; default /run/alarm).", valueName: "dir"))
    var runtimeDir: String?

    @Option(help: ArgumentHelp("Sound directories, colon-separated (env ALARM_SOUNDS_DIR).", valueName: "dirs"))
    var soundsDir: String?

    @Option(help: ArgumentHelp("The ALSA PCM to play on (env ALARM_DEVICE; default 'default').", valueName: "pcm"))
    var device: String?

    @Option(help: ArgumentHelp("The config file (env ALARM_CONFIG; default /etc/alarm/alarm.conf).", valueName: "file"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "The zone file that names the system zone (env ALARM_LOCALTIME; default /etc/localtime).", valueName: "path"
        ))
    var localtime: String?

    /// The flags as given (nil where not given), for `Configuration.resolve`.
    public var flags: Configuration.Flags {
        .init(
            stateDir: stateDir, runtimeDir: runtimeDir, soundsDir: soundsDir, device: device, config: config,
            localtime: localtime)
    }

    /// For the commands that talk to a running alarmd (stop, snooze, ring, status): a broken
    /// config file is a warning, not a reason to leave an alarm ringing.
    public func lenientConfiguration() -> Configuration {
        let (config, problem) = Configuration.resolveLeniently(flags: flags)
        if let problem { StandardError.write("warning: \(problem); using the other settings") }
        return config
    }

    /// Every setting resolved; a `ConfigurationError` names the file, line and key.
    public func configuration() throws -> Configuration {
        try Configuration.resolve(flags: flags)
    }
}

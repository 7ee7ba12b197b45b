import AlarmState
import ArgumentParser
import AlarmSystem
import FoundationEssentials

/// The settings `alarm` and `alarmd` share, declared once: flag, then environment variable, then
/// the config file, then the default (see `Configuration`).
public struct SettingsOptions: ParsableArguments {
    public init() {}

    @OptionGroup var paths: PathSettingsOptions

    @Option(help: ArgumentHelp("The ALSA PCM to play on (env ALARM_DEVICE; default 'default').", valueName: "pcm"))
    var device: String?

    /// The flags as given (nil where not given), for `Configuration.resolve`.
    public var flags: Configuration.Flags {
        var flags = paths.flags
        flags.device = device
        return flags
    }

    /// For the commands that talk to a running alarmd (stop, snooze, ring, status): a broken
    /// config file is a warning, not a reason to leave an alarm ringing.
    public func lenientConfiguration() -> Configuration {
        Self.lenient(flags)
    }

    /// Every setting resolved; a `ConfigurationError` names the file, line and key.
    public func configuration() throws -> Configuration {
        try Configuration.resolve(flags: flags)
    }

    static func lenient(_ flags: Configuration.Flags) -> Configuration {
        let (config, problem) = Configuration.resolveLeniently(flags: flags)
        if let problem { StandardError.write("warning: \(problem); using the other settings") }
        return config
    }
}

/// The settings that name files and directories: all of `SettingsOptions` but the device. For
/// `alarm ring`, which asks alarmd to ring on alarmd's own device: a `--device` there would be
/// offered and never used (issue #32).
public struct PathSettingsOptions: ParsableArguments {
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

    @Option(help: ArgumentHelp("The config file (env ALARM_CONFIG; default /etc/alarm/alarm.conf).", valueName: "file"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "The zone file that names the system zone (env ALARM_LOCALTIME; default /etc/localtime).", valueName: "path"
        ))
    var localtime: String?

    /// The flags as given (nil where not given), for `Configuration.resolve`.
    public var flags: Configuration.Flags {
        .init(stateDir: stateDir, runtimeDir: runtimeDir, soundsDir: soundsDir, config: config, localtime: localtime)
    }

    /// As `SettingsOptions.lenientConfiguration()`.
    public func lenientConfiguration() -> Configuration {
        SettingsOptions.lenient(flags)
    }
}

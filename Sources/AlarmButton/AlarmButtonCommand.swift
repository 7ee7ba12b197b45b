import AlarmCore
import AlarmOptions
import AlarmState
import AlarmSystem
import ArgumentParser
import FoundationEssentials
import Logging

/// `alarm-button`: the bedside button (issue #30). Wiring only: settings → `ButtonReader` → run.
/// The multi-call binary runs it when called as `alarm-button`; `alarm-button.service` starts it.
public struct AlarmButtonCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarm-button",
        abstract: "Snooze or stop the ringing alarm with a button: a key of an input device (evdev).",
        discussion: """
            A short press snoozes the ringing alarm; a press held button_hold (default 2s) stops it, \
            a snoozed one too. A press while nothing rings does nothing. The button is a key of a Linux \
            input device: a GPIO pin through the Raspberry Pi's gpio-key overlay \
            (dtoverlay=gpio-key,gpio=17,active_low=1,gpio_pull=up,keycode=256 in config.txt), or a USB or \
            Bluetooth button, presenter, remote or keyboard. The device is held for alarm-button alone \
            (EVIOCGRAB), and waited for when it is absent or unplugged. It talks to alarmd through its \
            control FIFO, as alarm snooze and alarm stop do. Settings (flag, else alarm.conf): \
            button_device, button_keys, button_hold. alarm devices lists the input devices. \
            It runs as its own service (alarm-button.service), never inside alarmd.
            """,
        version: AlarmVersion.string)

    @OptionGroup var settings: SettingsOptions

    @Option(
        help: ArgumentHelp(
            "The input device: a path (/dev/input/by-path/...) or a name as /proc/bus/input/devices shows it (config button_device; default the first gpio-keys device that sends one of the keys, never a power button whose only key is KEY_POWER unless the keys name it).",
            valueName: "path|name"))
    var buttonDevice: String?

    @Option(
        help: ArgumentHelp(
            "The keys that count, by code or name, separated by commas: KEY_ENTER,256 (config button_keys; default any key).",
            valueName: "keys"))
    var buttonKeys: String?

    @Option(
        help: ArgumentHelp(
            "How long a press must be held to stop (config button_hold; default 2s).", valueName: "duration"))
    var buttonHold: String?

    @Flag(help: "Log every key press too.")
    var verbose = false

    public func validate() throws {
        if let buttonHold {
            do { _ = try Durations.parse(buttonHold) } catch { throw ValidationError("--button-hold: \(error)") }
        }
        if let buttonKeys {
            do { _ = try KeyCodes.parseList(buttonKeys) } catch { throw ValidationError("--button-keys: \(error)") }
        }
    }

    public func run() throws {
        try SignalFD.block([.terminate, .interrupt])
        try SignalFD.ignore(.pipe)
        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        var logger = Logger(label: "alarm-button")
        logger.logLevel = verbose ? .debug : .info
        do {
            // Leniently: a broken config file must not keep the button from stopping an alarm.
            let (config, problem) = Configuration.resolveLeniently(flags: settings.flags)
            if let problem { logger.warning("\(problem); using the other settings") }
            let reader = try ButtonReader(
                settings: .init(
                    device: buttonDevice ?? config.buttonDevice,
                    keys: try buttonKeys.map(KeyCodes.parseList) ?? config.buttonKeys,
                    hold: try buttonHold.map(Durations.parse) ?? config.buttonHold,
                    environment: ProcessInfo.processInfo.environment),
                ctx: AlarmContext(config: config), logger: logger)
            try reader.run()
        } catch {
            logger.critical("alarm-button cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

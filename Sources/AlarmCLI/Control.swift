import AlarmState
import Glibc
import AlarmOptions
import AlarmCore
import AlarmSystem
import ArgumentParser
import FoundationEssentials

extension ExitCode {
    /// alarmd is not running (or cannot be reached at all).
    static let notRunning = ExitCode(3)
    /// alarmd runs, but this user may not tell it anything (not in the FIFO's group).
    static let notAllowed = ExitCode(4)
}

extension ControlOutcome {
    /// Prints the outcome as the CLI does; exit 1 when not done, 3 when alarmd does not run, 4
    /// when this user may not write its FIFO.
    static func report(_ body: () throws -> ControlOutcome) throws {
        ControlRequest.notice = { printError($0) }
        let outcome: ControlOutcome
        do { outcome = try body() } catch {
            printError("\(error)")
            if case ControlFIFOError.permissionDenied = error { throw ExitCode.notAllowed }
            throw ExitCode.notRunning
        }
        guard outcome.done else {
            printError(outcome.message)
            throw ExitCode(1)
        }
        print(outcome.message)
    }
}

struct Snooze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Snooze the ringing alarm (default length from the alarm or config).")
    @OptionGroup var options: SettingsOptions
    @Argument(help: "How long: 90s, 5m, 1h30m.") var duration: String?

    func validate() throws {
        if let duration { do { _ = try Durations.parse(duration) } catch { throw ValidationError("\(error)") } }
    }

    func run() throws {
        let ctx = try AlarmContext(options, lenient: true)
        try ControlOutcome.report { try .snooze(ctx, duration: duration) }
    }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop the ringing (or snoozed) alarm.")
    @OptionGroup var options: SettingsOptions

    func run() throws {
        let ctx = try AlarmContext(options, lenient: true)
        try ControlOutcome.report { try .stop(ctx) }
    }
}

/// `alarm ring`: asks alarmd to ring now, on alarmd's device (the `device` setting in its config):
/// no `--device` here, as the request carries only the sound. `alarm play --device` plays here.
struct Ring: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ring", abstract: "Ring now (to test the speaker or wake someone).",
        discussion: """
            alarmd rings as it rings an alarm, on its own device (the device setting of its config \
            file), until alarm stop or alarm snooze, or until the ring setting's length passes. \
            To hear a sound on another device, without alarmd, use alarm play --device.
            """)
    @OptionGroup var options: PathSettingsOptions
    @Option(
        help: ArgumentHelp(
            "The sound file name, or an http or https stream URL (default: the config's sound, else the built-in tone).",
            valueName: "name|url"))
    var sound: String?

    func validate() throws {
        if let sound, sound.contains("\n") || sound.isEmpty {
            throw ValidationError("--sound must be a file name or a stream URL")
        }
        if let sound, let problem = SoundSpec.problem(sound) { throw ValidationError("--sound: \(problem)") }
    }

    func run() throws {
        let ctx = AlarmContext(config: options.lenientConfiguration())
        try ControlOutcome.report { try .ring(ctx, sound: sound) }
    }
}

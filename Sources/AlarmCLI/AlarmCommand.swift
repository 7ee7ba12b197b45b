import AlarmState
import AlarmOptions
import ArgumentParser

/// `alarm`: the command line. The `alarm` executable and the multi-call binary run it.
public struct AlarmCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: "A bedside alarm clock for Linux: manage alarms and talk to alarmd.",
        version: AlarmVersion.string,
        subcommands: [
            Add.self, List.self, Remove.self, Skip.self, Unskip.self, Pause.self, Resume.self, Next.self, Status.self,
            History.self,
            Snooze.self, Stop.self, Ring.self, Import.self, Export.self, Preview.self, Sounds.self, Play.self,
            CheckCommand.self,
            Devices.self, Watch.self, WebToken.self, WebURL.self, Config.self,
            Licences.self, DecodeSound.self,
        ])
}

extension AlarmCommand {
    /// What the executables run: alsa-lib's own error lines become rate-limited `alarm: alsa-lib:`
    /// lines on stderr (`AlsaLog`) for every subcommand that opens ALSA (play, devices, check),
    /// then the command line is parsed and run.
    public static func start() {
        AlsaLog.routeToStandardError(program: "alarm")
        main()
    }
}

import AlarmAudio
import AlarmState
import ArgumentParser

/// Options shared by the commands that look sounds up. The directories (and, for `play`, the
/// device) resolve like every other setting: flag, environment, config file, default.
struct SoundOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Colon-separated sound directories, searched in order (default: $ALARM_SOUNDS_DIR, else the installed sounds then <state dir>/sounds).",
            valueName: "dirs"))
    var soundsDir: String?

    func configuration(device: String? = nil) throws -> Configuration {
        do { return try Configuration.resolve(flags: .init(soundsDir: soundsDir, device: device)) } catch {
            throw UserError(error)
        }
    }

    /// The library, decoding in a child that is not root when run as root (`RootDecoding`).
    var library: SoundLibrary {
        get throws { try configuration().soundLibrary.decodingSafely }
    }
}

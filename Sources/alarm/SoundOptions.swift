import AlarmAudio
import ArgumentParser

/// Options shared by the commands that look sounds up.
struct SoundOptions: ParsableArguments {
    @Option(name: .customLong("sounds-dir"), help: ArgumentHelp(
        "Colon-separated sound directories, searched in order (default: $ALARM_SOUNDS_DIR, else the installed sounds then <state dir>/sounds).",
        valueName: "dirs"))
    var soundsDir: String?

    var library: SoundLibrary { SoundLibrary.configured(soundsDir: soundsDir) }
}

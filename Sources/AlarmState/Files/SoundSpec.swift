import AlarmAudio
import AlarmCore

/// The checks of a sound as `--sound`, the config's `sound` and alarm-web take it (issue #43): a
/// stream URL (http or https, see `StreamURL`), or file names (one, a comma-separated list, `*`),
/// each a plain file name. Pure: looks at the text only; whether the sound plays is
/// `alarm check`'s question.
public enum SoundSpec {
    /// Why `spec` is refused, nil when it is taken. The message names the sound.
    public static func problem(_ spec: String) -> String? {
        let selection = SoundSelection(spec)
        if let url = selection.streamURL {
            do throws(AlarmError) { try StreamURL.validate(url) } catch { return "\(error)" }
            return nil
        }
        guard selection.names?.isEmpty != true else { return "no sound named in '\(spec)'" }
        if spec.contains("\n") { return "a sound name cannot contain a line break" }
        for name in selection.names ?? [] {
            do throws(SoundProblem) { try SoundLibrary.checkName(name) } catch { return "\(error)" }
        }
        return nil
    }

    /// Why `name` is refused as `--fallback-sound`: a single file name (no list, `*` or stream).
    public static func fallbackProblem(_ name: String) -> String? {
        switch SoundSelection(name) {
        case .one(let n):
            do throws(SoundProblem) { try SoundLibrary.checkName(n) } catch { return "\(error)" }
            return nil
        case .list, .any, .stream:
            return "the fallback sound '\(name)' must be one sound file name (no list, '*' or stream URL)"
        }
    }
}

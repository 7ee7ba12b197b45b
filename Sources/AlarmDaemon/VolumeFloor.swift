import AlarmState
import AlarmAudio
import AlarmSystem
import FoundationEssentials
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The volume floor (config `mixer_floor`, `mixer_control`): when a ring's first frame reached a
/// device, the mixer control of that device's card is unmuted and raised to the floor if it is
/// muted or lower; when the sound stops, it is put back as it was.
///
/// Which mixer: the card the PCM plays on (alsa-lib reports it for `hw`, `plughw` and plugins
/// over them), else the card its name names (`CARD=`, `hw:N`), else the control device of the
/// PCM's own name (`default`, `pulse`); a PCM with none of these (`null`, a file) is left alone.
///
/// Crash safety: the levels are saved to `<state-dir>/mixer.json` (atomically) *before* the mixer
/// is changed, and the file is removed once they are put back. A file found at start means a
/// crash while a ring had the mixer raised: `restoreAfterCrash` puts those levels back.
///
/// Only the daemon's loop thread uses it.
final class VolumeFloor {
    let path: String
    var floor: Int
    var control: String?
    private let logger: Logger
    /// The levels as they were before this daemon raised them; put back by `restore`.
    private(set) var saved: [MixerLevel] = []

    init(stateDir: String, floor: Int, control: String?, logger: Logger) {
        path = stateDir + "/mixer.json"
        self.floor = floor
        self.control = control
        self.logger = logger
    }

    /// Raises the mixer of the card `pcm` plays on (`card`, when the player knows it). Returns
    /// what it did ("mixer 'Master' raised from 12 %, muted, to 50 %"), or nil when the floor is
    /// off, the level was high enough, or there is no mixer (logged).
    func raise(pcm: String, card: Int?) -> String? {
        guard floor > 0 else { return nil }
        guard let device = AlsaDevices.controlDevice(forPCM: pcm, card: card) else {
            logger.info("volume floor: the device '\(pcm)' belongs to no sound card; no mixer to raise")
            return nil
        }
        let level: MixerLevel
        do { level = try AlsaMixer.read(device: device, control: control) } catch {
            if control == nil, (try? AlsaMixer.levels(device: device))?.isEmpty == true {
                // Many cards have no volume control at all (HDMI, I2S amplifiers, snd-aloop).
                logger.info("volume floor: the mixer of '\(device)' has no playback volume control; nothing to raise")
            } else {
                logger.warning("volume floor: \(error); the volume is left as it is")
            }
            return nil
        }
        guard let target = level.raised(toFloor: floor) else {
            logger.info("volume floor: mixer \(level.summary), at or above \(floor) %")
            return nil
        }
        // A ring that took over from another keeps the level from before the first one.
        if !saved.contains(where: { $0.matches(level) }) {
            saved.append(level)
            save()
        }
        do { try AlsaMixer.write(target) } catch {
            logger.warning("volume floor: \(error); mixer \(level.summary) stays below \(floor) %")
            return nil
        }
        let after =
            (try? AlsaMixer.read(
                device: device, control: target.index == 0 ? target.control : "\(target.control),\(target.index)"))
            ?? target
        let note = MixerLevel.describeRaise(from: level, to: after)
        logger.notice("\(note) on \(device) (mixer_floor \(floor) %); it is put back when the ring ends")
        return note
    }

    /// Puts back the levels `raise` changed and removes `mixer.json`. Does nothing when nothing
    /// was raised.
    func restore() {
        guard !saved.isEmpty else { return }
        saved = put(back: saved, why: "")
        if saved.isEmpty { remove() } else { save() }
    }

    /// At start: a `mixer.json` left by a crash during a ring. Its levels are put back and the
    /// file removed; levels that cannot be put back now (the card not there yet) stay saved and
    /// are tried again when the next ring ends.
    func restoreAfterCrash() {
        let bytes: [UInt8]
        do {
            let read = try StoreError.refusing("a list of mixer levels") {
                try AtomicFile.read(path, limit: StateFiles.maxBytes)
            }
            guard let b = read else { return }
            bytes = b
        } catch {
            logger.error("volume floor: cannot read the saved mixer levels: \(error)")
            return
        }
        guard let levels = try? JSONDecoder().decode([MixerLevel].self, from: Data(bytes)) else {
            logger.error("volume floor: \(path) is not a list of mixer levels; removed without putting anything back")
            remove()
            return
        }
        saved = put(back: levels, why: " after a crash (saved in \(path))")
        if saved.isEmpty { remove() } else { save() }
    }

    /// Writes each level back; returns those that could not be.
    private func put(back levels: [MixerLevel], why: String) -> [MixerLevel] {
        var failed: [MixerLevel] = []
        for level in levels {
            do {
                try AlsaMixer.write(level)
                logger.notice("\(MixerLevel.describeRestore(level)) on \(level.device)\(why)")
            } catch {
                logger.warning("volume floor: could not put back mixer \(level.summary)\(why): \(error)")
                failed.append(level)
            }
        }
        return failed
    }

    private func save() {
        do {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            try AtomicFile.write(
                Array(try e.encode(saved)) + [UInt8(ascii: "\n")], to: path, permissions: StateFiles.daemonMode,
                ignoringUmask: true)
        } catch {
            logger.warning(
                "volume floor: cannot save the mixer levels to \(path) (\(error)); after a crash they would not be put back"
            )
        }
    }

    private func remove() {
        if unlink(path) != 0 && errno != ENOENT {
            logger.warning("volume floor: cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }
}

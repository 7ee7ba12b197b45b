import AlarmCore
import CAlsa
#if canImport(Glibc)
import Glibc
#endif

/// A mixer that could not be opened, read or set, or a control that is not there.
public struct MixerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads and sets playback levels through alsa-lib's simple mixer API (what `amixer` uses), on
/// an ALSA control device: `hw:CARD=Headphones`, `default`, `pulse`. Each call opens the mixer,
/// does its work and closes it again, so nothing stays open between rings. C types stay here.
public enum AlsaMixer {
    /// Simple controls that set the loudness of what a PCM plays, for choosing the default
    /// control among those without "Playback" in their names (alsa-lib's own order decides
    /// among them: Master, Headphone, Speaker, PCM, …).
    static let volumeNames: Set<String> = [
        "Master", "PCM", "Speaker", "Headphone", "Headphones", "Digital", "Line Out", "Front",
    ]

    /// Every playback volume control of `device`, in alsa-lib's order (Master first).
    /// The corresponding C functions are `snd_mixer_open`, `snd_mixer_attach`, `snd_mixer_load`.
    public static func levels(device: String) throws(MixerError) -> [MixerLevel] {
        let mixer = try Handle(device)
        return mixer.elements().filter { $0.isPlaybackVolume }.map { mixer.level($0) }
    }

    /// The level of `control` on `device` (`Master`, or `Master,1` for index 1), or of the default
    /// control when `control` is nil or empty: the first playback volume control, preferring
    /// `volumeNames` to controls whose volume is not marked as playback.
    public static func read(device: String, control: String?) throws(MixerError) -> MixerLevel {
        let mixer = try Handle(device)
        return mixer.level(try mixer.find(control))
    }

    /// Sets the control of `level` to its volumes and switches (channel by channel, as far as
    /// the control has them). The corresponding C functions are
    /// `snd_mixer_selem_set_playback_volume` and `snd_mixer_selem_set_playback_switch`.
    public static func write(_ level: MixerLevel) throws(MixerError) {
        let mixer = try Handle(level.device)
        let spec = level.index == 0 ? level.control : "\(level.control),\(level.index)"
        let element = try mixer.find(spec)
        for (ch, value) in zip(element.channels, level.volumes) {
            let rc = snd_mixer_selem_set_playback_volume(element.pointer, ch, value)
            guard rc >= 0 else { throw mixer.failure("setting the volume of \(level.label)", rc) }
        }
        guard element.hasSwitch else { return }
        for (ch, on) in zip(element.channels, level.switches) {
            let rc = snd_mixer_selem_set_playback_switch(element.pointer, ch, on ? 1 : 0)
            guard rc >= 0 else { throw mixer.failure("switching \(level.label) \(on ? "on" : "off")", rc) }
        }
    }

    /// `Master,1` → ("Master", 1); `Master` → ("Master", 0).
    static func parse(_ spec: String) -> (name: String, index: Int) {
        if let comma = spec.lastIndex(of: ","), let index = Int(spec[spec.index(after: comma)...].trimmingBlanks()) {
            return (String(spec[..<comma]).trimmingBlanks(), index)
        }
        return (spec.trimmingBlanks(), 0)
    }

    /// One simple control of an open mixer.
    struct Element {
        let pointer: OpaquePointer
        let name: String
        let index: Int
        let active: Bool
        let hasVolume: Bool
        /// The volume is marked as playback ("Master Playback Volume"), not common to both directions.
        let playbackOnly: Bool
        let hasSwitch: Bool
        let channels: [snd_mixer_selem_channel_id_t]

        var isPlaybackVolume: Bool { active && hasVolume && !channels.isEmpty }
        var spec: String { index == 0 ? name : "\(name),\(index)" }
    }

    /// An open, loaded simple mixer; closed when released.
    final class Handle {
        let device: String
        private let mixer: OpaquePointer

        init(_ device: String) throws(MixerError) {
            self.device = device
            var handle: OpaquePointer?
            var rc = snd_mixer_open(&handle, 0)
            guard rc >= 0, let handle else {
                throw MixerError("mixer of '\(device)': snd_mixer_open failed: \(Self.text(rc))")
            }
            rc = snd_mixer_attach(handle, device)
            if rc >= 0 { rc = snd_mixer_selem_register(handle, nil, nil) }
            if rc >= 0 { rc = snd_mixer_load(handle) }
            if rc < 0 {
                snd_mixer_close(handle)
                throw MixerError("the mixer of '\(device)' cannot be opened: \(Self.text(rc))")
            }
            // Only now: a throwing init that set every property would run deinit (a second close).
            mixer = handle
        }

        deinit { snd_mixer_close(mixer) }

        static func text(_ rc: Int32) -> String { String(cString: snd_strerror(rc)) }

        func failure(_ what: String, _ rc: Int32) -> MixerError {
            MixerError("mixer of '\(device)': \(what) failed: \(Self.text(rc))")
        }

        func elements() -> [Element] {
            var out: [Element] = []
            var next = snd_mixer_first_elem(mixer)
            while let e = next {
                next = snd_mixer_elem_next(e)
                let hasVolume = snd_mixer_selem_has_playback_volume(e) != 0
                var channels: [snd_mixer_selem_channel_id_t] = []
                if hasVolume {
                    if snd_mixer_selem_is_playback_mono(e) != 0 {
                        channels = [SND_MIXER_SCHN_MONO]
                    } else {
                        for raw in 0...SND_MIXER_SCHN_LAST.rawValue {
                            let ch = snd_mixer_selem_channel_id_t(rawValue: raw)
                            if snd_mixer_selem_has_playback_channel(e, ch) != 0 { channels.append(ch) }
                        }
                    }
                }
                out.append(
                    Element(
                        pointer: e, name: String(cString: snd_mixer_selem_get_name(e)),
                        index: Int(snd_mixer_selem_get_index(e)), active: snd_mixer_selem_is_active(e) != 0,
                        hasVolume: hasVolume, playbackOnly: hasVolume && snd_mixer_selem_has_common_volume(e) == 0,
                        hasSwitch: snd_mixer_selem_has_playback_switch(e) != 0, channels: channels))
            }
            return out
        }

        /// The control named `spec` (exact name first, then ignoring case), or the default one.
        func find(_ spec: String?) throws(MixerError) -> Element {
            let candidates = elements().filter(\.isPlaybackVolume)
            let list = candidates.isEmpty ? "none" : candidates.map { "'\($0.spec)'" }.joined(separator: ", ")
            guard let spec, !spec.trimmingBlanks().isEmpty else {
                if let e = candidates.first(where: { $0.playbackOnly || AlsaMixer.volumeNames.contains($0.name) }) {
                    return e
                }
                throw MixerError(
                    "the mixer of '\(device)' has no playback volume control such as Master, PCM, Speaker or Headphone (playback volume controls: \(list))"
                )
            }
            let (name, index) = AlsaMixer.parse(spec)
            if let e = candidates.first(where: { $0.name == name && $0.index == index }) { return e }
            if let e = candidates.first(where: { $0.name.lowercased() == name.lowercased() && $0.index == index }) {
                return e
            }
            throw MixerError("the mixer of '\(device)' has no playback volume control '\(spec)' (it has: \(list))")
        }

        func level(_ e: Element) -> MixerLevel {
            var lo = 0
            var hi = 0
            snd_mixer_selem_get_playback_volume_range(e.pointer, &lo, &hi)
            var volumes: [Int] = []
            var switches: [Bool] = []
            for ch in e.channels {
                var v = 0
                snd_mixer_selem_get_playback_volume(e.pointer, ch, &v)
                volumes.append(v)
                if e.hasSwitch {
                    var on: Int32 = 1
                    snd_mixer_selem_get_playback_switch(e.pointer, ch, &on)
                    switches.append(on != 0)
                }
            }
            return MixerLevel(
                device: device, control: e.name, index: e.index, min: lo, max: hi, volumes: volumes, switches: switches)
        }
    }
}

import CAlsa
#if canImport(Glibc)
import Glibc
#endif

/// A card's playback volume control as it stands: `alarm check` reads it (issue #11).
public struct MixerState: Equatable, Sendable {
    /// The control's name ("Master", "PCM", "Speaker").
    public var control: String
    /// Its loudest channel, in percent of the control's range.
    public var percent: Int
    /// Every channel's playback switch is off (a control without a switch is never muted).
    public var muted: Bool
}

/// Reads a card's playback mixer through alsa-lib's simple mixer API, read only. Kept on its own
/// so that a fuller mixer (the volume floor: raise, then restore) can take its place.
public enum MixerProbe {
    /// The control `control` of card `card`, or when nil the card's first active control with a
    /// playback volume (alsa-lib lists Master, then PCM, Speaker, Headphone ...). Nil when the
    /// card has no such control.
    /// The corresponding C functions are `snd_mixer_open`, `snd_mixer_attach`,
    /// `snd_mixer_selem_register`, `snd_mixer_load` and the `snd_mixer_selem_get_playback_*` calls.
    public static func read(card: Int, control: String?) throws(AlsaError) -> MixerState? {
        try read(device: "hw:\(card)", control: control)
    }

    /// The same for any ALSA control device (`hw:1`, or a plugin such as `pulse`).
    public static func read(device name: String, control: String?) throws(AlsaError) -> MixerState? {
        calsa_quiet_errors(1)
        defer { calsa_quiet_errors(0) }
        var handle: OpaquePointer?
        var rc = snd_mixer_open(&handle, 0)
        guard rc >= 0, let mixer = handle else { throw AlsaError(device: name, operation: "snd_mixer_open", code: rc) }
        defer { snd_mixer_close(mixer) }
        rc = snd_mixer_attach(mixer, name)
        guard rc >= 0 else { throw AlsaError(device: name, operation: "snd_mixer_attach", code: rc) }
        rc = snd_mixer_selem_register(mixer, nil, nil)
        guard rc >= 0 else { throw AlsaError(device: name, operation: "snd_mixer_selem_register", code: rc) }
        rc = snd_mixer_load(mixer)
        guard rc >= 0 else { throw AlsaError(device: name, operation: "snd_mixer_load", code: rc) }
        var element = snd_mixer_first_elem(mixer)
        while let e = element {
            element = snd_mixer_elem_next(e)
            guard snd_mixer_selem_is_active(e) != 0, snd_mixer_selem_has_playback_volume(e) != 0 else { continue }
            let elementName = String(cString: snd_mixer_selem_get_name(e))
            if let control, elementName != control { continue }
            return state(e, elementName)
        }
        return nil
    }

    private static func state(_ e: OpaquePointer, _ name: String) -> MixerState {
        var low = 0, high = 0
        snd_mixer_selem_get_playback_volume_range(e, &low, &high)
        var loudest = low
        var anyOn = false
        let hasSwitch = snd_mixer_selem_has_playback_switch(e) != 0
        for raw in 0...SND_MIXER_SCHN_LAST.rawValue {
            let channel = snd_mixer_selem_channel_id_t(rawValue: raw)
            guard snd_mixer_selem_has_playback_channel(e, channel) != 0 else { continue }
            var value = 0
            if snd_mixer_selem_get_playback_volume(e, channel, &value) >= 0 { loudest = max(loudest, value) }
            var on: Int32 = 1
            if hasSwitch, snd_mixer_selem_get_playback_switch(e, channel, &on) >= 0, on != 0 { anyOn = true }
        }
        let percent = high > low ? Int((Double(loudest - low) * 100 / Double(high - low)).rounded()) : 100
        return MixerState(control: name, percent: percent, muted: hasSwitch && !anyOn)
    }
}

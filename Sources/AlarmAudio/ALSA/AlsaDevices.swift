import AlarmCore
import CAlsa
#if canImport(Glibc)
import Glibc
#endif

/// A sound card as ALSA numbers and names it (`aplay -l`): number 0, id `Headphones`, name
/// `bcm2835 Headphones`, description (alsa-lib's long name) `bcm2835 Headphones`.
public struct SoundCard: Equatable, Sendable {
    public var number: Int
    /// What `CARD=` takes: stays the same when card numbers change (a USB device plugged in).
    public var id: String
    public var name: String
    public var description: String
}

/// A playback PCM that ALSA's configuration offers (`aplay -L`): `null`, `default`,
/// `plughw:CARD=Loopback,DEV=0`, a `pcm.NAME` with a `hint` in /etc/asound.conf.
public struct PCMName: Equatable, Sendable {
    public var name: String
    /// The hint's description, its lines joined with ", "; nil when it has none.
    public var description: String?
    /// The card the name names (`CARD=Loopback` → `Loopback`), nil for a PCM without one.
    public var card: String?
}

/// What ALSA has: cards, playback PCMs, whether one opens, and which mixer belongs to a PCM.
/// For `alarm devices`, `alarm check` and the daemon's volume floor. C types stay here.
public enum AlsaDevices {
    /// The sound cards, by number. The corresponding C functions are `snd_card_next` and
    /// `snd_ctl_card_info`.
    public static func cards() -> [SoundCard] {
        var out: [SoundCard] = []
        var number: Int32 = -1
        while snd_card_next(&number) >= 0, number >= 0 {
            if let card = card(Int(number)) { out.append(card) }
        }
        return out
    }

    /// The control devices of cards that exist but this process may not open
    /// (`/dev/snd/controlC0` for a user outside the group `audio`): alsa-lib skips such cards, so
    /// `cards()` cannot list them. The corresponding C function is `access`.
    public static func inaccessibleCards() -> [String] {
        (0..<32).map { "/dev/snd/controlC\($0)" }.filter { access($0, F_OK) == 0 && access($0, R_OK | W_OK) != 0 }
    }

    /// Card `number`, or nil when there is none (or its control device cannot be opened).
    public static func card(_ number: Int) -> SoundCard? {
        var ctl: OpaquePointer?
        guard snd_ctl_open(&ctl, "hw:\(number)", 0) >= 0, let ctl else { return nil }
        defer { snd_ctl_close(ctl) }
        var info: OpaquePointer?
        guard snd_ctl_card_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_ctl_card_info_free(info) }
        guard snd_ctl_card_info(ctl, info) >= 0 else { return nil }
        return SoundCard(
            number: number, id: String(cString: snd_ctl_card_info_get_id(info)),
            name: String(cString: snd_ctl_card_info_get_name(info)),
            description: String(cString: snd_ctl_card_info_get_longname(info)))
    }

    /// The playback PCMs ALSA's configuration lists (those with a `hint`, as `aplay -L`).
    /// The corresponding C functions are `snd_device_name_hint` and `snd_device_name_get_hint`.
    public static func playbackPCMs() -> [PCMName] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func get(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let s = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(s) }
            return String(cString: s)
        }
        var out: [PCMName] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            guard let name = get(hint, "NAME"), get(hint, "IOID") != "Input" else { continue }
            let description = get(hint, "DESC").map {
                $0.split(separator: "\n").map { $0.trimmingBlanks() }.joined(separator: ", ")
            }
            out.append(PCMName(name: name, description: description, card: cardName(inPCMName: name)))
        }
        return out
    }

    /// Whether `name` opens for playback now, in the default tone's format (what any ring can
    /// fall back to), without writing a frame (`PCMProbe.probe`).
    public static func probe(_ name: String) -> PCMProbeResult {
        let tone = DefaultTone.clip()
        return PCMProbe.probe(name, channels: tone.channels, rate: tone.sampleRate)
    }

    /// The card an open PCM plays on, nil when it is not a card's (null, file, pulse).
    static func card(ofOpen pcm: OpaquePointer) -> Int? {
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_pcm_info_free(info) }
        guard snd_pcm_info(pcm, info) >= 0 else { return nil }
        let card = snd_pcm_info_get_card(info)
        return card >= 0 ? Int(card) : nil
    }

    /// The card a PCM name names: its `CARD=` argument, or the first argument of the plugins
    /// that take a card first (`hw:1,0`, `plughw:Headphones`, `sysdefault:Device`). Nil for
    /// names without one (`default`, `null`, `pulse`, a `pcm.NAME` of /etc/asound.conf).
    public static func cardName(inPCMName name: String) -> String? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let plugin = name[..<colon]
        let args = name[name.index(after: colon)...].split(separator: ",").map { unquote($0.trimmingBlanks()) }
        if let named = args.first(where: { $0.uppercased().hasPrefix("CARD=") }) {
            let value = unquote(String(named.dropFirst(5)))
            return value.isEmpty ? nil : value
        }
        let cardFirst: Set<Substring> = [
            "hw", "plughw", "sysdefault", "default", "front", "dmix", "dsnoop", "hdmi", "iec958", "spdif",
        ]
        guard cardFirst.contains(plugin) || plugin.hasPrefix("surround"), let first = args.first, !first.isEmpty,
            !first.contains("=")
        else { return nil }
        return first
    }

    private static func unquote(_ s: String) -> String {
        s.count >= 2 && (s.hasPrefix("\"") && s.hasSuffix("\"") || s.hasPrefix("'") && s.hasSuffix("'"))
            ? String(s.dropFirst().dropLast()) : s
    }

    /// The ALSA control device whose mixer sets the loudness of PCM `name`: the card it plays on
    /// (`card`, as a probe or the player found it), else the card its name names, else a control
    /// device of the same name as the PCM (`default`, `pulse`: the configuration defines
    /// `ctl.default` and `ctl.pulse` next to their PCMs). Nil when none of these exists (`null`,
    /// a file): there is no mixer to check. Cards are named by id (`hw:CARD=Headphones`), so a
    /// saved level finds its card again after renumbering.
    public static func controlDevice(forPCM name: String, card: Int?) -> String? {
        if let card { return "hw:CARD=\(Self.card(card)?.id ?? String(card))" }
        if let named = cardName(inPCMName: name) { return "hw:CARD=\(named)" }
        let base = String(name.prefix { $0 != ":" })
        guard !base.isEmpty, configDefines("ctl." + base) else { return nil }
        return base
    }

    /// Keeps alsa-lib from printing its own error lines ("ALSA lib pcm.c:2666:(...) Unknown PCM")
    /// on stderr from now on, for a listing that reports each error itself. Plugins that print
    /// by other means (JACK's library) still do.
    public static func silenceLibraryErrors() { AlsaErrorOutput.silenceForProcess() }

    /// Whether ALSA's configuration (alsa.conf and what it includes, `ALSA_CONFIG_PATH`)
    /// defines `key`. The corresponding C functions are `snd_config_update_ref` and
    /// `snd_config_search`.
    static func configDefines(_ key: String) -> Bool {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return false }
        defer { snd_config_unref(top) }
        var node: OpaquePointer?
        return snd_config_search(top, key, &node) >= 0
    }
}

import AlarmAudio
import AlarmCore
import AlarmState
import AlarmOptions
import AlarmSystem
import ArgumentParser
import FoundationEssentials

/// `alarm devices`: the sound cards and playback PCMs ALSA has, the device alarm rings on now,
/// whether each opens (opened and closed again: no sound), and the mixer the volume floor sets.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract:
            "List the ALSA sound cards and PCMs, the device alarm uses now, whether each opens, and the input devices alarm-button may read.",
        discussion: """
            Each PCM is opened for playback and closed again, without playing anything. A device in \
            use (a ring on a hw: device) does not open. Name devices by card (plughw:CARD=Headphones,DEV=0): \
            card numbers change when USB devices come and go. The input devices (keys and buttons, \
            from /proc/bus/input/devices) are listed with the one alarm-button uses by button_device \
            (by default the gpio-keys device of the gpio-key overlay).

            --json prints one object: configured (the device setting), current (the device a ring \
            plays on now, the first of chain that opens; null when none does), chain (what a ring \
            tries in order: the device setting, default, the first card's plughw), mixer (the mixer \
            of current's card: device, control, percent, muted, floor, error; null when current has \
            no card), cards (card, id, name, description), pcms (name, description, card_id, opens, \
            error; chain's entries have the same keys), inaccessible (the control devices of cards \
            this user may not open, left out of cards), button_device (the setting; null when unset), \
            button (the input device alarm-button uses now; null when none matches), inputs (the \
            input devices with keys: path, name, phys, gpio_key, button) and passed_over (the \
            gpio-keys devices alarm-button does not take while button_device is unset: path, name, \
            why; a power button whose only key is KEY_POWER, unless button_keys names it). Absent \
            values are null. \
            /usr/share/doc/alarm/configuration.md has an example.
            """)

    @OptionGroup var options: SettingsOptions

    @Flag(
        help:
            "Print one JSON object instead of the tables (its keys are described above)."
    )
    var json = false

    func run() throws {
        let config = options.lenientConfiguration()
        AlsaDevices.silenceLibraryErrors()
        let report = DevicesReport.gather(config)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print(
            "device alarm uses now: " + (report.current.map { "\($0) (opens)" } ?? "none: no device of the chain opens")
        )
        print(
            "chain: "
                + report.chain.map { "\($0.name) (\($0.opens ? "opens" : "does not open: \($0.error ?? "?")"))" }
                .joined(separator: ", "))
        if let m = report.mixer {
            if let error = m.error {
                print("mixer: \(error)")
            } else {
                let floor =
                    config.mixerFloor == 0
                    ? "mixer_floor is off" : "raised to \(config.mixerFloor) % when a ring starts if lower or muted"
                print(
                    "mixer: '\(m.control ?? "?")' on \(m.device) at \(m.percent.map { "\($0) %" } ?? "?")\(m.muted == true ? ", muted" : "") (\(floor))"
                )
            }
        }
        print("")
        if !report.inaccessible.isEmpty {
            print(
                "this user may not open \(report.inaccessible.joined(separator: ", ")): those cards are not listed (not in group audio?)"
            )
        }
        if report.cards.isEmpty {
            print("no sound cards")
        } else {
            var rows = [["CARD", "ID", "NAME", "DESCRIPTION"]]
            for c in report.cards { rows.append([String(c.card), c.id, c.name, c.description]) }
            printTable(rows)
        }
        print("")
        var rows = [["PCM", "OPENS", "DESCRIPTION"]]
        for p in report.pcms { rows.append([p.name, p.opens ? "yes" : "no", p.description ?? "-"]) }
        printTable(rows)
        print("")
        let named = report.buttonDevice.map { "button_device \($0)" } ?? "the gpio-keys device (button_device unset)"
        if let button = report.button {
            let input = report.inputs.first { $0.button }
            print("button (alarm-button): \(button)\(input.map { " \"\($0.name)\"" } ?? ""), by \(named)")
        } else {
            print("button (alarm-button): none: no input device matches \(named)")
        }
        for p in report.passedOver {
            print("button (alarm-button): passed over \(p.path) \"\(p.name)\": \(p.why)")
        }
        if report.inputs.isEmpty {
            print("no input devices with keys")
        } else {
            var rows = [["INPUT", "NAME", "PHYS", "BUTTON"]]
            for i in report.inputs {
                rows.append([
                    i.path, i.name, i.phys.isEmpty ? "-" : i.phys, i.button ? "yes" : (i.gpioKey ? "gpio-keys" : ""),
                ])
            }
            printTable(rows)
        }
    }
}

/// The JSON of `alarm devices --json`. Keys: `configured` (the device setting), `current` (the
/// first of `chain` that opens: what a ring plays on now; null when none does), `chain` (the
/// configured device, then `default`, then the first card's `plughw`: {name, card_id, opens,
/// error}), `mixer` (of `current`'s card: {device, control, percent, muted, floor, error}; null
/// when `current` has no card), `cards` ({card, id, name, description}), `pcms` ({name,
/// description, card_id, opens, error}), `inaccessible` (control devices of cards this user may
/// not open, which are missing from `cards`), `button_device` (the setting; null when unset),
/// `button` (the input device alarm-button uses by it now; null when none matches), `inputs`
/// (the input devices with keys: {path, name, phys, gpio_key, button}). Absent values are written
/// as null.
struct DevicesReport: Encodable {
    struct Card: Encodable {
        var card: Int
        var id: String
        var name: String
        var description: String
    }
    struct PCM: Encodable {
        var name: String
        @NullWhenNil var description: String? = nil
        @NullWhenNil var cardID: String? = nil
        var opens: Bool
        @NullWhenNil var error: String? = nil
        enum CodingKeys: String, CodingKey {
            case name, description
            case cardID = "card_id"
            case opens, error
        }
    }
    struct Mixer: Encodable {
        var device: String
        @NullWhenNil var control: String? = nil
        @NullWhenNil var percent: Int? = nil
        @NullWhenNil var muted: Bool? = nil
        var floor: Int
        @NullWhenNil var error: String? = nil
    }

    var configured: String
    @NullWhenNil var current: String? = nil
    var chain: [PCM]
    @NullWhenNil var mixer: Mixer? = nil
    var cards: [Card]
    var pcms: [PCM]
    var inaccessible: [String]
    /// The button (issue #30): `button_device` as set (null: unset), the device alarm-button uses
    /// by it now (null: none matches), and the input devices that have keys.
    @NullWhenNil var buttonDevice: String? = nil
    @NullWhenNil var button: String? = nil
    var inputs: [Input] = []
    /// The gpio-keys devices alarm-button passes over while button_device is unset, and why
    /// (a power button's only key is KEY_POWER; one that sends none of button_keys).
    var passedOver: [PassedOver] = []

    struct PassedOver: Encodable {
        var path: String
        var name: String
        var why: String
    }

    struct Input: Encodable {
        var path: String
        var name: String
        var phys: String
        var gpioKey: Bool
        var button: Bool
        enum CodingKeys: String, CodingKey {
            case path, name, phys
            case gpioKey = "gpio_key"
            case button
        }
    }

    enum CodingKeys: String, CodingKey {
        case configured, current, chain, mixer, cards, pcms, inaccessible
        case buttonDevice = "button_device"
        case button, inputs
        case passedOver = "passed_over"
    }

    static func gather(_ config: Configuration) -> DevicesReport {
        func pcm(_ name: String, description: String?, probe: PCMProbeResult) -> PCM {
            PCM(
                name: name, description: description, cardID: AlsaDevices.cardName(inPCMName: name), opens: probe.opens,
                error: probe.error?.text)
        }
        let probes = AlarmPlayer.fallbackList(configured: config.device).map(AlsaDevices.probe)
        let chain = probes.map { pcm($0.name, description: nil, probe: $0) }
        let current = probes.first(where: \.opens)
        var mixer: Mixer?
        if let current, let device = AlsaDevices.controlDevice(forPCM: current.name, card: current.card) {
            do {
                let level = try AlsaMixer.read(device: device, control: config.mixerControl)
                mixer = Mixer(
                    device: device, control: level.index == 0 ? level.control : "\(level.control),\(level.index)",
                    percent: level.percent, muted: level.muted, floor: config.mixerFloor, error: nil)
            } catch {
                mixer = Mixer(device: device, floor: config.mixerFloor, error: "\(error)")
            }
        }
        let cards = AlsaDevices.cards().map {
            Card(card: $0.number, id: $0.id, name: $0.name, description: $0.description)
        }
        let pcms = AlsaDevices.playbackPCMs().map {
            pcm($0.name, description: $0.description, probe: AlsaDevices.probe($0.name))
        }
        let devices = InputDevices.list().filter { $0.hasKeys && $0.eventPath != nil }
        // A path may be a link (by-path, by-id): the device it leads to is the one marked.
        let choice = InputDevices.choose(config.buttonDevice, keys: config.buttonKeys, among: devices)
        let setting = choice.path
        let real = setting.flatMap(InputDevices.realPath)
        let button = real == nil ? nil : setting
        let inputs = devices.map {
            Input(
                path: $0.eventPath!, name: $0.name, phys: $0.phys, gpioKey: $0.isGPIOKey, button: $0.eventPath == real)
        }
        return DevicesReport(
            configured: config.device, current: current?.name, chain: chain, mixer: mixer, cards: cards, pcms: pcms,
            inaccessible: AlsaDevices.inaccessibleCards(), buttonDevice: config.buttonDevice, button: button,
            inputs: inputs,
            passedOver: choice.passedOver.map { PassedOver(path: $0.path, name: $0.name, why: $0.why.text) })
    }
}

import AlarmCore
import AlarmSystem

/// What `alarm devices` and alarm-button say about the devices alarm-button passed over (issue
/// #41): one text for both, so that the journal and the CLI agree.
extension InputDevices.Choice.PassedOver {
    /// `/dev/input/event0 "pwr_button" (gpio-keys/input0): its only key is KEY_POWER: ...`
    public var text: String {
        "\(path) \"\(name)\"\(phys.isEmpty ? "" : " (\(phys))"): \(why.text)"
    }
}

extension InputDevices.Choice.Reason {
    public var text: String {
        switch self {
        case .powerButton:
            return
                "its only key is KEY_POWER: a power button (a Raspberry Pi 5's own is a gpio-keys device), left to "
                + "systemd-logind; name KEY_POWER in button_keys to use it"
        case .noneOfTheKeys(let sends):
            let sorted = sends.sorted().map(KeyCodes.name(of:))
            let list =
                sorted.count > 6
                ? sorted.prefix(4).joined(separator: ", ") + ", ... (\(sorted.count) keys)"
                : sorted.joined(separator: ", ")
            return "sends none of button_keys (it sends \(list))"
        }
    }
}

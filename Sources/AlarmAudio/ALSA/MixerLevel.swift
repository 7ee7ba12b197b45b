/// The playback level of one ALSA simple-mixer control (`amixer`'s "Simple mixer control"): raw
/// volume and switch per channel, as read by `AlsaMixer.read` and put back by `AlsaMixer.write`.
///
/// Pure: the volume floor is decided and described here, without a sound card, so that the
/// daemon's ring and `alarm check` can share it and tests can pin it down.
///
/// Percentages are `amixer`'s: linear in the raw range, rounded to the nearest whole percent.
/// Codable (`mixer.json` in the state directory keeps the level a ring changed, so that it can be
/// put back after a crash): keys `device`, `control`, `index`, `min`, `max`, `volumes`, `switches`.
public struct MixerLevel: Codable, Equatable, Sendable {
    /// The ALSA control device the mixer was opened on: `hw:CARD=Dummy`, `default`, `pulse`.
    public var device: String
    /// The simple control's name (`Master`, `PCM`, `Speaker`) and index (0 for the first).
    public var control: String
    public var index: Int
    /// The raw playback volume range.
    public var min: Int
    public var max: Int
    /// Raw playback volume per channel (one for a mono or joined control).
    public var volumes: [Int]
    /// Playback switch per channel (`true`: on, not muted); empty when the control has none.
    public var switches: [Bool]

    public init(device: String, control: String, index: Int = 0, min: Int, max: Int, volumes: [Int], switches: [Bool]) {
        self.device = device
        self.control = control
        self.index = index
        self.min = min
        self.max = max
        self.volumes = volumes
        self.switches = switches
    }

    /// `'Master'`, or `'Master',1` for a control with an index (as `amixer` writes them).
    public var label: String { index == 0 ? "'\(control)'" : "'\(control)',\(index)" }

    /// A switch of some channel is off.
    public var muted: Bool { switches.contains(false) }

    /// The lowest channel's volume in percent (what the quietest speaker gets).
    public var percent: Int { volumes.map(percent(of:)).min() ?? 0 }

    /// `raw` in percent of the range, rounded as `amixer` rounds. A range of one value is 100 %.
    public func percent(of raw: Int) -> Int {
        guard max > min else { return 100 }
        return Int((Double(raw - min) * 100 / Double(max - min)).rounded())
    }

    /// The lowest raw value that is `percent` % of the range or more, unrounded (so that every
    /// tool's rounding shows at least `percent`).
    public func raw(atLeast percent: Int) -> Int {
        guard max > min else { return max }
        let p = Swift.min(Swift.max(percent, 0), 100)
        return Swift.min(min + Int((Double(p) * Double(max - min) / 100).rounded(.up)), max)
    }

    /// The level a ring needs: every channel at `floor` % or more and unmuted. Nil when it is
    /// already so, or when `floor` is 0 (the floor is off). Channels above the floor keep their
    /// volume.
    public func raised(toFloor floor: Int) -> MixerLevel? {
        guard floor > 0 else { return nil }
        let target = raw(atLeast: floor)
        var out = self
        out.volumes = volumes.map { percent(of: $0) < floor ? Swift.max($0, target) : $0 }
        out.switches = switches.map { _ in true }
        return out == self ? nil : out
    }

    /// True when `other` is a level of the same control on the same device.
    public func matches(_ other: MixerLevel) -> Bool {
        device == other.device && control == other.control && index == other.index
    }

    /// What a raise did, for the history and the journal:
    /// "mixer 'Master' raised from 12 %, muted, to 50 %", "mixer 'PCM' raised from 12 % to 50 %",
    /// "mixer 'Master' unmuted at 70 %".
    public static func describeRaise(from before: MixerLevel, to after: MixerLevel) -> String {
        let muted = before.muted ? ", muted," : ""
        if after.percent == before.percent, before.muted {
            return "mixer \(before.label) unmuted at \(after.percent) %"
        }
        return "mixer \(before.label) raised from \(before.percent) %\(muted) to \(after.percent) %"
    }

    /// "mixer 'Master' put back to 12 %, muted", "mixer 'PCM' put back to 30 %".
    public static func describeRestore(_ level: MixerLevel) -> String {
        "mixer \(level.label) put back to \(level.percent) %\(level.muted ? ", muted" : "")"
    }

    /// "'Master' on hw:CARD=Dummy at 12 %, muted": a state, for `alarm check` and the log.
    public var summary: String {
        "\(label) on \(device) at \(percent) %\(muted ? ", muted" : "")"
    }
}

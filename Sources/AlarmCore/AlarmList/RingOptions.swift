import FoundationEssentials

/// What a ring does when nobody answers it within its ring length (`--when-ignored`, config
/// `when_ignored`, issue #13).
///
/// The default is `snooze`: an alarm clock that gives up after one ring length (10 minutes by
/// default) makes people miss their day, so an unanswered ring snoozes itself and comes back,
/// up to `max_snoozes` snoozes in all (3 of its own when snoozes are unlimited), and only then
/// is silenced, recorded `ignored`. `silence` is the behaviour from before: silenced after one
/// ring length, recorded `silenced`.
public enum WhenIgnored: String, Codable, Sendable, CaseIterable {
    case snooze
    case silence

    /// `snooze` or `silence` (any case), else a message naming both.
    public static func parse(_ text: String) throws(AlarmError) -> WhenIgnored {
        guard let v = WhenIgnored(rawValue: text.lowercased()) else {
            throw .invalid("when-ignored must be 'snooze' or 'silence', found '\(text)'")
        }
        return v
    }

    /// How many times an ignored ring snoozes itself when snoozes are unlimited.
    public static let unlimitedSelfSnoozes = 3
}

/// How many times a ring may be snoozed (`--max-snoozes`, config `max_snoozes`, issue #13).
/// `unlimited` is written so in the config and on the command line, and in JSON as the
/// string `"unlimited"`; a limit as a whole number (0: no snooze at all).
public enum SnoozeLimit: Hashable, Sendable {
    case limited(Int)
    case unlimited

    /// The limit, nil when unlimited.
    public var count: Int? {
        if case .limited(let n) = self { return n }
        return nil
    }

    /// `unlimited` (or `none`, `-1`), or a whole number 0...1000.
    public static func parse(_ text: String) throws(AlarmError) -> SnoozeLimit {
        let t = text.lowercased()
        if t == "unlimited" || t == "none" || t == "-1" { return .unlimited }
        guard let n = Int(t), (0...1000).contains(n) else {
            throw .invalid("max-snoozes must be a whole number 0-1000 or 'unlimited', found '\(text)'")
        }
        return .limited(n)
    }

    public var description: String { count.map(String.init) ?? "unlimited" }

    /// Why a snooze is refused, when `snoozes` of `max` are used up; nil otherwise. One text for
    /// alarmd's log and the CLI's and the web's answer. `who`: the label or id as it is shown.
    public static func refusal(who: String, snoozes: Int, max: Int?) -> String? {
        guard let max, snoozes >= max else { return nil }
        let times = snoozes == 1 ? "once" : "\(snoozes) times"
        return
            "snooze refused: \(who) has been snoozed \(times), its limit (max-snoozes \(max)); the alarm keeps ringing"
    }
}

/// `--sound`: one file name, a comma-separated list of them (one is picked at random for each
/// ring), `*` (any playable sound of the sound directories), or a stream URL (issue #43, see
/// `StreamURL`). Pure: the pick takes its random number from the caller, so the engine and tests
/// stay deterministic.
public enum SoundSelection: Equatable, Sendable {
    case one(String)
    case list([String])
    case any
    /// An http or https stream (not split at commas: a URL may hold them).
    case stream(String)

    /// Splits at commas (blanks around names dropped, empty items ignored); a text with a scheme
    /// (`http://`) is a stream.
    public init(_ text: String) {
        let t = text.trimmingBlanks()
        if StreamURL.isStream(t) {
            self = .stream(t)
            return
        }
        if t == "*" {
            self = .any
            return
        }
        guard t.contains(",") else {
            self = .one(text)
            return
        }
        let names = t.split(separator: ",").map { String($0).trimmingBlanks() }.filter { !$0.isEmpty }
        self = names.count == 1 ? .one(names[0]) : .list(names)
    }

    /// The names given (nil for `*` and a stream).
    public var names: [String]? {
        switch self {
        case .one(let n): return [n]
        case .list(let l): return l
        case .any, .stream: return nil
        }
    }

    /// The stream's URL, nil for sound files.
    public var streamURL: String? {
        if case .stream(let url) = self { return url }
        return nil
    }

    /// The order in which to try `count` candidates for one ring, from `random` (any 64-bit
    /// value): a permutation, so a candidate that does not play is passed over for the next.
    /// Equal inputs give equal orders; each candidate is first for 1/count of the values.
    public static func order(count: Int, random: UInt64) -> [Int] {
        var generator = SplitMix64(state: random)
        var out = Array(0..<count)
        out.shuffle(using: &generator)
        return out
    }
}

/// A small deterministic generator (SplitMix64), seeded by the caller: the sound pick here, and
/// the tests' generated inputs, so that a failing seed replays.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

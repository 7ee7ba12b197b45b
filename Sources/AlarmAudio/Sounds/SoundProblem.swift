import FoundationEssentials
import AlarmCore

/// Why a named sound is not played. Every case carries the sound's name so the message stands
/// on its own in a log line or on stderr; `description` is the text a user reads.
///
/// The daemon keeps this value next to the ring it caused ("played the default tone because …").
public enum SoundProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is not a plain file name (has a `/`, starts with `.`, is empty, …). Never opened.
    case badName(String, why: String)
    /// No sound directory holds a file of that name.
    case notFound(String, searched: [String])
    /// The name resolves (through a symlink) to a file outside its sound directory. Never opened.
    case outsideDirectory(String, resolved: String)
    /// The file exists but is not a regular file, or cannot be opened.
    case unreadable(String, detail: String)
    /// The file has no bytes, or no audio frames.
    case empty(String)
    /// The clip is longer than `ClipLimits.maxDuration`.
    case tooLong(String, seconds: Double)
    /// The file ends before the header or the audio it announces.
    case truncated(String, detail: String)
    /// The bytes do not make a valid file of the container they claim.
    case corrupt(String, detail: String)
    /// Another container or codec, or a channel count / rate we do not play.
    case unsupported(String, detail: String)

    /// A stable one-word kind, for JSON and tests.
    public var kind: String {
        switch self {
        case .badName: "bad-name"
        case .notFound: "not-found"
        case .outsideDirectory: "outside-directory"
        case .unreadable: "unreadable"
        case .empty: "empty"
        case .tooLong: "too-long"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .unsupported: "unsupported"
        }
    }

    public var name: String {
        switch self {
        case .badName(let n, _), .notFound(let n, _), .outsideDirectory(let n, _), .unreadable(let n, _),
            .empty(let n), .tooLong(let n, _), .truncated(let n, _), .corrupt(let n, _),
            .unsupported(let n, _):
            n
        }
    }

    public var description: String {
        switch self {
        case .badName(let n, let why):
            "sound name '\(n)' is refused: \(why); give a file name only, e.g. 'rooster.caf'"
        case .notFound(let n, let searched):
            "sound '\(n)' was not found in "
                + (searched.isEmpty ? "any sound directory" : searched.joined(separator: ", "))
        case .outsideDirectory(let n, let resolved):
            "sound '\(n)' resolves to \(resolved), outside its sound directory; it is not opened"
        case .unreadable(let n, let detail):
            "sound '\(n)' cannot be read: \(detail)"
        case .empty(let n):
            "sound '\(n)' is empty"
        case .tooLong(let n, let seconds):
            "'\(n)' is \(SoundProblem.formatSeconds(seconds)) s long; clips over 30 s are not played"
        case .truncated(let n, let detail):
            "sound '\(n)' is truncated: \(detail)"
        case .corrupt(let n, let detail):
            "sound '\(n)' is corrupt: \(detail)"
        case .unsupported(let n, let detail):
            "sound '\(n)' is not playable: \(detail)"
        }
    }

    /// One decimal, unless that would print a length over the limit as "30.0".
    static func formatSeconds(_ s: Double) -> String {
        let one = Text.fixed(s, 1)
        if s > ClipLimits.maxDuration, Double(one)! <= ClipLimits.maxDuration {
            return Text.fixed(s, 3)
        }
        return one
    }
}

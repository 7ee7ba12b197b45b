/// A command read from the daemon's control FIFO, one per line.
///
/// The grammar, with the verb matched case-insensitively and words separated by spaces or tabs:
///
///     snooze [DURATION]   snooze the ringing alarm, for DURATION or the configured default
///     stop                stop the ringing alarm
///     ring [SOUND]        ring now, with SOUND (the rest of the line, may contain spaces) or the default
///     reload              re-read alarms and configuration
///     skip                skip the next occurrence of the next alarm (issue #43)
///
/// The duration stays a string: this module does not depend on AlarmCore, so the daemon parses it
/// with `Durations.parse` and treats a bad one as it treats any invalid command. Anything else is
/// `.invalid(reason:)` with a reason fit for a log line; empty lines are not commands at all.
public enum ControlCommand: Equatable, Sendable, CustomStringConvertible {
    case snooze(duration: String?)
    case stop
    case ring(sound: String?)
    case reload
    /// Skip the next occurrence of the next alarm (issue #43: Home Assistant's "Skip next").
    case skip
    /// A line that is not a command: unknown verb, wrong arguments, too long, binary, not UTF-8.
    case invalid(reason: String)

    /// The longest line accepted, in bytes, not counting the newline. Well under PIPE_BUF (4096),
    /// so a line written in one `write` reaches the reader whole even with many writers.
    public static let maximumLineLength = 512

    /// Parses one line's bytes (without its newline). Returns `nil` for a blank line.
    public init?(line bytes: some Collection<UInt8>) {
        if bytes.count > ControlCommand.maximumLineLength {
            self = .invalid(reason: "line longer than \(ControlCommand.maximumLineLength) bytes (\(bytes.count) bytes)")
            return
        }
        var bytes = Array(bytes)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }  // tolerate CRLF senders
        if bytes.contains(0) {
            self = .invalid(reason: "line contains NUL bytes (binary data?)")
            return
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            self = .invalid(reason: "line is not valid UTF-8 (binary data?)")
            return
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
            self = .invalid(reason: "line contains control characters (binary data?)")
            return
        }
        self.init(parsing: text)
    }

    /// Parses one line of text (without its newline). Returns `nil` for a blank line.
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let verb = words.first else { return nil }
        let arguments = words.dropFirst()
        switch verb.lowercased() {
        case "snooze":
            guard arguments.count <= 1 else {
                self = .invalid(reason: "snooze takes at most one duration, got \(arguments.count) words")
                return
            }
            self = .snooze(duration: arguments.first.map(String.init))
        case "stop", "reload", "skip":
            guard arguments.isEmpty else {
                self = .invalid(reason: "\(verb.lowercased()) takes no arguments")
                return
            }
            switch verb.lowercased() {
            case "stop": self = .stop
            case "skip": self = .skip
            default: self = .reload
            }
        case "ring":
            // The sound is the rest of the line, so file names with spaces work.
            let rest = text.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(verb.count)
            let sound = rest.trimmingWhitespace()
            self = .ring(sound: sound.isEmpty ? nil : sound)
        default:
            let shown = verb.count > 32 ? String(verb.prefix(32)) + "…" : String(verb)
            self = .invalid(reason: "unknown command '\(shown)' (expected snooze, stop, ring, skip or reload)")
        }
    }

    /// The line that sends this command (without the newline); `nil` for `.invalid`.
    public var line: String? {
        switch self {
        case .snooze(let duration): return duration.map { "snooze \($0)" } ?? "snooze"
        case .stop: return "stop"
        case .ring(let sound): return sound.map { "ring \($0)" } ?? "ring"
        case .reload: return "reload"
        case .skip: return "skip"
        case .invalid: return nil
        }
    }

    public var description: String {
        if case .invalid(let reason) = self { return "invalid: \(reason)" }
        return line ?? ""
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

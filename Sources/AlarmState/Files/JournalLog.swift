import AlarmSystem
import FoundationEssentials
import Logging

/// A swift-log handler that writes one line per message to stderr with a syslog priority
/// prefix (`<4>disk full`), which journald turns into the entry's priority.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    public func log(event: LogEvent) {
        var text = "<\(Self.priority(event.level))>\(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty { text += " " + all.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ") }
        // One write per line, so lines from the player thread never interleave mid-line.
        StandardError.write(String(text.map { $0 == "\n" ? " " : $0 }))
    }
}

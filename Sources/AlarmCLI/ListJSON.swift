import AlarmCore
import FoundationEssentials

extension Context {
    /// What `list --json` and `export` print: the store format, plus each alarm's next ring.
    /// One encoder pass (10,000 alarms take milliseconds, not a JSONSerialization round trip each).
    func json(_ alarms: [Alarm]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let listed = alarms.map { a in Listed(alarm: a, next: nextRing(a).map { rfc3339($0, for: a) }) }
        return String(decoding: try encoder.encode(listed), as: UTF8.self)
    }
}

/// An alarm as `list --json` shows it: its stored fields and `next`, in one JSON object.
private struct Listed: Encodable {
    let alarm: Alarm
    let next: String?

    enum Keys: String, CodingKey { case next }

    func encode(to encoder: Encoder) throws {
        try alarm.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(next, forKey: .next)
    }
}

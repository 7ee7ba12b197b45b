import AlarmCore
import Foundation

extension Context {
    /// What `list --json` and `export` print: the store format, plus each alarm's next ring
    /// (`"next"`), written by `AlarmListWriter` (byte for byte `JSONEncoder`'s output).
    func json(_ alarms: [Alarm]) throws -> String {
        let bytes = try AlarmListWriter.encode(alarms) { a in nextRing(a).map { rfc3339($0, for: a) } }
        return String(decoding: bytes, as: UTF8.self)
    }
}

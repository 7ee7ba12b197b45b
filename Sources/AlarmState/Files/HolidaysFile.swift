import AlarmCore
import AlarmSystem
import FoundationEssentials

/// Reads the holidays file (`holidays = FILE`) into a `HolidayCalendar`: the I/O around the pure
/// parser, shared by alarmd and the CLI so both read it alike.
public enum HolidaysFile {
    /// Why the file cannot be used: its path, and the parser's line and reason or the read error.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "holidays file \(path): \(message)" }
    }

    /// Files larger than this are refused (a holiday calendar is a few kilobytes).
    public static let maxBytes = 4 << 20

    /// The calendar in `path`. Throws `Problem` when it cannot be read or is malformed (with the
    /// line and the reason); a file that does not exist is a problem too.
    public static func load(_ path: String) throws(Problem) -> HolidayCalendar {
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path) } catch {
            throw Problem(path: path, message: "cannot be read: \(error)")
        }
        guard let bytes else { throw Problem(path: path, message: "does not exist") }
        guard bytes.count <= maxBytes else {
            throw Problem(path: path, message: "is larger than \(maxBytes >> 20) MiB")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Problem(path: path, message: "is not UTF-8 text")
        }
        do { return try HolidayCalendar.parse(text, fileName: path) } catch {
            throw Problem(path: path, message: "\(error)")
        }
    }
}

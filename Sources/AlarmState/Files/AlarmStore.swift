import AlarmCore
import AlarmSystem
import FoundationEssentials

/// A file in the state directory that cannot be used as it is. The file is left untouched.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// The alarms, as a JSON array in the `alarm list --json` format (`Alarm`'s Codable), in
/// `<state-dir>/alarms.json`.
///
/// What callers may rely on:
/// - Every change is a read-modify-write under an exclusive lock on `<state-dir>/alarms.lock`
///   (a separate file, so the rename of alarms.json never swaps the lock away): two writers, the
///   CLI and the daemon or two CLIs, never lose each other's change.
/// - Writes are atomic and durable (`AtomicFile`); readers need no lock.
/// - A file that does not decode (bad JSON, an unknown zone, duplicate ids) is reported with a
///   `StoreError` naming the file and the problem, and is never overwritten: every change is
///   refused until a person fixes or moves it. The list before the last change is kept in
///   `alarms.json.bak`.
public final class AlarmStore: Sendable {
    public let stateDir: String
    /// Seconds to wait for another writer.
    public let lockTimeout: Double

    public init(stateDir: String, lockTimeout: Double = 5) {
        self.stateDir = stateDir
        self.lockTimeout = lockTimeout
    }

    public var path: String { stateDir + "/alarms.json" }
    public var backupPath: String { path + ".bak" }
    var lockPath: String { stateDir + "/alarms.lock" }

    /// The stored alarms; empty when there is no file yet.
    public func load() throws -> [Alarm] {
        try AtomicFile.withMapped(path) { buffer in
            // As `decode(_:path:)`, from the mapped file rather than a copy.
            guard let buffer, !Self.isBlank(buffer) else { return [] }
            return try Self.checked(path: path) { () throws(AlarmListProblem) in
                try AlarmListReader.decode(buffer: buffer)
            }
        }
    }

    /// Runs `body` on the stored list under the lock and writes the result back if it changed.
    /// Ids must stay unique; `body`'s errors abort without writing.
    @discardableResult
    public func update<T>(_ body: (inout [Alarm]) throws -> T) throws -> T {
        // The first change creates the state directory (alarmd does too, at start).
        if !FileManager.default.fileExists(atPath: stateDir) {
            do { try Directories.create(stateDir, mode: 0o770) } catch {
                throw StoreError(path: stateDir, message: "the state directory cannot be created: \(error)")
            }
        }
        return try FileLock.withLock(lockPath, timeout: lockTimeout) {
            let old = try AtomicFile.read(path)
            let before = try Self.decode(old, path: path)
            var alarms = before
            let result = try body(&alarms)
            if alarms != before {
                try Self.checkUnique(alarms, path: path)
                if let old { try AtomicFile.write(old, to: backupPath) }
                try AtomicFile.write(Self.encode(alarms), to: path)
            }
            return result
        }
    }

    /// Replaces the whole list (`alarm import`).
    public func save(_ alarms: [Alarm]) throws {
        try update { $0 = alarms }
    }

    /// Adds `alarm`; an alarm with the same id is replaced in place (the seeds' identifier
    /// semantics). Returns true when it replaced one.
    @discardableResult
    public func add(_ alarm: Alarm) throws -> Bool {
        try Alarm.validate(id: alarm.id)
        return try update { list in
            if let i = list.firstIndex(where: { $0.id == alarm.id }) {
                list[i] = alarm
                return true
            }
            list.append(alarm)
            return false
        }
    }

    /// Removes the alarms with these ids; returns the ids that were not there.
    @discardableResult
    public func remove(ids: [String]) throws -> [String] {
        try update { list in
            let missing = ids.filter { id in !list.contains { $0.id == id } }
            list.removeAll { ids.contains($0.id) }
            return missing
        }
    }

    /// Removes every alarm; returns how many there were.
    @discardableResult
    public func removeAll() throws -> Int {
        try update { list in
            defer { list = [] }
            return list.count
        }
    }

    /// The engine's `removeAlarm`: removes the alarm with `alarm`'s id if its schedule is still
    /// `alarm`'s (a label edit does not save a once alarm that rang; a new time or `--until`
    /// does). Returns whether it removed one.
    @discardableResult
    public func removeRung(_ alarm: Alarm) throws -> Bool {
        try update { list in
            guard let i = list.firstIndex(where: { $0.id == alarm.id && $0.sameSchedule(as: alarm) }) else {
                return false
            }
            list.remove(at: i)
            return true
        }
    }

    /// The engine's `clearSkipNext`: clears `skip_next` of the alarm with `alarm`'s id if its
    /// schedule is still `alarm`'s, whatever else was edited meanwhile. Returns whether it did.
    @discardableResult
    public func clearSkipNext(_ alarm: Alarm) throws -> Bool {
        try update { list in
            guard let i = list.firstIndex(where: { $0.id == alarm.id && $0.sameSchedule(as: alarm) }) else {
                return false
            }
            list[i].skipNext = false
            return true
        }
    }

    /// The engine's `clearPause`: forgets the ended pause of the alarm with `alarm`'s id if its
    /// schedule and its pause are still `alarm`'s (a pause set again meanwhile stays).
    @discardableResult
    public func clearPause(_ alarm: Alarm) throws -> Bool {
        try update { list in
            guard
                let i = list.firstIndex(where: {
                    $0.id == alarm.id && $0.sameSchedule(as: alarm) && $0.pause == alarm.pause
                }),
                list[i].pause != nil
            else { return false }
            list[i].pause = nil
            return true
        }
    }

    /// Carries out the engine's store actions; other actions are ignored. Returns whether the
    /// store changed.
    @discardableResult
    public func apply(_ action: EngineAction) throws -> Bool {
        switch action {
        case .removeAlarm(let a): return try removeRung(a)
        case .clearSkipNext(let a): return try clearSkipNext(a)
        case .clearPause(let a): return try clearPause(a)
        default: return false
        }
    }

    /// Replaces `old` with `new` only if `old` is stored exactly so (a compare-and-swap edit).
    @discardableResult
    public func replace(_ old: Alarm, with new: Alarm) throws -> Bool {
        try update { list in
            guard let i = list.firstIndex(of: old) else { return false }
            list[i] = new
            return true
        }
    }

    /// Sets or clears `skip_next` (`alarm skip` / `alarm unskip`); returns the updated alarm, or
    /// nil when there is no alarm with that id.
    @discardableResult
    public func setSkipNext(id: String, _ skip: Bool) throws -> Alarm? {
        try update { list in
            guard let i = list.firstIndex(where: { $0.id == id }) else { return nil }
            list[i].skipNext = skip
            return list[i]
        }
    }

    // MARK: Format

    /// The store's JSON: pretty, keys sorted, slashes unescaped (zone names), newline at the end;
    /// byte for byte what `JSONEncoder` with those options writes (`AlarmListWriter`).
    public static func encode(_ alarms: [Alarm]) throws -> [UInt8] {
        var bytes = try AlarmListWriter.encode(alarms)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Decodes the store's JSON; nil or blank bytes are an empty list. `AlarmListReader` accepts
    /// and refuses what `JSONDecoder` does, naming the place of a problem.
    public static func decode(_ bytes: [UInt8]?, path: String) throws -> [Alarm] {
        try decode(bytes, path: path) { bytes throws(AlarmListProblem) in try AlarmListReader.decode(bytes) }
    }

    /// `decode(_:path:)` with the reading done by `read` (the daemon's `ReloadCache`).
    package static func decode(
        _ bytes: [UInt8]?, path: String, read: ([UInt8]) throws(AlarmListProblem) -> [Alarm]
    ) throws -> [Alarm] {
        guard let bytes, !isBlank(bytes) else { return [] }
        return try checked(path: path) { () throws(AlarmListProblem) in try read(bytes) }
    }

    /// Nothing but JSON whitespace (or nothing at all): an empty list.
    private static func isBlank(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.allSatisfy { " \n\r\t".utf8.contains($0) }
    }

    /// The alarms `read` returns, its problem said as the store's, and their ids checked.
    private static func checked(path: String, _ read: () throws(AlarmListProblem) -> [Alarm]) throws -> [Alarm] {
        let alarms: [Alarm]
        do {
            alarms = try read()
        } catch {
            throw StoreError(
                path: path,
                message: "cannot read the alarms (\(error)); the file was left as it is: fix it or move it away")
        }
        try checkUnique(alarms, path: path)
        return alarms
    }

    static func checkUnique(_ alarms: [Alarm], path: String) throws {
        var seen = Set<String>(minimumCapacity: alarms.count)
        for a in alarms where !seen.insert(a.id).inserted {
            throw StoreError(
                path: path,
                message: "two alarms have the id '\(a.id)'; the file was left as it is: fix it or move it away")
        }
    }
}

/// Short, actionable text for `JSONDecoder`'s errors (the saved ring state).
enum JSONProblem {
    static func describe(_ error: Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func at(_ path: [CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch e {
        case .dataCorrupted(let c):
            // Malformed JSON: the parser's own error says what and where.
            let under = c.underlyingError.map { String(reflecting: $0) }
            return (under.map { c.debugDescription + " (" + $0 + ")" } ?? c.debugDescription) + at(c.codingPath)
        case .keyNotFound(let k, let c): return "missing key '\(k.stringValue)'" + at(c.codingPath)
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return c.debugDescription + at(c.codingPath)
        @unknown default: return "\(error)"
        }
    }
}

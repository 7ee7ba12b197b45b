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

    /// A state file `AtomicFile` or `FileLock` refused, said for a person: `noun` is what the
    /// file holds ("an alarm list"), for the size cap.
    package init(_ refusal: FileRefusal, noun: String) {
        path = refusal.path
        switch refusal.reason {
        case .symbolicLink:
            message =
                "it is a symbolic link, which is never followed in the state directory; it was left as it is: "
                + "put the file itself there, or remove the link"
        case .notRegular(let kind):
            message = "it is \(kind), not a regular file; it was left as it is: move it away"
        case .tooLarge(let size, let limit):
            message =
                "it is \(FileRefusal.spoken(bytes: size)), more than the \(FileRefusal.spoken(bytes: limit)) "
                + "\(noun) may be; the file was left as it is: move it away"
        }
    }

    /// Runs `body`, its `FileRefusal` said as a `StoreError` about `noun`.
    package static func refusing<T>(_ noun: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let refusal as FileRefusal { throw StoreError(refusal, noun: noun) }
    }
}

/// How the files of the state directory are made and read, in one place.
///
/// What callers may rely on:
/// - Every file is opened without following a symbolic link, only when it is a regular file
///   (a FIFO is never waited on), and read only up to `maxBytes`; anything else is refused with a
///   `StoreError` that names the file and what it is, and the file is left as it is.
/// - The modes below are set exactly, whatever the umask of the program that writes.
public enum StateFiles {
    /// The largest state file that is read: 16 MiB. A list of 10,000 alarms is about 4 MB, a
    /// full history (2,000 rings) well under 1 MB; a larger file was not written by alarm.
    public static let maxBytes = 16 << 20
    /// The store, its backup and its lock, which every member of the group `alarm` changes (the
    /// state directory is setgid, so they belong to that group): 0660.
    public static let sharedMode: UInt32 = 0o660
    /// Files only alarmd writes and the group reads (state.json, the history, mixer.json): 0640.
    public static let daemonMode: UInt32 = 0o640
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
///   refused until a person fixes or moves it. So is a symbolic link, a FIFO, a device, a
///   directory or a file over 16 MiB in place of alarms.json (`StateFiles`). The list before the
///   last change is kept in `alarms.json.bak`.
/// - An empty alarms.json (a power cut on a file system that lost the data) whose backup holds
///   alarms is damaged, not an empty list: `read()` gives the backup's alarms with a note that
///   says so, the next change is made to them, and that change never copies the empty file over
///   the backup. An empty file without a backup, or with an empty one, is an empty list.
/// - alarms.json, its backup and alarms.lock are made 0660 whatever the writer's umask.
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

    /// What `read()` found: the alarms in force and, when they are not alarms.json's own, why.
    public struct Contents: Equatable, Sendable {
        public var alarms: [Alarm]
        /// Set when alarms.json is empty and `alarms` are its backup's: what to tell the user.
        public var note: String?
    }

    /// The stored alarms; empty when there is no file yet. For an empty alarms.json with a
    /// backup that holds alarms, the backup's (see `read()`).
    public func load() throws -> [Alarm] { try read().alarms }

    /// The stored alarms, or the backup's with a note when alarms.json is empty and the backup
    /// holds alarms.
    public func read() throws -> Contents {
        let own: [Alarm]? = try StoreError.refusing("an alarm list") {
            try AtomicFile.withMapped(path, limit: StateFiles.maxBytes) { buffer in
                // As `decode(_:path:)`, from the mapped file rather than a copy.
                guard let buffer else { return [] }
                if Self.isBlank(buffer) { return nil }
                return try Self.checked(path: path) { () throws(AlarmListProblem) in
                    try AlarmListReader.decode(buffer: buffer)
                }
            }
        }
        if let own { return Contents(alarms: own, note: nil) }
        guard let backup = backupOfEmptyStore() else { return Contents(alarms: [], note: nil) }
        return Contents(alarms: backup, note: emptyNote(backup.count))
    }

    /// alarms.json's bytes, nil when there is none, refused as `read()` refuses the file (the
    /// daemon's `ReloadCache`). An empty file whose backup holds alarms throws the `StoreError`
    /// of a damaged file, whose message is `emptyNote`.
    package func bytes() throws -> [UInt8]? {
        let bytes = try StoreError.refusing("an alarm list") { try AtomicFile.read(path, limit: StateFiles.maxBytes) }
        if let bytes, Self.isBlank(bytes), let backup = backupOfEmptyStore() {
            throw StoreError(path: path, message: "the file is empty; " + emptyNote(backup.count))
        }
        return bytes
    }

    /// The alarms of `alarms.json.bak` (nil when there is none), refused as alarms.json is.
    public func loadBackup() throws -> [Alarm]? {
        let bytes = try StoreError.refusing("an alarm list") {
            try AtomicFile.read(backupPath, limit: StateFiles.maxBytes)
        }
        guard let bytes else { return nil }
        return try Self.decode(bytes, path: backupPath)
    }

    /// For an alarms.json found empty: the backup's alarms when it holds some and can be read,
    /// else nil (the store is then an empty list).
    package func backupOfEmptyStore() -> [Alarm]? {
        guard let backup = try? loadBackup(), !backup.isEmpty else { return nil }
        return backup
    }

    /// What an empty alarms.json with `count` alarms in its backup means, for `read()`'s note
    /// and the daemon's log.
    package func emptyNote(_ count: Int) -> String {
        let alarms = count == 1 ? "1 alarm" : "\(count) alarms"
        return "\(path) is empty, but its backup \(backupPath) holds \(alarms): using those (alarmd rings them "
            + "when it starts); the next change is made to them and writes \(path) again"
    }

    /// Runs `body` on the stored list under the lock and writes the result back if it changed.
    /// Ids must stay unique; `body`'s errors abort without writing. An empty alarms.json with a
    /// backup that holds alarms gives `body` the backup's, and the backup is kept as it is.
    @discardableResult
    public func update<T>(_ body: (inout [Alarm]) throws -> T) throws -> T {
        // The first change creates the state directory (alarmd does too, at start).
        if !FileManager.default.fileExists(atPath: stateDir) {
            do { try Directories.create(stateDir, mode: 0o770) } catch {
                throw StoreError(path: stateDir, message: "the state directory cannot be created: \(error)")
            }
        }
        return try StoreError.refusing("an alarm list") {
            try FileLock.withLock(
                lockPath, timeout: lockTimeout, permissions: StateFiles.sharedMode, ignoringUmask: true
            ) {
                let old = try AtomicFile.read(path, limit: StateFiles.maxBytes)
                let blank = old.map { Self.isBlank($0) } ?? false
                let before = try (blank ? backupOfEmptyStore() : nil) ?? Self.decode(old, path: path)
                var alarms = before
                let result = try body(&alarms)
                if alarms != before {
                    try Self.checkUnique(alarms, path: path)
                    // An empty file is never the list before a change: the backup stays.
                    if let old, !blank { try write(old, to: backupPath) }
                    try write(Self.encode(alarms), to: path)
                }
                return result
            }
        }
    }

    /// An atomic write of a file the whole group changes: 0660 whatever the umask.
    private func write(_ bytes: [UInt8], to path: String) throws {
        try AtomicFile.write(bytes, to: path, permissions: StateFiles.sharedMode, ignoringUmask: true)
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

    /// Nothing but JSON whitespace (or nothing at all): an empty list, unless the backup holds
    /// alarms (never written so: an empty list is `[]`).
    package static func isBlank(_ bytes: some Sequence<UInt8>) -> Bool {
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

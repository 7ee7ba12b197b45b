import AlarmCore
import AlarmSystem
import FoundationEssentials

/// History as JSON Lines in `<state-dir>/history.jsonl`: one `HistoryEntry` object per line,
/// oldest first.
///
/// Why JSON Lines: an entry is one `O_APPEND` write plus fsync, never a rewrite of the whole
/// file, so a crash can at worst leave a torn last line, which `read` skips and counts. Appends
/// hold `<state-dir>/history.lock`. When the file grows past twice `maxEntries` lines, it is
/// rewritten atomically with the newest `maxEntries`.
///
/// Only alarmd writes it (mode 0640 whatever the umask, the lock likewise); the file and its lock
/// are opened as `StateFiles` says.
public struct HistoryLog: Sendable {
    public let path: String
    public let maxEntries: Int
    let lockPath: String
    let lockTimeout: Double

    public init(stateDir: String, maxEntries: Int = 1000, lockTimeout: Double = 5) {
        path = stateDir + "/history.jsonl"
        lockPath = stateDir + "/history.lock"
        self.maxEntries = maxEntries
        self.lockTimeout = lockTimeout
    }

    /// The last `lines` complete lines of `bytes`, without their newlines.
    static func tail(_ bytes: [UInt8], lines: Int) -> [ArraySlice<UInt8>] {
        Array(bytes.split(separator: UInt8(ascii: "\n")).suffix(lines))
    }

    public func append(_ entry: HistoryEntry) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line = Array(try e.encode(entry)) + [UInt8(ascii: "\n")]
        try StoreError.refusing("a history") {
            try FileLock.withLock(
                lockPath, timeout: lockTimeout, permissions: StateFiles.daemonMode, ignoringUmask: true
            ) { try appendLocked(line) }
        }
    }

    /// Appends `line` (the lock held).
    private func appendLocked(_ line: [UInt8]) throws {
        let bytes = try AtomicFile.read(path, limit: StateFiles.maxBytes) ?? []
        // Idempotent: an entry replayed from the engine's journal after a crash may already
        // be here (the crash came after the append); two real rings never encode alike.
        if Self.tail(bytes, lines: 64).contains(where: { $0 == line.dropLast() }) { return }
        // A torn last line (a crash mid-append) must not swallow this entry.
        let prefix: [UInt8] = bytes.last.map { $0 == UInt8(ascii: "\n") ? [] : [UInt8(ascii: "\n")] } ?? []
        try AtomicFile.append(
            prefix + line, to: path, permissions: StateFiles.daemonMode, ignoringUmask: true,
            limit: StateFiles.maxBytes)
        let lines = bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } + 1
        if lines > 2 * maxEntries { try trim() }
    }

    /// The entries, oldest first, and how many lines could not be read.
    public func read() throws -> (entries: [HistoryEntry], unreadable: Int) {
        let read = try StoreError.refusing("a history") { try AtomicFile.read(path, limit: StateFiles.maxBytes) }
        guard let bytes = read else { return ([], 0) }
        var entries: [HistoryEntry] = []
        var unreadable = 0
        let d = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) where !line.allSatisfy({ $0 == 32 || $0 == 13 }) {
            if let e = try? d.decode(HistoryEntry.self, from: Data(line)) { entries.append(e) } else { unreadable += 1 }
        }
        return (entries, unreadable)
    }

    private func trim() throws {
        guard let bytes = try AtomicFile.read(path, limit: StateFiles.maxBytes) else { return }
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        let kept = lines.suffix(maxEntries).flatMap { Array($0) + [UInt8(ascii: "\n")] }
        try AtomicFile.write(kept, to: path, permissions: StateFiles.daemonMode, ignoringUmask: true)
    }
}

import AlarmCore
import AlarmSystem
import FoundationEssentials

/// alarmd's events for `alarm watch` and the hooks runner (issue #13): `<runtime-dir>/events.jsonl`,
/// one `AlarmEvent` JSON object per line, with a `seq` one higher than the line before.
///
/// What readers may rely on:
/// - Lines are only ever appended, each batch with one `write`, and only whole lines stay: a
///   write that fails part-way is cut off again. A torn last line (a crash mid-write) is ended
///   with a newline at the next start, and readers skip lines that do not parse.
/// - The file is bounded: when an append would take it past `maxBytes`, it is first renamed to
///   `events.jsonl.1` (replacing the one before) and a new `events.jsonl` started. A reader that
///   holds the old file open reads it to its end, then takes the new one from its start
///   (`EventFollower`); nothing is missed or read twice.
/// - `seq` goes on across restarts of alarmd (it reads the last line at start). It starts again
///   at 1 when the runtime directory was emptied (a reboot; systemd removes it when alarmd stops).
///
/// Writing costs one `stat` and one `write` on a tmpfs, after the engine's actions are carried
/// out (the sound is already started). Failures are thrown for the daemon to log; they never
/// touch a ring.
public final class EventLog {
    public let path: String
    public var rotatedPath: String { path + ".1" }
    public let maxBytes: Int
    /// The seq of the last line written.
    public private(set) var lastSeq: Int
    private var file: AppendingFile?

    /// Mode 0640 whatever the umask: readable by alarmd's group (`alarm`), as the state is;
    /// `alarm status` stays for everyone. The log is only ever a regular file: a symbolic link,
    /// a FIFO or a directory in its place is refused (`AppendingFile`, `ReadingFile`).
    static let permissions: UInt32 = 0o640

    /// `path`: `Configuration.eventsPath`.
    public init(path: String, maxBytes: Int = 1 << 20) {
        self.path = path
        self.maxBytes = max(maxBytes, 4096)
        lastSeq = Self.lastSeq(in: path) ?? Self.lastSeq(in: path + ".1") ?? 0
    }

    /// Writes `events` with the next seqs, as one append. Returns them with their seqs. On
    /// failure nothing was written and the seqs are not used up.
    @discardableResult
    public func append(_ events: [AlarmEvent]) throws -> [AlarmEvent] {
        guard !events.isEmpty else { return [] }
        var numbered = events
        var bytes: [UInt8] = []
        for i in numbered.indices {
            numbered[i].seq = lastSeq + 1 + i
            bytes += try numbered[i].jsonLine() + [UInt8(ascii: "\n")]
        }
        let file = try openFile()
        if file.size > 0, file.size + bytes.count > maxBytes {
            try rotate()
            try openFile().append(bytes)
        } else {
            try file.append(bytes)
        }
        lastSeq += numbered.count
        return numbered
    }

    /// The file to append to: the one open, unless `path` names another file now (removed or
    /// replaced behind alarmd's back), then a new one. A torn last line is ended first.
    private func openFile() throws -> AppendingFile {
        let now = try FileIdentity.of(path)
        if let file, now?.identity == file.identity { return file }
        let fresh = try AppendingFile(path: path, permissions: Self.permissions, ignoringUmask: true)
        if fresh.size > 0, let reader = try ReadingFile(path: path),
            try reader.read(at: fresh.size - 1, count: 1) != [UInt8(ascii: "\n")]
        {
            try fresh.append([UInt8(ascii: "\n")])
        }
        file = fresh
        return fresh
    }

    /// `events.jsonl` becomes `events.jsonl.1`; the next append starts a new file.
    private func rotate() throws {
        try FileIdentity.rename(path, to: rotatedPath)
        file = nil
    }

    /// The `seq` of the last complete line of the file at `path` that has one.
    static func lastSeq(in path: String) -> Int? {
        guard let reader = try? ReadingFile(path: path), let size = try? reader.size(), size > 0 else { return nil }
        let start = max(0, size - 64 * 1024)
        guard let tail = try? reader.read(at: start, count: size - start) else { return nil }
        var lines = tail.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        if tail.last != UInt8(ascii: "\n"), !lines.isEmpty { lines.removeLast() }  // torn
        for line in lines.reversed() {
            if let seq = EventLine.seq(of: Array(line)) { return seq }
        }
        return nil
    }
}

/// One line of the event log, as read back.
public struct EventLine: Equatable, Sendable {
    /// The line's JSON, without its newline.
    public var bytes: [UInt8]
    public var seq: Int?

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        seq = Self.seq(of: bytes)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The event, decoded; nil for a line that is not one.
    public var event: AlarmEvent? { try? JSONDecoder().decode(AlarmEvent.self, from: Data(bytes)) }

    /// The `seq` of one JSON line (`"seq":17`), without decoding the rest.
    static func seq(of line: [UInt8]) -> Int? {
        let key = Array("\"seq\":".utf8)
        guard line.first == UInt8(ascii: "{"), line.count > key.count else { return nil }
        var i = 0
        search: while i + key.count <= line.count {
            for k in key.indices where line[i + k] != key[k] {
                i += 1
                continue search
            }
            var j = i + key.count
            while j < line.count, line[j] == UInt8(ascii: " ") { j += 1 }
            var value = 0
            var digits = 0
            while j < line.count, line[j] >= UInt8(ascii: "0"), line[j] <= UInt8(ascii: "9"), digits < 18 {
                value = value * 10 + Int(line[j] - UInt8(ascii: "0"))
                digits += 1
                j += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }
}

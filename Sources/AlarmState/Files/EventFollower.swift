import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Follows alarmd's event log (`EventLog`) as it grows, with inotify, never polling: the reader
/// side of `alarm watch` and the hooks runner.
///
/// Register `descriptor` with an `EventLoop` and call `read()` whenever it is readable; `read()`
/// returns the lines written since the last call, whole lines only, each once, in order:
/// - **Start.** `.end` begins after the last line written when the follower was made (the file
///   is opened before the watch is set up, and read to its end after: a line written meanwhile is
///   not lost); `.last(n)` with the last `n` lines before that; `.after(seq)` with every line
///   still kept whose seq is higher (`events.jsonl.1` included). A log that does not exist yet is
///   read from its first line when it appears.
/// - **Rotation.** When `events.jsonl` names a new file (rotated, or made anew by a restarted
///   alarmd), the old one is read to its end first (everything written to it came before the
///   rename), then the new one from its start. Should a reader fall two rotations behind, the
///   lines between are taken from `events.jsonl.1`.
/// - **The directory going away** (systemd removes `/run/alarm` when alarmd stops): its parent
///   is watched until it comes back; the new log is read from its start.
public final class EventFollower {
    public enum Start: Equatable, Sendable {
        case end
        case last(Int)
        case after(seq: Int)
    }

    public let path: String
    private let directory: String
    private let name: String
    private let inotify: Inotify
    private var current: ReadingFile?
    private var offset = 0
    /// The start of a line not yet ended by its newline.
    private var partial: [UInt8] = []
    /// The seq of the last line read (or skipped at the start); 0 when there was no log at the
    /// start, so that a log that appears is read whole, `events.jsonl.1` included.
    private var lastSeq: Int?
    private var directoryWatched = false
    /// Lines found while starting, handed out by the first `read()`.
    private var pending: [EventLine] = []

    /// Readable when the log or its directory may have changed.
    public var descriptor: Int32 { inotify.descriptor }

    /// Throws `SystemError` with EACCES when this user may not read the log (not in its group).
    public init(path: String, from start: Start = .end) throws {
        self.path = path
        (directory, name) = Self.split(path)
        inotify = try Inotify()
        // 1. Open first and take the end as it is now...
        current = try ReadingFile(path: path)
        lastSeq = 0
        if let file = current {
            let size = try file.size()
            offset = try Self.lastLineEnd(file, size: size)
            lastSeq = try Self.lastSeq(in: file, before: offset)
            switch start {
            case .end: break
            case .last(let n): pending = try lastLines(n, of: file)
            case .after(let seq):
                lastSeq = seq
                pending =
                    try Self.lines(of: path + ".1").filter { ($0.seq ?? 0) > seq }
                    + (try Self.lines(in: file, upTo: offset)).filter { ($0.seq ?? 0) > seq }
            }
        }
        if let seq = pending.last?.seq { lastSeq = seq }
        // 2. ...then watch, then read to the end: what came in between is read, nothing is lost.
        try watch()
        pending += try drain()
    }

    /// The lines written since the last call (or since the start), in order.
    public func read() throws -> [EventLine] {
        var out = pending
        pending = []
        var directoryGone = false
        for event in try inotify.readEvents() {
            if event.kinds.contains(.overflow) {
                // Events were lost, perhaps the directory's own: watch it afresh (draining below
                // reads the log to its end anyway).
                directoryGone = true
                continue
            }
            if event.name == nil, event.path == directory,
                !event.kinds.intersection([.deleteSelf, .moveSelf, .ignored]).isEmpty
            {
                directoryGone = true
            }
        }
        if directoryGone {
            directoryWatched = false
            try watch()
        } else if !directoryWatched {
            try watch()
        }
        out += try drain()
        return out
    }

    // MARK: -

    /// Watches the directory for the log's changes, or, while there is no directory, its parent
    /// for the directory's return.
    private func watch() throws {
        do {
            try inotify.watch(file: path, for: [.modify, .create, .movedTo, .movedFrom, .delete, .closeWrite])
            directoryWatched = true
        } catch let e as SystemError where e.errno == ENOENT || e.errno == ENOTDIR {
            try inotify.watch(file: directory, for: [.create, .movedTo])
            directoryWatched = false
        }
    }

    /// Reads the open file to its end, switching to a new file under `path` when there is one.
    private func drain() throws -> [EventLine] {
        var out: [EventLine] = []
        while true {
            if let file = current { out += try readToEnd(file) }
            let now = try FileIdentity.of(path)
            guard let now, now.identity != current?.identity else { return out }
            // A new file: the old one got everything before it was renamed or removed, and
            // that happened before the new one appeared; read those last lines, then switch.
            if let file = current { out += try readToEnd(file) }
            partial = []
            guard let fresh = try ReadingFile(path: path) else { return out }
            current = fresh
            offset = 0
            let previous = lastSeq
            let lines = try readToEnd(fresh)
            if let last = previous, let first = lines.lazy.compactMap(\.seq).first, first > last + 1 {
                // Fell behind by more than one rotation: the lines between are in `.1`.
                out += try Self.lines(of: path + ".1").filter { ($0.seq ?? 0) > last && ($0.seq ?? 0) < first }
            }
            out += lines
        }
    }

    private func readToEnd(_ file: ReadingFile) throws -> [EventLine] {
        let size = try file.size()
        if size < offset {
            // Cut back (a failed write was undone): go on from the new end.
            offset = size
            partial = []
        }
        guard size > offset else { return [] }
        let bytes = try file.read(at: offset, count: size - offset)
        offset += bytes.count
        var out: [EventLine] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            let line = partial + bytes[start..<i]
            partial = []
            start = i + 1
            if line.contains(where: { $0 != 32 }) {
                let l = EventLine(line)
                if let seq = l.seq { lastSeq = seq }
                out.append(l)
            }
        }
        partial += bytes[start...]
        return out
    }

    private func lastLines(_ n: Int, of file: ReadingFile) throws -> [EventLine] {
        guard n > 0 else { return [] }
        return Array(try Self.lines(in: file, upTo: offset).suffix(n))
    }

    /// The offset after the last newline of the first `size` bytes.
    static func lastLineEnd(_ file: ReadingFile, size: Int) throws -> Int {
        var end = size
        while end > 0 {
            let start = max(0, end - 4096)
            let chunk = try file.read(at: start, count: end - start)
            if let i = chunk.lastIndex(of: UInt8(ascii: "\n")) { return start + i + 1 }
            end = start
        }
        return 0
    }

    /// The seq of the last whole line with one before `end`, nil when there is none.
    static func lastSeq(in file: ReadingFile, before end: Int) throws -> Int? {
        let start = max(0, end - 64 * 1024)
        let lines = try file.read(at: start, count: end - start).split(separator: UInt8(ascii: "\n"))
        return lines.reversed().lazy.compactMap { EventLine(Array($0)).seq }.first
    }

    static func lines(in file: ReadingFile, upTo end: Int) throws -> [EventLine] {
        try file.read(at: 0, count: end).split(separator: UInt8(ascii: "\n")).map { EventLine(Array($0)) }
    }

    /// The whole lines of the file at `path` (none when it does not exist).
    static func lines(of path: String) throws -> [EventLine] {
        guard let file = try ReadingFile(path: path) else { return [] }
        return try lines(in: file, upTo: try lastLineEnd(file, size: try file.size()))
    }

    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let d = String(path[..<slash])
        return (d.isEmpty ? "/" : d, String(path[path.index(after: slash)...]))
    }
}

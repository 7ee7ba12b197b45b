import CLinux
import Glibc

/// Watches directories with inotify, and files by name inside them, so the daemon notices when
/// `/etc/localtime` is replaced (`timedatectl set-timezone` renames a new symlink over it; `ln -sf`
/// deletes and re-creates it) or when the CLI atomically renames a new `alarms.json` into the
/// state directory.
///
/// A file that is replaced by rename has a new inode, so a watch on the file itself would go stale;
/// `watch(file:)` therefore watches the file's parent directory and reports only the events that
/// name that file. The descriptor is non-blocking and close-on-exec; register `descriptor` with an
/// `EventLoop` for `.readable` and call `readEvents()` when it is ready.
public final class Inotify {
    /// Kinds of inotify event, as a set.
    public struct Kinds: OptionSet, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let access = Kinds(rawValue: UInt32(IN_ACCESS))
        public static let modify = Kinds(rawValue: UInt32(IN_MODIFY))
        public static let attrib = Kinds(rawValue: UInt32(IN_ATTRIB))
        public static let closeWrite = Kinds(rawValue: UInt32(IN_CLOSE_WRITE))
        public static let movedFrom = Kinds(rawValue: UInt32(IN_MOVED_FROM))
        public static let movedTo = Kinds(rawValue: UInt32(IN_MOVED_TO))
        public static let create = Kinds(rawValue: UInt32(IN_CREATE))
        public static let delete = Kinds(rawValue: UInt32(IN_DELETE))
        /// The watched directory itself was deleted.
        public static let deleteSelf = Kinds(rawValue: UInt32(IN_DELETE_SELF))
        /// The watched directory itself was moved.
        public static let moveSelf = Kinds(rawValue: UInt32(IN_MOVE_SELF))
        /// The watch was removed (explicitly, or because the directory went away).
        public static let ignored = Kinds(rawValue: UInt32(IN_IGNORED))
        /// The kernel's event queue overflowed: events were lost; rescan everything.
        public static let overflow = Kinds(rawValue: UInt32(IN_Q_OVERFLOW))
        /// The event's subject is a directory.
        public static let isDirectory = Kinds(rawValue: UInt32(IN_ISDIR))

        /// Everything that can mean "the file under this name is now different": created, renamed
        /// onto, deleted, renamed away, written and closed, modified, attributes changed.
        public static let replacement: Kinds = [
            .create, .movedTo, .delete, .movedFrom, .closeWrite, .modify, .attrib,
        ]

        public var description: String {
            let names: [(Kinds, String)] = [
                (.access, "access"), (.modify, "modify"), (.attrib, "attrib"), (.closeWrite, "closeWrite"),
                (.movedFrom, "movedFrom"), (.movedTo, "movedTo"), (.create, "create"), (.delete, "delete"),
                (.deleteSelf, "deleteSelf"), (.moveSelf, "moveSelf"), (.ignored, "ignored"),
                (.overflow, "overflow"), (.isDirectory, "isDirectory"),
            ]
            return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
        }
    }

    /// A watch this object added: one per directory.
    public struct Watch: Hashable, Sendable {
        let rawValue: Int32
    }

    /// One reported change.
    public struct Event: Equatable, Sendable, CustomStringConvertible {
        /// The directory watch it came from; `nil` for `.overflow`.
        public var watch: Watch?
        /// The watched directory.
        public var directory: String
        /// The name inside the directory, or `nil` when the event is about the directory itself.
        public var name: String?
        public var kinds: Kinds
        /// Pairs a `.movedFrom` with its `.movedTo`; 0 otherwise.
        public var cookie: UInt32

        /// `directory/name`, or the directory for events about the directory itself.
        public var path: String {
            guard let name else { return directory }
            return directory.hasSuffix("/") ? directory + name : directory + "/" + name
        }

        public var description: String { "\(path) \(kinds)" }
    }

    private struct Registration {
        var directory: String
        /// Names reported; `nil` means every name in the directory.
        var names: Set<String>?
    }

    /// The inotify file descriptor, for an `EventLoop`. Owned by this object; closed on deinit.
    public let descriptor: Int32
    private var registrations: [Int32: Registration] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates an inotify instance with no watches.
    /// The corresponding C function is `inotify_init1`.
    public init() throws {
        descriptor = try valueOrErrno("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    deinit { closeIgnoringErrors(descriptor) }

    /// Watches every entry of `directory` for `kinds` (plus the directory's own deletion or move).
    /// Watching the same directory again widens it to every name.
    /// The corresponding C function is `inotify_add_watch`.
    @discardableResult
    public func watch(directory: String, for kinds: Kinds = .replacement) throws -> Watch {
        try add(directory: directory, names: nil, kinds: kinds)
    }

    /// Watches the file at `path` by name, through its parent directory, so replacing it by rename
    /// or delete-and-create is seen as well as writes into it. Only events naming this file (or
    /// other files watched in the same directory) are reported, plus events about the directory
    /// itself. The file need not exist yet; its directory must. A symlink is not followed: for
    /// `/etc/localtime` this reports the link being replaced, which is what a zone change does.
    /// The corresponding C function is `inotify_add_watch`.
    @discardableResult
    public func watch(file path: String, for kinds: Kinds = .replacement) throws -> Watch {
        let (directory, name) = Inotify.split(path)
        return try add(directory: directory, names: [name], kinds: kinds)
    }

    /// Stops a watch: the whole directory watch, with every file watched through it (watches are
    /// per directory). The kernel then reports one `.ignored` event for it, which is dropped.
    /// The corresponding C function is `inotify_rm_watch`.
    public func remove(_ watch: Watch) throws {
        registrations[watch.rawValue] = nil
        try valueOrErrno("inotify_rm_watch") { inotify_rm_watch(descriptor, watch.rawValue) }
    }

    /// Reads and returns every pending event (an empty array when none are pending), filtered to
    /// the watched names. An `.overflow` event means some were lost and the caller should reload
    /// everything it watches.
    /// The corresponding C function is `read`.
    public func readEvents() throws -> [Event] {
        var events: [Event] = []
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in
                try valueOrWouldBlock("read(inotify)") { Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
            guard let count, count > 0 else { return events }
            parse(count: count, into: &events)
        }
    }

    private func add(directory: String, names: Set<String>?, kinds: Kinds) throws -> Watch {
        // IN_MASK_ADD: watching a second file in the same directory keeps the first one's kinds.
        let mask = kinds.rawValue | UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD)
        let wd = try valueOrErrno("inotify_add_watch(\(directory))") {
            inotify_add_watch(descriptor, directory, mask)
        }
        var registration = registrations[wd] ?? Registration(directory: directory, names: [])
        if let names, let existing = registration.names {
            registration.names = existing.union(names)
        } else {
            registration.names = nil
        }
        registrations[wd] = registration
        return Watch(rawValue: wd)
    }

    /// Walks `struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }` records.
    private func parse(count: Int, into events: inout [Event]) {
        let header = MemoryLayout<inotify_event>.size
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= count {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = raw[(offset + header)..<min(count, offset + header + length)]
                offset += header + length
                let kinds = Kinds(rawValue: mask)

                if kinds.contains(.overflow) {
                    events.append(Event(watch: nil, directory: "", name: nil, kinds: kinds, cookie: 0))
                    continue
                }
                guard let registration = registrations[wd] else { continue }
                if kinds.contains(.ignored) { registrations[wd] = nil }
                let name = nameBytes.isEmpty ? nil : String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if let name, let wanted = registration.names, !wanted.contains(name) { continue }
                events.append(
                    Event(
                        watch: Watch(rawValue: wd), directory: registration.directory,
                        name: name, kinds: kinds, cookie: cookie))
            }
        }
    }

    /// Splits a path into its directory and last component ("localtime" → ".", "localtime").
    static func split(_ path: String) -> (directory: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
        let directory = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (directory, String(trimmed[trimmed.index(after: slash)...]))
    }
}

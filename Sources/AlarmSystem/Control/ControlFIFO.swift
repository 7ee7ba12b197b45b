import CLinux
import Glibc

/// Why the control FIFO could not be set up or written, worded for the person at the terminal.
public enum ControlFIFOError: Error, Equatable, CustomStringConvertible {
    /// Something other than a FIFO is at the path (`kind`: "regular file", "directory", "symlink"...).
    case notAFIFO(path: String, kind: String)
    /// A FIFO is at the path but belongs to another user.
    case notOwned(path: String, owner: UInt32, us: UInt32)
    /// The FIFO exists but nobody has it open for reading (ENXIO): the daemon is not running.
    case daemonNotRunning(path: String)
    /// Nothing at the path (ENOENT).
    case missing(path: String)
    /// Not allowed to open the FIFO for writing (EACCES). `group`: the name of the FIFO's group,
    /// whose members may write it, when it can be told.
    case permissionDenied(path: String, group: String?)
    /// The FIFO is full (EAGAIN): the daemon is alive but not reading.
    case busy(path: String)
    /// The FIFO's group could not be set (EPERM): an unprivileged owner may only give a file to a
    /// group it belongs to.
    case cannotSetGroup(path: String, group: UInt32)
    /// The line cannot be sent: empty, longer than `maximumLineLength`, or containing a newline.
    case badLine(reason: String)
    /// Any other failure of a Linux call.
    case system(SystemError)

    public var description: String {
        switch self {
        case .notAFIFO(let path, let kind):
            return
                "\(path) exists and is a \(kind), not a FIFO; refusing to use or replace it (remove it, or choose another runtime directory)"
        case .notOwned(let path, let owner, let us):
            return
                "\(path) is a FIFO owned by uid \(owner), not by this process (uid \(us)); refusing to read commands from it"
        case .daemonNotRunning(let path):
            return "alarmd is not running (nobody is reading \(path))"
        case .missing(let path):
            return "alarmd is not running (no control FIFO at \(path); check --runtime-dir / ALARM_RUNTIME_DIR)"
        case .permissionDenied(let path, let group?):
            return
                "permission denied: you are not in group '\(group)', whose members may write \(path) (snooze, stop, ring); "
                + "ask an administrator for `sudo usermod -aG \(group) \(Accounts.currentUserName())` (then log in again), or use sudo"
        case .permissionDenied(let path, nil):
            return "permission denied: not allowed to write \(path); join the group that owns it, or use sudo"
        case .busy(let path):
            return "alarmd is not reading its control FIFO \(path) (it is full); is it hung?"
        case .cannotSetGroup(let path, let group):
            return
                "cannot give \(path) to group \(group): this user (uid \(geteuid())) is not a member of it; add it to the group (SupplementaryGroups= in the unit) or drop the group setting"
        case .badLine(let reason):
            return "cannot send this command: \(reason)"
        case .system(let error):
            return error.description
        }
    }
}

/// The daemon's control FIFO (`/run/alarm/control`), both ends.
///
/// The daemon side creates the FIFO (mode 0620 by default, optionally chowned to a group so members
/// can `alarm snooze` without sudo), refuses a path that holds anything but a FIFO it owns, and
/// opens it for reading without blocking. It also holds a write end of its own, so the read end
/// never sees end-of-file when the last client closes: otherwise epoll would report the FIFO
/// ready forever and the loop would spin. `readCommands()` drains what is available, through a
/// `ControlLineReader`, so memory stays bounded whatever is written.
///
/// The client side, `send(_:to:)`, never blocks: with no reader it fails at once with
/// `.daemonNotRunning`, and a full FIFO gives `.busy`.
public final class ControlFIFO {
    /// Where the FIFO is.
    public let path: String
    /// The read end, for an `EventLoop` (`.readable`). Owned by this object; closed on deinit.
    public let descriptor: Int32
    private let keepAliveWriter: Int32
    private var lines = ControlLineReader()
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    /// Creates the FIFO at `path` if nothing is there, or reuses the FIFO this user already owns
    /// there, then sets its permissions to `mode` (umask does not apply) and, when `group` is
    /// given, its group (`.cannotSetGroup` when this user is not a member). Throws
    /// `ControlFIFOError.notAFIFO` / `.notOwned` for anything else at the path, including a
    /// symlink. One daemon per FIFO: a second reader would take half the commands, so the
    /// caller holds its lock file before creating this.
    /// The corresponding C functions are `mkfifo`, `open`, `fchmod` and `fchown`.
    public init(path: String, mode: UInt32 = 0o620, group: UInt32? = nil) throws {
        self.path = path
        do {
            try valueOrErrno("mkfifo(\(path))") { mkfifo(path, mode_t(mode)) }
        } catch let error as SystemError where error.errno == EEXIST {
            // Something is there: checked below, after opening, on the very inode we opened.
        }
        var before = stat()
        try valueOrErrno("lstat(\(path))") { lstat(path, &before) }
        try ControlFIFO.check(before, path: path)

        let reader = try valueOrErrno("open(\(path))") {
            open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        }
        do {
            var opened = stat()
            try valueOrErrno("fstat(\(path))") { fstat(reader, &opened) }
            try ControlFIFO.check(opened, path: path)
            try valueOrErrno("fchmod(\(path))") { fchmod(reader, mode_t(mode)) }
            if let group {
                do {
                    try valueOrErrno("fchown(\(path))") { fchown(reader, uid_t.max, gid_t(group)) }
                } catch let error as SystemError where error.errno == EPERM {
                    throw ControlFIFOError.cannotSetGroup(path: path, group: group)
                }
            }
            keepAliveWriter = try ControlFIFO.openWriter(sameAs: reader, opened: opened, path: path)
        } catch {
            closeIgnoringErrors(reader)
            throw error
        }
        descriptor = reader
    }

    deinit {
        closeIgnoringErrors(keepAliveWriter)
        closeIgnoringErrors(descriptor)
    }

    /// Reads what is available (at most `maximumBytes`, so one busy writer cannot starve the rest
    /// of an event loop; call again while the descriptor stays readable) and returns the commands
    /// of every completed line, invalid ones included for logging. Empty when nothing is pending.
    /// The corresponding C function is `read`.
    public func readCommands(maximumBytes: Int = 64 * 1024) throws -> [ControlCommand] {
        var commands: [ControlCommand] = []
        var total = 0
        while total < maximumBytes {
            let want = min(buffer.count, maximumBytes - total)
            let n = try buffer.withUnsafeMutableBytes { raw in
                try valueOrWouldBlock("read(\(path))") { Glibc.read(descriptor, raw.baseAddress, want) }
            }
            guard let n, n > 0 else { break }
            total += n
            commands += buffer.withUnsafeBytes { lines.consume(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return commands
    }

    /// Removes the FIFO from the file system (at shutdown), if it is still the one this object
    /// opened. The open descriptors stay valid until deinit.
    /// The corresponding C function is `unlink`.
    public func remove() throws {
        var mine = stat()
        var there = stat()
        try valueOrErrno("fstat(\(path))") { fstat(descriptor, &mine) }
        guard lstat(path, &there) == 0, there.st_dev == mine.st_dev, there.st_ino == mine.st_ino else { return }
        try valueOrErrno("unlink(\(path))") { unlink(path) }
    }

    /// Sends one command to the daemon listening on the FIFO at `path`.
    public static func send(_ command: ControlCommand, to path: String) throws {
        guard let line = command.line else { throw ControlFIFOError.badLine(reason: "\(command)") }
        try send(line: line, to: path)
    }

    /// Throws the reason the daemon cannot be told anything (`.daemonNotRunning`, `.missing`,
    /// `.permissionDenied`, `.notAFIFO`), or returns when a daemon has the FIFO open. Opens and
    /// closes the write end without writing, so the daemon sees nothing. Never blocks.
    /// The corresponding C function is `open`.
    public static func probe(_ path: String) throws {
        closeIgnoringErrors(try openWriteEnd(path))
    }

    /// Opens the write end without blocking and checks it is a FIFO; errors say what a user can do.
    private static func openWriteEnd(_ path: String) throws -> Int32 {
        let fd: Int32
        do {
            fd = try valueOrErrno("open(\(path))") { open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch let error as SystemError {
            switch error.errno {
            case ENXIO: throw ControlFIFOError.daemonNotRunning(path: path)
            case ENOENT: throw ControlFIFOError.missing(path: path)
            case EACCES, EPERM: throw ControlFIFOError.permissionDenied(path: path, group: groupName(of: path))
            default: throw ControlFIFOError.system(error)
            }
        }
        var info = stat()
        do { try valueOrErrno("fstat(\(path))") { fstat(fd, &info) } } catch {
            closeIgnoringErrors(fd)
            throw error
        }
        guard clinux_s_isfifo(info.st_mode) != 0 else {
            closeIgnoringErrors(fd)
            throw ControlFIFOError.notAFIFO(path: path, kind: kindName(info.st_mode))
        }
        return fd
    }

    /// Writes a newline, `line` and a newline to the FIFO at `path` in a single `write`, which a FIFO
    /// delivers whole (it is shorter than PIPE_BUF) even among many writers. Never blocks: no
    /// reader is `.daemonNotRunning` at once, a full FIFO is `.busy`. SIGPIPE, should the reader
    /// close in between, is caught and reported as `.daemonNotRunning` instead of killing the caller.
    /// The corresponding C functions are `open` and `write`.
    public static func send(line: String, to path: String) throws {
        let text = Array(line.utf8)
        guard !text.isEmpty else { throw ControlFIFOError.badLine(reason: "the line is empty") }
        guard text.count <= ControlCommand.maximumLineLength else {
            throw ControlFIFOError.badLine(reason: "longer than \(ControlCommand.maximumLineLength) bytes")
        }
        guard !text.contains(UInt8(ascii: "\n")) else {
            throw ControlFIFOError.badLine(reason: "it contains a newline")
        }
        // A leading newline ends whatever partial line a writer that died mid-line left in the
        // FIFO (the reader ignores blank lines), so our command never glues onto its tail.
        // Still one write below PIPE_BUF: atomic among concurrent writers.
        let bytes = [UInt8(ascii: "\n")] + text + [UInt8(ascii: "\n")]
        let fd = try openWriteEnd(path)
        defer { closeIgnoringErrors(fd) }
        do {
            let written = try withSIGPIPEBlocked {
                try bytes.withUnsafeBytes { raw in
                    try valueOrErrno("write(\(path))") { write(fd, raw.baseAddress, raw.count) }
                }
            }
            guard written == bytes.count else {  // cannot happen below PIPE_BUF; never pretend
                throw ControlFIFOError.system(
                    SystemError("write(\(path)) wrote \(written) of \(bytes.count) bytes", errno: EIO))
            }
        } catch let error as SystemError {
            switch error.errno {
            case EAGAIN: throw ControlFIFOError.busy(path: path)
            case EPIPE: throw ControlFIFOError.daemonNotRunning(path: path)
            default: throw ControlFIFOError.system(error)
            }
        }
    }

    /// Opens a write end on the very FIFO `reader` is: through /proc/self/fd (immune to the path
    /// being swapped meanwhile), or, without /proc, through the path, checked to be the same inode.
    /// The corresponding C function is `open`.
    private static func openWriter(sameAs reader: Int32, opened: stat, path: String) throws -> Int32 {
        do {
            return try valueOrErrno("open(/proc/self/fd/\(reader))") {
                open("/proc/self/fd/\(reader)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            }
        } catch let error as SystemError where error.errno == ENOENT {
            let writer = try valueOrErrno("open(\(path))") {
                open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            }
            var info = stat()
            guard (try? valueOrErrno("fstat(\(path))") { fstat(writer, &info) }) != nil, info.st_dev == opened.st_dev,
                info.st_ino == opened.st_ino
            else {
                closeIgnoringErrors(writer)
                throw ControlFIFOError.notAFIFO(path: path, kind: "file that changed while it was opened")
            }
            return writer
        }
    }

    private static func check(_ info: stat, path: String) throws {
        guard clinux_s_isfifo(info.st_mode) != 0 else {
            throw ControlFIFOError.notAFIFO(path: path, kind: kindName(info.st_mode))
        }
        guard info.st_uid == geteuid() else {
            throw ControlFIFOError.notOwned(path: path, owner: info.st_uid, us: geteuid())
        }
    }

    private static func groupName(of path: String) -> String? { Accounts.groupName(ofFile: path) }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symlink"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFIFO: return "FIFO"
        default: return "file of unknown type"
        }
    }

    /// Runs `body` with SIGPIPE blocked in this thread, then discards a SIGPIPE it raised, so a
    /// write to a FIFO whose reader just left returns EPIPE instead of killing the process.
    /// The corresponding C functions are `pthread_sigmask` and `sigtimedwait`.
    private static func withSIGPIPEBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var pipeSet = sigset_t()
        var old = sigset_t()
        sigemptyset(&pipeSet)
        sigaddset(&pipeSet, SIGPIPE)
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let wasPending = sigismember(&pendingBefore, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipeSet, &old)
        defer {
            if !wasPending {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSet, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &old, nil)
        }
        return try body()
    }
}

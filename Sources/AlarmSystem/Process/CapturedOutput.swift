import CLinux
import Glibc

/// What a child wrote on its stdout, read with a bound on size and on time, and how it ended.
public struct CapturedOutput: Sendable {
    /// Why the child was killed before it finished on its own.
    public enum Cut: Equatable, Sendable {
        /// It had not closed its stdout and exited within the time bound (seconds).
        case timedOut(Double)
        /// It wrote more than the size bound (bytes).
        case tooLarge(Int)
    }

    /// Everything read, at most the size bound.
    public var bytes: [UInt8]
    public var status: ExitStatus
    /// Nil when the child ended by itself.
    public var cut: Cut?
}

extension ChildProcess {
    /// Runs `executable` in a process group of its own with stdin from /dev/null (or
    /// `standardInput`, a descriptor of this process's, which it keeps), stderr to /dev/null,
    /// and stdout into a pipe this process reads: at most `limit` bytes, and only until
    /// `timeout` seconds after the start. A child that writes more, or has not exited by then
    /// (stuck, or stdout closed and still running), is killed with SIGKILL (its whole group) and
    /// reaped; `cut` says why. Never blocks longer than `timeout` plus the kill and reap.
    /// The corresponding C functions are `pipe2`, `posix_spawn`, `poll`, `read`, `kill` and `waitpid`.
    public static func capture(
        executable: String, arguments: [String], environment: [String: String], limit: Int, timeout: Double,
        standardInput: Int32? = nil
    ) throws -> CapturedOutput {
        var ends: [Int32] = [-1, -1]
        try valueOrErrno("pipe2") { clinux_pipe2(&ends, O_CLOEXEC) }
        defer { closeIgnoringErrors(ends[0]) }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                executable: executable, arguments: arguments, environment: environment, ownProcessGroup: true,
                standardOutput: ends[1], quiet: true, inputDescriptor: standardInput)
        } catch {
            closeIgnoringErrors(ends[1])
            throw error
        }
        closeIgnoringErrors(ends[1])
        let deadline = monotonicSeconds() + timeout
        var bytes: [UInt8] = []
        var cut: CapturedOutput.Cut?
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        reading: while true {
            guard try waitReadable(ends[0], until: deadline) else {
                cut = .timedOut(timeout)
                break
            }
            let n = try chunk.withUnsafeMutableBytes { buf in
                try valueOrErrno("read(pipe)") { Glibc.read(ends[0], buf.baseAddress!, buf.count) }
            }
            if n == 0 { break reading }
            if bytes.count + n > limit {
                cut = .tooLarge(limit)
                break
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        if cut == nil, try !waitEnded(child, until: deadline) { cut = .timedOut(timeout) }
        if cut != nil { try? child.signal(SIGKILL) }
        return CapturedOutput(bytes: bytes, status: try child.wait(), cut: cut)
    }

    /// True once `fd` is readable (data or end of file), false when `deadline` passes first.
    private static func waitReadable(_ fd: Int32, until deadline: Double) throws -> Bool {
        while true {
            let left = deadline - monotonicSeconds()
            if left <= 0 { return false }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = try valueOrErrno("poll") { poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up))) }
            if r > 0 { return true }
        }
    }

    /// True once `child` has ended (not yet reaped), false when `deadline` passes first.
    private static func waitEnded(_ child: ChildProcess, until deadline: Double) throws -> Bool {
        if child.descriptor >= 0 { return try waitReadable(child.descriptor, until: deadline) }
        while monotonicSeconds() < deadline {
            if try child.reap() != nil { return true }
            usleep(10_000)
        }
        return false
    }

    private static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

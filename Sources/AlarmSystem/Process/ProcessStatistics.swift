import CLinux
import Glibc

/// Counts of how often threads of this process were switched out, read from /proc, for measuring
/// how often an idle daemon wakes up.
///
/// A thread sleeping in `epoll_wait` adds one voluntary switch each time it wakes and sleeps
/// again, so the growth of `voluntary` over a minute of idling is the wake-ups per minute. The
/// counts are per thread (`/proc/self/task/TID/status`) because a helper thread (a Dispatch
/// worker, an audio thread) that wakes every second is exactly what the measurement must catch.
/// The counts are only ever read (`currentThread`, `sample`), so, like `Thread` and `Sample`, they
/// have no public initializer.
public struct ContextSwitches: Equatable, Sendable {
    /// Switches because the thread blocked or slept: its wake-ups.
    public var voluntary: UInt64
    /// Switches because the scheduler preempted it.
    public var involuntary: UInt64

    /// One thread's counts.
    public struct Thread: Equatable, Sendable {
        public var id: Int32
        /// The thread's name (`comm`), as `top -H` shows it.
        public var name: String
        public var switches: ContextSwitches
    }

    /// A snapshot of every thread of this process.
    public struct Sample: Equatable, Sendable {
        public var threads: [Thread]

        /// Voluntary switches since `earlier`, summed over threads; a thread new since then counts
        /// from zero, one that ended since is not counted.
        public func wakeups(since earlier: Sample) -> UInt64 {
            let before = Dictionary(earlier.threads.map { ($0.id, $0.switches.voluntary) }, uniquingKeysWith: max)
            return threads.reduce(0) { sum, thread in
                let then = before[thread.id] ?? 0
                return sum + (thread.switches.voluntary >= then ? thread.switches.voluntary - then : 0)
            }
        }
    }

    /// The calling thread's counts, from /proc/thread-self/status.
    public static func currentThread() throws -> ContextSwitches {
        try parse(ProcFile.read("/proc/thread-self/status"))
    }

    /// Every thread of a process (this one by default), from /proc/PID/task/*/status; a
    /// benchmark samples the daemon it started by its pid. Throws ENOENT when there is no such
    /// process.
    public static func sample(process pid: Int32? = nil) throws -> Sample {
        let base = pid.map { "/proc/\($0)" } ?? "/proc/self"
        var threads: [Thread] = []
        for tid in try ProcFile.list(base + "/task") {
            guard let id = Int32(tid) else { continue }
            // A thread may end between listing and reading; skip it.
            guard let status = try? ProcFile.read("\(base)/task/\(tid)/status") else { continue }
            let name =
                status.split(separator: "\n").first { $0.hasPrefix("Name:") }
                .map { $0.dropFirst(5).trimmingCharacters() } ?? ""
            threads.append(Thread(id: id, name: name, switches: try parse(status)))
        }
        return Sample(threads: threads.sorted { $0.id < $1.id })
    }

    static func parse(_ status: String) throws -> ContextSwitches {
        var voluntary: UInt64?
        var involuntary: UInt64?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("voluntary_ctxt_switches:") {
                voluntary = UInt64(line.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters())
            } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                involuntary = UInt64(line.dropFirst("nonvoluntary_ctxt_switches:".count).trimmingCharacters())
            }
        }
        guard let voluntary, let involuntary else {
            throw SystemError("parse /proc status: no ctxt_switches lines", errno: EINVAL)
        }
        return ContextSwitches(voluntary: voluntary, involuntary: involuntary)
    }
}

/// Memory of a process, for "resident memory while idle".
public enum ResidentMemory {
    /// The resident set size in bytes (`VmRSS`) of a process, this one by default.
    public static func bytes(process pid: Int32? = nil) throws -> UInt64 {
        let status = try ProcFile.read((pid.map { "/proc/\($0)" } ?? "/proc/self") + "/status")
        // "VmRSS:\t    1234 kB"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = line.dropFirst("VmRSS:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap({
                UInt64($0)
            })
        else { throw SystemError("parse /proc status: no VmRSS line", errno: EINVAL) }
        return kib * 1024
    }

    /// Gives the memory this process has freed back to the kernel (glibc's `malloc_trim`: free
    /// pages in every arena, not only at the heap's top), so resident memory falls after a busy
    /// spell.
    public static func giveBack() {
        _ = malloc_trim(0)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

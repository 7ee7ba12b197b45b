import AlarmCore
import AlarmSystem
import FoundationEssentials

/// The hooks: the executables in `hooks_dir` (default `/etc/alarm/hooks.d`), looked at again for
/// every event, so a hook added or removed counts from the next event without a restart.
///
/// Like run-parts, in the order of their names; unlike Debian's run-parts, any name runs (a
/// `mqtt.py` too), except hidden files (`.name`), backups (`name~`) and files a package manager
/// leaves beside a changed one (`name.dpkg-old`, `.dpkg-dist`, `.dpkg-new`, `.dpkg-tmp`,
/// `.ucf-old`, …). A file that is not executable is skipped and named once in the log.
public struct HookDirectory {
    public let path: String

    public init(path: String) { self.path = path }

    /// The hooks to run now, by full path, sorted by name; `skipped`: the files left out because
    /// they are not executable regular files. A directory that does not exist holds no hooks.
    public func hooks() -> (run: [String], skipped: [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return ([], []) }
        var run: [String] = []
        var skipped: [String] = []
        for name in names.sorted() where Self.counts(name) {
            let full = path.hasSuffix("/") ? path + name : path + "/" + name
            if ChildProcess.isRunnable(full) { run.append(full) } else { skipped.append(full) }
        }
        return (run, skipped)
    }

    /// Whether a file of this name is meant as a hook.
    static func counts(_ name: String) -> Bool {
        if name.hasPrefix(".") || name.hasSuffix("~") { return false }
        for leftover in [".dpkg-", ".ucf-", ".rpmnew", ".rpmsave", ".disabled"] where name.contains(leftover) {
            return false
        }
        return true
    }

    /// The environment of a hook: the runner's own (without systemd's `NOTIFY_SOCKET` and the
    /// like), with the event's variables.
    ///
    /// `ALARM_EVENT` (the event's name), `ALARM_ID` (the alarm's id), `ALARM_LABEL`,
    /// `ALARM_SCHEDULED` (RFC 3339), and also `ALARM_AT`, `ALARM_SOUND`, `ALARM_SEQ`, `ALARM_LEAD`
    /// (a `pre-alarm`'s lead in seconds, issue #43: `1800` for 30m); a value that
    /// does not apply is the empty string. `ALARM_RUNTIME_DIR` names alarmd's runtime directory
    /// (status.json, the FIFO), `PATH` is set when the runner has none.
    public static func environment(
        for event: AlarmEvent, seq: Int?, base: [String: String], runtimeDir: String
    ) -> [String: String] {
        // Not systemd's notification or socket-activation variables: they are the runner's.
        var env = base.filter {
            !["NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"].contains(
                $0.key)
        }
        if env["PATH"] == nil { env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" }
        func time(_ d: Date?) -> String { d.map { RFC3339.format($0, in: event.timeZone, milliseconds: true) } ?? "" }
        env["ALARM_EVENT"] = event.event
        env["ALARM_ID"] = event.alarm ?? ""
        env["ALARM_LABEL"] = event.label ?? ""
        env["ALARM_SCHEDULED"] = time(event.scheduled)
        env["ALARM_AT"] = time(event.at)
        env["ALARM_SOUND"] = event.sound ?? ""
        env["ALARM_SEQ"] = seq.map(String.init) ?? ""
        env["ALARM_LEAD"] = event.lead.map { Self.seconds($0) } ?? ""
        env["ALARM_RUNTIME_DIR"] = runtimeDir
        return env
    }

    /// Seconds as a shell script compares them: `1800`, or `1.5` when not whole.
    static func seconds(_ s: TimeInterval) -> String {
        s == s.rounded() && abs(s) < 1e15 ? String(Int(s)) : String(s)
    }
}

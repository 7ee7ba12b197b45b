import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// The installed layout (issue #5): `/var/lib/alarm` is mode 2770, owned by the daemon's user and
/// the group `alarm`, and every member of that group may run `alarm add`. Runs the built `alarm`
/// as several users with `setpriv` (needs root; skipped otherwise).
@Suite("a state directory shared by the group alarm (issue #5)")
struct SharedStateDirectoryTests {
    @Test(
        "two group members and the daemon's user, each with umask 022, can all change the alarms",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func membersShareTheStore() throws {
        let dir = "/tmp/alarm-shared-" + String(UUID().uuidString.prefix(8))
        let state = dir + "/state"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let (daemon, group): (UInt32, UInt32) = (64_990, 64_990)
        #expect(chown(state, daemon, group) == 0)
        #expect(chmod(state, 0o2770) == 0)
        #expect(chmod(dir, 0o755) == 0)
        // A copy the other users can execute, whatever the checkout's permissions.
        let alarm = dir + "/alarm"
        try FileManager.default.copyItem(atPath: Binaries.directory.appendingPathComponent("alarm").path, toPath: alarm)
        #expect(chmod(alarm, 0o755) == 0)

        // The first member creates alarms.lock 0644 (group read-only); the others must still lock it.
        for uid in [64_991, 64_992, daemon] {
            let r = try run(alarm, as: uid, group: group, ["add", "--id", "u\(uid)", "07:00"], state: state)
            #expect(r.status == 0, "uid \(uid): \(r.err)")
        }
        let list = try run(alarm, as: daemon, group: group, ["list"], state: state)
        for uid in [64_991, 64_992, daemon] { #expect(list.out.contains("u\(uid)"), "\(list.out)") }
    }

    @Test(
        "as the unit sets it up: a member of the daemon's group rings and stops through the FIFO (0620), anyone else is told to join the group",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func fifoForTheGroupOnly() throws {
        let dir = "/tmp/alarm-fifo-" + String(UUID().uuidString.prefix(8))
        let (state, runtime) = (dir + "/state", dir + "/run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (daemon, group): (UInt32, UInt32) = (64_990, 64_990)
        let d = try startAsUnit(in: dir, daemon: daemon, group: group)
        defer {
            if d.isRunning {
                d.terminate()
                d.waitUntilExit()
            }
        }
        let fifo = runtime + "/control"
        var st = stat()
        #expect(lstat(fifo, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o620, "FIFO mode \(String(st.st_mode & 0o7777, radix: 8))")
        #expect(st.st_gid == group)

        let member = try run(dir + "/alarm", as: 64_991, group: group, ["ring"], state: state, runtime: runtime)
        #expect(member.status == 0, "member ring: \(member.err)")
        let stop = try run(dir + "/alarm", as: 64_991, group: group, ["stop"], state: state, runtime: runtime)
        #expect(stop.status == 0 && stop.out.contains("stopped"), "member stop: \(stop.out) \(stop.err)")
        let outsider = try run(dir + "/alarm", as: 64_995, group: 64_995, ["ring"], state: state, runtime: runtime)
        #expect(outsider.status != 0, "an outsider could ring: \(outsider.out)")
        #expect(
            outsider.status == 4 && outsider.err.contains("permission denied"),
            "outsider ring: \(outsider.status) \(outsider.err)")
        let outsiderStop = try run(dir + "/alarm", as: 64_995, group: 64_995, ["stop"], state: state, runtime: runtime)
        #expect(
            outsiderStop.status == 4 && outsiderStop.err.contains("permission denied"),
            "outsider stop: \(outsiderStop.status) \(outsiderStop.err)")
    }

    @Test(
        "issue #10: a user outside the group sees that alarmd runs (status.json is 0644 despite the daemon's umask), and that it stopped after a kill -9",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func outsiderStatus() throws {
        let dir = "/tmp/alarm-outsider-" + String(UUID().uuidString.prefix(8))
        let (state, runtime) = (dir + "/state", dir + "/run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (daemon, group): (UInt32, UInt32) = (64_990, 64_990)
        let d = try startAsUnit(in: dir, daemon: daemon, group: group)
        defer {
            if d.isRunning {
                d.terminate()
                d.waitUntilExit()
            }
        }
        var st = stat()
        #expect(stat(runtime + "/status.json", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o644, "status.json mode \(String(st.st_mode & 0o777, radix: 8))")

        let status = try run(dir + "/alarm", as: 64_995, group: 64_995, ["status"], state: state, runtime: runtime)
        #expect(
            status.status == 0 && status.out.contains("idle"),
            "outsider status: \(status.status) \(status.out) \(status.err)")
        let json = try run(
            dir + "/alarm", as: 64_995, group: 64_995, ["status", "--json"], state: state, runtime: runtime)
        #expect(
            json.status == 0 && json.out.contains("\"running\" : true"),
            "outsider status --json: \(json.out) \(json.err)")

        // kill -9 leaves the FIFO and status.json behind; the lock goes with the process.
        kill(d.processIdentifier, SIGKILL)
        d.waitUntilExit()
        let dead = try run(dir + "/alarm", as: 64_995, group: 64_995, ["status"], state: state, runtime: runtime)
        #expect(
            dead.status == 3 && dead.out.contains("not running"),
            "outsider status after kill -9: \(dead.status) \(dead.out) \(dead.err)")
    }

    /// What the unit prepares in `dir`: `state` and `run` as StateDirectory=/RuntimeDirectory=
    /// (modes 2770, 0755) and User=/Group= make them, copies of alarm and alarmd anyone may run,
    /// and alarmd started there as `daemon`; returns once it wrote status.json (or 10 s passed).
    private func startAsUnit(in dir: String, daemon: UInt32, group: UInt32) throws -> Process {
        let (state, runtime) = (dir + "/state", dir + "/run")
        for (path, mode) in [(state, 0o2770), (runtime, 0o755)] as [(String, mode_t)] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            #expect(chown(path, daemon, group) == 0)
            #expect(chmod(path, mode) == 0)
        }
        #expect(chmod(dir, 0o755) == 0)
        for name in ["alarm", "alarmd"] {
            try FileManager.default.copyItem(
                atPath: Binaries.directory.appendingPathComponent(name).path, toPath: dir + "/" + name)
            #expect(chmod(dir + "/" + name, 0o755) == 0)
        }
        let d = Process()
        d.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        d.arguments = ["--reuid=\(daemon)", "--regid=\(group)", "--groups=\(group)", "--", dir + "/alarmd"]
        d.environment = environment(state: state, runtime: runtime)
        d.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try d.run()
        waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: runtime + "/status.json") }
        return d
    }

    private func environment(state: String, runtime: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC"] { env[key] = nil }
        env["ALARM_STATE_DIR"] = state
        env["ALARM_RUNTIME_DIR"] = runtime
        env["ALARM_CONFIG"] = "/dev/null"
        env["ALARM_DEVICE"] = "null"
        return env
    }

    private func run(
        _ alarm: String, as uid: UInt32, group: UInt32, _ args: [String], state: String, runtime: String? = nil
    ) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments =
            [
                "--reuid=\(uid)", "--regid=\(uid)", "--groups=\(group)", "--", "/bin/sh", "-c",
                "umask 022; exec \"$0\" \"$@\"", alarm,
            ] + args
        p.environment = environment(state: state, runtime: runtime ?? state + "/../run")
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}

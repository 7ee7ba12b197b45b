import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// The installed layout (issue #5): `/var/lib/alarm` is mode 2770, owned by the daemon's user and
/// the group `alarm`, and every member of that group may run `alarm add`. Runs the built `alarm`
/// as several users with `setpriv` (needs root; skipped otherwise).
@Suite("a state directory shared by the group alarm (issue #5)")
struct SharedStateDirectoryTests {
    static let canSwitchUsers = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    /// The daemon's user and its group, as the unit's User=/Group= name them.
    let daemon: UInt32 = 64_990
    let group: UInt32 = 64_990

    @Test(
        "two group members and the daemon's user, each with umask 022, can all change the alarms",
        .enabled(if: Self.canSwitchUsers))
    func membersShareTheStore() throws {
        let h = try harness("alarm-shared")
        defer { h.shutdown() }
        #expect(chown(h.stateDir, daemon, group) == 0)
        #expect(chmod(h.stateDir, 0o2770) == 0)
        #expect(chmod(h.root, 0o755) == 0)
        try copyBinaries(["alarm"], to: h)

        // The first member creates alarms.lock 0644 (group read-only); the others must still lock it.
        for uid in [64_991, 64_992, daemon] {
            let r = try run(h, as: uid, group: group, ["add", "--id", "u\(uid)", "07:00"])
            #expect(r.status == 0, "uid \(uid): \(r.stderr)")
        }
        let list = try run(h, as: daemon, group: group, ["list"])
        for uid in [64_991, 64_992, daemon] { #expect(list.stdout.contains("u\(uid)"), "\(list.stdout)") }
    }

    @Test(
        "as the unit sets it up: a member of the daemon's group rings and stops through the FIFO (0620), anyone else is told to join the group",
        .enabled(if: Self.canSwitchUsers))
    func fifoForTheGroupOnly() throws {
        let h = try harness("alarm-fifo")
        defer { h.shutdown() }
        try startAsUnit(h)
        var st = stat()
        #expect(lstat(h.fifoPath, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o620, "FIFO mode \(String(st.st_mode & 0o7777, radix: 8))")
        #expect(st.st_gid == group)

        let member = try run(h, as: 64_991, group: group, ["ring"])
        #expect(member.status == 0, "member ring: \(member.stderr)")
        let stop = try run(h, as: 64_991, group: group, ["stop"])
        #expect(stop.status == 0 && stop.stdout.contains("stopped"), "member stop: \(stop.stdout) \(stop.stderr)")
        let outsider = try run(h, as: 64_995, group: 64_995, ["ring"])
        #expect(outsider.status != 0, "an outsider could ring: \(outsider.stdout)")
        #expect(
            outsider.status == 4 && outsider.stderr.contains("permission denied"),
            "outsider ring: \(outsider.status) \(outsider.stderr)")
        let outsiderStop = try run(h, as: 64_995, group: 64_995, ["stop"])
        #expect(
            outsiderStop.status == 4 && outsiderStop.stderr.contains("permission denied"),
            "outsider stop: \(outsiderStop.status) \(outsiderStop.stderr)")
    }

    @Test(
        "issue #10: a user outside the group sees that alarmd runs (status.json is 0644 despite the daemon's umask), and that it stopped after a kill -9",
        .enabled(if: Self.canSwitchUsers))
    func outsiderStatus() throws {
        let h = try harness("alarm-outsider")
        defer { h.shutdown() }
        try startAsUnit(h)
        var st = stat()
        #expect(stat(h.statusPath, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o644, "status.json mode \(String(st.st_mode & 0o777, radix: 8))")

        let status = try run(h, as: 64_995, group: 64_995, ["status"])
        #expect(
            status.status == 0 && status.stdout.contains("idle"),
            "outsider status: \(status.status) \(status.stdout) \(status.stderr)")
        let json = try run(h, as: 64_995, group: 64_995, ["status", "--json"])
        #expect(
            json.status == 0 && json.stdout.contains("\"running\" : true"),
            "outsider status --json: \(json.stdout) \(json.stderr)")

        // kill -9 leaves the FIFO and status.json behind; the lock goes with the process.
        h.crash()
        let dead = try run(h, as: 64_995, group: 64_995, ["status"])
        #expect(
            dead.status == 3 && dead.stdout.contains("not running"),
            "outsider status after kill -9: \(dead.status) \(dead.stdout) \(dead.stderr)")
    }

    /// A harness in `/tmp/name-…` (a root other users can reach) with no sound card and an empty
    /// config, whose alarmd and CLI inherit none of the test runner's notify variables.
    private func harness(_ name: String) throws -> AlarmdHarness {
        let h = try AlarmdHarness(
            root: "/tmp/\(name)-" + String(UUID().uuidString.prefix(8)), config: "", audio: .device("null"))
        h.removedEnvironment = ["NOTIFY_SOCKET", "WATCHDOG_USEC"]
        return h
    }

    /// Copies of our `names` in the root that the other users can execute, whatever the
    /// checkout's permissions.
    private func copyBinaries(_ names: [String], to h: AlarmdHarness) throws {
        for name in names {
            try FileManager.default.copyItem(atPath: Binaries.path(name), toPath: h.root + "/" + name)
            #expect(chmod(h.root + "/" + name, 0o755) == 0)
        }
    }

    /// What the unit prepares in the root: `state` and `run` as StateDirectory=/RuntimeDirectory=
    /// (modes 2770, 0755) and User=/Group= make them, copies of alarm and alarmd anyone may run,
    /// and alarmd started there as `daemon` through setpriv; returns once it wrote status.json
    /// (or 10 s passed).
    private func startAsUnit(_ h: AlarmdHarness) throws {
        for (path, mode) in [(h.stateDir, 0o2770), (h.runtimeDir, 0o755)] as [(String, mode_t)] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            #expect(chown(path, daemon, group) == 0)
            #expect(chmod(path, mode) == 0)
        }
        #expect(chmod(h.root, 0o755) == 0)
        try copyBinaries(["alarm", "alarmd"], to: h)
        h.alarmdPath = h.root + "/alarmd"
        h.launcher = ["/usr/bin/setpriv", "--reuid=\(daemon)", "--regid=\(group)", "--groups=\(group)", "--"]
        try h.launch()
        waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: h.statusPath) }
    }

    /// The root's copy of `alarm args` as `uid` (in its own group and `group`) with umask 022.
    private func run(_ h: AlarmdHarness, as uid: UInt32, group: UInt32, _ args: [String]) throws -> Binaries.Result {
        try h.run(
            "/usr/bin/setpriv",
            [
                "--reuid=\(uid)", "--regid=\(uid)", "--groups=\(group)", "--", "/bin/sh", "-c",
                "umask 022; exec \"$0\" \"$@\"", h.root + "/alarm",
            ] + args)
    }
}

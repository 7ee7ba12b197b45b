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

    private func run(_ alarm: String, as uid: UInt32, group: UInt32, _ args: [String], state: String) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--groups=\(group)", "--", "/bin/sh", "-c", "umask 022; exec \"$0\" \"$@\"", alarm] + args
        var env = ProcessInfo.processInfo.environment
        env["ALARM_STATE_DIR"] = state
        env["ALARM_RUNTIME_DIR"] = state + "/../run"
        env["ALARM_CONFIG"] = "/dev/null"
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}

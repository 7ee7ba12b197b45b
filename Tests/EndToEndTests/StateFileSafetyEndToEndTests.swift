import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// Issue #42, as a user meets it: the built `alarm` and `alarmd` on a state directory that a
/// power cut, a housemate or a narrow umask left in a bad way.
@Suite("issue #42: damaged and hostile state files (the built binaries)")
struct StateFileSafetyEndToEndTests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-state42-" + UUID().uuidString
        var state: String { root + "/state" }
        var environment: [String: String] {
            [
                "ALARM_STATE_DIR": state, "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null",
                "ALARM_SOUNDS_DIR": root + "/sounds", "TZ": "Europe/Berlin",
            ]
        }
        init() throws {
            try FileManager.default.createDirectory(atPath: root + "/sounds", withIntermediateDirectories: true)
        }
        func run(_ args: String..., timeout: TimeInterval = 60) throws -> Binaries.Result {
            try Binaries.run("alarm", args, environment: environment, timeout: timeout)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    func mode(_ path: String) -> UInt32 {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt32(st.st_mode) & 0o7777 : 0
    }

    @Test("alarm add under umask 077 leaves alarms.json, its backup and alarms.lock 0660")
    func addUnderUmask077() throws {
        let env = try Env()
        let alarm = Binaries.path("alarm")
        for id in ["one", "two"] {
            let r = try Binaries.runAbsolute(
                "/bin/sh", ["-c", "umask 077 && exec \"$0\" add --id \(id) 07:00", alarm], environment: env.environment,
                timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
        }
        for name in ["alarms.json", "alarms.json.bak", "alarms.lock"] {
            let m = mode(env.state + "/" + name)
            #expect(m == 0o660, "\(name) is \(String(m, radix: 8))")
        }
    }

    @Test("alarm list on an empty alarms.json with a good backup says so and lists the backup's alarms")
    func listEmptyWithBackup() throws {
        let env = try Env()
        #expect(try env.run("add", "--id", "first", "07:00").status == 0)
        #expect(try env.run("add", "--id", "second", "08:00").status == 0)
        #expect(truncate(env.state + "/alarms.json", 0) == 0)
        let list = try env.run("list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("first"), "\(list.stdout)")
        #expect(list.stderr.contains("is empty") && list.stderr.contains("alarms.json.bak"), "\(list.stderr)")
        let check = try env.run("check")
        #expect(check.stdout.contains("store") && check.stdout.contains("is empty"), "\(check.stdout)")
        // The next change starts from the backup and leaves it as it was.
        let backup = try Data(contentsOf: URL(fileURLWithPath: env.state + "/alarms.json.bak"))
        #expect(try env.run("add", "--id", "third", "09:00").status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: env.state + "/alarms.json.bak")) == backup)
        let after = try env.run("list")
        #expect(after.stdout.contains("first") && after.stdout.contains("third") && !after.stderr.contains("empty"))
    }

    @Test("alarm list on a FIFO alarms.json exits non-zero within seconds, saying what it is")
    func listOnAFIFO() throws {
        let env = try Env()
        try FileManager.default.createDirectory(atPath: env.state, withIntermediateDirectories: true)
        #expect(mkfifo(env.state + "/alarms.json", 0o660) == 0)
        let start = Date()
        let r = try env.run("list", timeout: 10)
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(r.status != 0)
        #expect(r.stderr.contains("FIFO, not a regular file"), "\(r.stderr)")
    }

    @Test("alarmd started on an empty alarms.json with a good backup rings the backup's next alarm")
    func daemonRingsTheBackup() throws {
        let h = try AlarmdHarness(name: "alarm-state42", config: "", audio: .device("null"))
        defer { h.shutdown() }
        #expect(try h.cli("add", "--id", "kept", "Mon..Sun 06:30").status == 0)
        #expect(try h.cli("add", "--id", "newer", "Mon..Sun 07:30").status == 0)
        #expect(truncate(h.stateDir + "/alarms.json", 0) == 0)
        try h.start()
        #expect(h.wait(10) { (h.status()?["next"] as? [String: Any])?["id"] as? String == "kept" }, "\(h.log)")
        #expect(h.log.contains("is empty"), "\(h.log)")
    }
}

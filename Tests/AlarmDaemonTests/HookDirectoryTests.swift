import AlarmCore
import AlarmTestSupport
import Foundation
import Testing

@testable import AlarmHooks

/// Issue #13: which files of hooks.d run, and what they find in their environment.
@Suite("HookDirectory (issue #13)")
struct HookDirectoryTests {
    @Test(
        "executables run in the order of their names; hidden, backup, package-manager and non-executable files do not")
    func listing() throws {
        let dir = try stateDirectory()
        for (name, mode) in [
            ("20-mqtt.py", 0o755), ("10-lights", 0o755), (".hidden", 0o755), ("30-old~", 0o755),
            ("40-x.dpkg-old", 0o755),
            ("50-notes.txt", 0o644), ("60-x.disabled", 0o755),
        ] {
            try "#!/bin/sh\n".write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            chmod(dir + "/" + name, mode_t(mode))
        }
        try FileManager.default.createDirectory(atPath: dir + "/70-dir", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/05-link", withDestinationPath: dir + "/10-lights")
        let (run, skipped) = HookDirectory(path: dir).hooks()
        #expect(run == [dir + "/05-link", dir + "/10-lights", dir + "/20-mqtt.py"])
        #expect(Set(skipped) == [dir + "/50-notes.txt", dir + "/70-dir"])
        #expect(HookDirectory(path: dir + "/missing").hooks().run.isEmpty)
    }

    @Test("the environment: the runner's own, the event's ALARM_* (empty where they do not apply), a PATH")
    func environment() throws {
        let e = AlarmEvent(
            "ringing", at: Date(timeIntervalSince1970: 1_800_000_000.5), alarm: "wake", label: "Work",
            scheduled: Date(timeIntervalSince1970: 1_800_000_000),
            sound: "birds.wav", timeZone: Zone(secondsFromGMT: 3600))
        let env = HookDirectory.environment(
            for: e, seq: 12,
            base: ["HOME": "/var/lib/alarm", "ALARM_ID": "stale", "NOTIFY_SOCKET": "/run/systemd/notify"],
            runtimeDir: "/run/alarm")
        #expect(env["HOME"] == "/var/lib/alarm")
        #expect(env["NOTIFY_SOCKET"] == nil, "systemd's socket is the runner's, not the hook's")
        #expect(env["PATH"] != nil)
        #expect(env["ALARM_EVENT"] == "ringing")
        #expect(env["ALARM_ID"] == "wake")
        #expect(env["ALARM_LABEL"] == "Work")
        #expect(env["ALARM_SCHEDULED"] == "2027-01-15T09:00:00.000+01:00")
        #expect(env["ALARM_AT"] == "2027-01-15T09:00:00.500+01:00")
        #expect(env["ALARM_SOUND"] == "birds.wav")
        #expect(env["ALARM_SEQ"] == "12")
        #expect(env["ALARM_RUNTIME_DIR"] == "/run/alarm")
        let clock = HookDirectory.environment(
            for: AlarmEvent("clock-changed", at: Date(), timeZone: .utc), seq: 13, base: ["PATH": "/bin"],
            runtimeDir: "/r")
        #expect(clock["ALARM_ID"] == "" && clock["ALARM_LABEL"] == "" && clock["ALARM_SCHEDULED"] == "")
        #expect(clock["PATH"] == "/bin")
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// `alarm config` as a user runs it (issue #41): the built binary, a config file and drop-ins in
/// a temporary directory.
@Suite("alarm config: every setting, its value and its source (the built binary)")
struct ConfigCommandTests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-config-" + UUID().uuidString
        var conf: String { root + "/alarm.conf" }
        init() throws {
            try FileManager.default.createDirectory(atPath: conf + ".d", withIntermediateDirectories: true)
        }
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: name == "" ? conf : conf + ".d/" + name, atomically: true, encoding: .utf8)
        }
        func run(_ args: [String], environment: [String: String] = [:]) throws -> Binaries.Result {
            try Binaries.run(
                "alarm", ["config", "--config", conf] + args, environment: environment,
                removing: [
                    "ALARM_DEVICE", "ALARM_STATE_DIR", "ALARM_RUNTIME_DIR", "ALARM_SOUNDS_DIR", "ALARM_LOCALTIME",
                    "ALARM_HOOKS_DIR", "ALARM_CONFIG",
                ].filter { environment[$0] == nil })
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("lists every setting: value and default, FILE:LINE of the file or drop-in that won, environment")
    func lists() throws {
        let e = try Env()
        try e.write("", "# the packaged file\nsnooze = 5m\nvolume = 60\n")
        try e.write("50-button.conf", "button_hold = 3s\nsnooze = 7m\n")
        try e.write("60-usb.conf", "\ndevice = plughw:CARD=Device,DEV=0\n")
        let r = try e.run([], environment: ["ALARM_RUNTIME_DIR": "/tmp/alarm-config-run"])
        #expect(r.status == 0, "\(r.stderr)")
        var lines: [String: (value: String, source: String)] = [:]
        for line in r.stdout.split(separator: "\n") {
            let (left, source) = try #require(
                line.range(of: "  # ").map { (line[..<$0.lowerBound], String(line[$0.upperBound...])) }, "\(line)")
            let kv = left.split(separator: "=", maxSplits: 1)
            lines[kv[0].trimmingCharacters(in: .whitespaces)] = (
                kv.count > 1 ? kv[1].trimmingCharacters(in: .whitespaces) : "", source
            )
        }
        #expect(lines["snooze"]?.value == "7m")
        #expect(lines["snooze"]?.source == e.conf + ".d/50-button.conf:2")
        #expect(lines["volume"]?.value == "60")
        #expect(lines["volume"]?.source == e.conf + ":3")
        #expect(lines["button_hold"]?.value == "3s")
        #expect(lines["device"]?.value == "plughw:CARD=Device,DEV=0")
        #expect(lines["device"]?.source == e.conf + ".d/60-usb.conf:2")
        #expect(lines["ring"]?.value == "10m")
        #expect(lines["ring"]?.source == "default")
        #expect(lines["runtime_dir"]?.value == "/tmp/alarm-config-run")
        #expect(lines["runtime_dir"]?.source == "environment ALARM_RUNTIME_DIR")
        #expect(lines["mixer_control"]?.value == "")
        #expect(lines["mixer_control"]?.source.hasPrefix("default (unset: ") == true)
        #expect(lines.count >= 30, "\(lines.keys.sorted())")

        let j = try e.run(["--json"])
        #expect(j.status == 0, "\(j.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let snooze = try #require(object["snooze"] as? [String: Any])
        #expect(snooze["value"] as? String == "7m")
        #expect(snooze["source"] as? String == e.conf + ".d/50-button.conf:2")
        #expect((object["mixer_control"] as? [String: Any])?["value"] is NSNull)
        #expect(object.count == lines.count)
    }

    @Test("refuses an unknown key or a bad value in any file, naming each file and line")
    func refuses() throws {
        let e = try Env()
        try e.write("", "snooze = 5m\n")
        try e.write("50-typo.conf", "# a comment\nbuton_hold = 3s\n")
        try e.write("70-bad.conf", "volume = loud\n")
        let r = try e.run([])
        #expect(r.status != 0)
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        #expect(
            r.stderr.contains("config file \(e.conf).d/50-typo.conf, line 2: unknown setting 'buton_hold'"),
            "\(r.stderr)")
        #expect(r.stderr.contains("config file \(e.conf).d/70-bad.conf, line 1: volume"), "\(r.stderr)")
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// alsa-lib's own error lines go through the program's rate-limited log, not raw onto stderr
/// (issue #41): `alarm play` on a PCM whose card does not exist, with alsa-lib's real plugins,
/// falls back to a recorder (alsa-lib's `file` plugin) and says why in its own words.
@Suite("alsa-lib's error lines: alarm's, rate-limited, never alsa-lib's own printing")
struct AlsaLogTests {
    @Test("alarm play on a missing card: 'alarm: alsa-lib:' lines, none of alsa-lib's 'ALSA lib' lines")
    func playOnMissingCard() throws {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-alsalog-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let conf = """
            pcm.!default { type file slave { pcm { type null } } file "\(root)/played.wav" format "wav" }

            """
        try conf.write(toFile: root + "/test.conf", atomically: true, encoding: .utf8)
        let environment = [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + root + "/test.conf", "ALARM_CONFIG": "/dev/null",
            "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run",
        ]
        let r = try Binaries.run(
            "alarm", ["play", "--default", "--device", "hw:CARD=nonexistent"], environment: environment)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!lines.contains { $0.hasPrefix("ALSA lib") }, "alsa-lib printed on stderr:\n\(r.stderr)")
        let ours = lines.filter { $0.hasPrefix("alarm: alsa-lib: ") }
        #expect(ours.contains { $0.contains("nonexistent") }, "no 'alarm: alsa-lib:' line:\n\(r.stderr)")
        #expect(Set(ours).count == ours.count, "a line repeated:\n\(r.stderr)")
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// `alarm devices` (issue #11) through real alsa-lib: PCMs defined in a test configuration
/// (`ALSA_CONFIG_PATH`: the system's alsa.conf plus ours), one that records what is played
/// into a file (alsa-lib's `file` plugin), one whose card does not exist.
@Suite("alarm devices: cards, PCMs, the device in use, whether each opens")
struct DevicesTests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-devices-" + UUID().uuidString
        var recording: String { root + "/played.wav" }
        var environment: [String: String] {
            [
                "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + root + "/test.conf", "ALARM_CONFIG": "/dev/null",
                "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_DEVICE": "rec",
            ]
        }
        init() throws {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let conf = """
                pcm.rec { type file slave { pcm { type null } } file "\(recording)" format "wav" hint { description "Test recorder" } }
                pcm.broken { type hw card 7 hint { description "A card that is not there" } }

                """
            try conf.write(toFile: root + "/test.conf", atomically: true, encoding: .utf8)
        }
        func run(_ args: String..., device: String? = nil) throws -> Binaries.Result {
            var env = environment
            if let device { env["ALARM_DEVICE"] = device }
            return try Binaries.run("alarm", args, environment: env)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    func json(_ r: Binaries.Result) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
            "not JSON: \(r.stdout) \(r.stderr)")
    }

    func pcm(_ object: [String: Any], _ name: String) -> [String: Any]? {
        (object["pcms"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    @Test("--json: the keys, the configured device in use and opening, the listed PCMs with descriptions")
    func jsonListing() throws {
        let e = try Env()
        let r = try e.run("devices", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let o = try json(r)
        #expect(
            o.keys.sorted() == [
                "button", "button_device", "cards", "chain", "configured", "current", "inaccessible", "inputs", "mixer",
                "passed_over", "pcms",
            ])
        #expect(o["inaccessible"] is [Any])
        #expect(o["configured"] as? String == "rec")
        #expect(o["current"] as? String == "rec")
        let chain = try #require(o["chain"] as? [[String: Any]])
        #expect(chain.first?["name"] as? String == "rec" && chain.first?["opens"] as? Bool == true)
        #expect(chain.map { $0["name"] as? String }.contains("default"), "the fallback follows the configured device")
        // A file has no card and no control device: no mixer to report.
        #expect(o["mixer"] is NSNull)
        for card in try #require(o["cards"] as? [[String: Any]]) {
            #expect(card.keys.sorted() == ["card", "description", "id", "name"])
        }
        let rec = try #require(pcm(o, "rec"), "rec is not listed: \(r.stdout)")
        #expect(rec.keys.sorted() == ["card_id", "description", "error", "name", "opens"])
        #expect(rec["description"] as? String == "Test recorder")
        #expect(rec["opens"] as? Bool == true && rec["error"] is NSNull && rec["card_id"] is NSNull)
        let broken = try #require(pcm(o, "broken"))
        #expect(broken["opens"] as? Bool == false)
        #expect((broken["error"] as? String)?.isEmpty == false)
        let null = try #require(pcm(o, "null"), "alsa.conf's null PCM is listed")
        #expect(null["opens"] as? Bool == true)
        // Opening is not playing: the recorder got no frame.
        let size = (try? FileManager.default.attributesOfItem(atPath: e.recording)[.size] as? Int) ?? 0
        #expect(size <= 44, "the probe wrote \(size) bytes into the recording")
    }

    @Test("a device named by a card that is not there: its card id, does not open, the chain goes on")
    func missingCard() throws {
        let e = try Env()
        let o = try json(try e.run("devices", "--json", device: "plughw:CARD=Headphones,DEV=0"))
        #expect(o["configured"] as? String == "plughw:CARD=Headphones,DEV=0")
        #expect(o["current"] as? String != "plughw:CARD=Headphones,DEV=0")
        let first = try #require((o["chain"] as? [[String: Any]])?.first)
        #expect(first["card_id"] as? String == "Headphones")
        #expect(first["opens"] as? Bool == false)
        #expect((first["error"] as? String)?.isEmpty == false)
    }

    @Test("the table says which device is used and lists each PCM with whether it opens")
    func table() throws {
        let e = try Env()
        let r = try e.run("devices")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.first == "device alarm uses now: rec (opens)", "\(r.stdout)")
        #expect(r.lines.contains { $0.hasPrefix("PCM ") && $0.contains("OPENS") && $0.contains("DESCRIPTION") })
        let row = r.lines.first { $0.hasPrefix("rec ") }?.split(separator: " ", omittingEmptySubsequences: true).map(
            String.init)
        #expect(row == ["rec", "yes", "Test", "recorder"], "\(r.stdout)")
        let brokenRow = r.lines.first { $0.hasPrefix("broken ") }
        #expect(brokenRow?.contains(" no ") == true, "\(r.stdout)")
        #expect(!r.stderr.contains("ALSA lib"), "alsa-lib's own error lines are kept off the listing: \(r.stderr)")
    }

    @Test(
        "the plugins' own noise stays off: JACK's client library, tried through alsa-lib's jack PCM with no JACK server, prints nothing"
    )
    func noJackNoise() throws {
        // libasound2-plugins' jack PCM (scripts/deps --test installs it): alsa-lib loads libjack,
        // which prints "jack server is not running or cannot be started" and more on stderr.
        try #require(
            FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf.d/50-jack.conf"),
            "libasound2-plugins is not installed: nothing here would try JACK")
        let e = try Env()
        for args in [["devices"], ["devices", "--json"]] {
            let r = try Binaries.run("alarm", args, environment: e.environment)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty, "alarm \(args.joined(separator: " ")) printed the libraries' noise: \(r.stderr)")
            if args.contains("--json") {
                let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
                let jack = (o["pcms"] as? [[String: Any]])?.first { $0["name"] as? String == "jack" }
                #expect(jack?["opens"] as? Bool == false, "the jack PCM was tried and does not open: \(jack ?? [:])")
                #expect((jack?["error"] as? String)?.isEmpty == false, "its reason is in the listing: \(jack ?? [:])")
            }
        }
    }
}

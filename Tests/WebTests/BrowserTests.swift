import AlarmTestSupport
import Foundation
import Testing

/// The page in Debian's headless Chromium, against a real alarmd playing into a PulseAudio null
/// sink: sign in, add 'Mon..Fri 06:30' and see its next ring listed, ring now and press stop, and
/// the sink goes silent. The screenshots of each step are left in .build/web-screenshots/.
@Suite(.serialized) struct BrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var screenshots: String { packageRoot.path + "/.build/web-screenshots" }

    @Test func signInAddRingAndStopFromThePhonesPage() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            Issue.record("Debian's chromium is not installed (/usr/bin/chromium): run scripts/deps")
            return
        }
        guard (try? Binaries.runAbsolute("/usr/bin/python3", ["-c", "import websocket"]))?.status == 0 else {
            Issue.record("python3-websocket is not installed for /usr/bin/python3: run scripts/deps")
            return
        }
        let h = try WebHarness(withDaemon: true)
        defer { h.shutdown() }
        try? FileManager.default.removeItem(atPath: Self.screenshots)
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        let script = Self.packageRoot.path + "/Tests/WebTests/Browser/drive_page.py"
        let run = try Binaries.runAbsolute(
            "/usr/bin/python3", [script, "http://127.0.0.1:\(h.port)/", h.token, Self.screenshots], timeout: 180)
        let finishedAt = Date()
        let samples = try #require(h.recorder).samples
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            "drive_page.py: \(run.stdout) \(run.stderr)")
        #expect(result["ok"] as? Bool == true, "\(result["error"] ?? "") (screenshots in \(Self.screenshots))")
        guard result["ok"] as? Bool == true else { return }

        #expect((result["unlabelled"] as? [String]) == [], "controls without a label: \(result["unlabelled"] ?? "")")
        #expect((result["wrong_token_message"] as? String)?.contains("wrong token") == true)
        // The session cookie is HttpOnly: the page's script cannot read it.
        #expect(result["cookie_visible_to_script"] as? String == "")
        #expect((result["preview"] as? [String])?.count == 5)
        #expect(
            (result["preview"] as? [String])?.allSatisfy {
                $0.hasSuffix(" 06:30") && !$0.hasPrefix("Sat") && !$0.hasPrefix("Sun")
            } == true)
        let listed = try #require(result["listed"] as? String)
        #expect(listed.contains("Mon..Fri *-*-* 06:30:00"))
        // The next ring listed is the one the CLI computes.
        let cli =
            try JSONSerialization.jsonObject(with: Data(h.cli("list", "--json").stdout.utf8)) as? [[String: Any]] ?? []
        let next = try #require(cli.first?["next"] as? String)
        let time = String(next.dropFirst(11).prefix(5))
        #expect(time == "06:30")
        #expect(listed.contains("next: ") && listed.contains(time), "\(listed) vs \(next)")
        #expect((result["next"] as? String)?.hasSuffix("06:30") == true)
        // Every other Saturday: the page previewed what alarm preview computes, and the alarm
        // stored has the rule, counted from today.
        let cliEvery =
            try JSONSerialization.jsonObject(
                with: Data(h.cli("preview", "Sat 09:00", "--every", "2w", "--count", "5", "--json").stdout.utf8))
            as? [String] ?? []
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let asShown = cliEvery.map { t -> String in
            let month = Int(t.dropFirst(5).prefix(2)) ?? 1
            let day = Int(t.dropFirst(8).prefix(2)) ?? 0
            return "Sat \(day) \(months[month - 1]) \(t.dropFirst(11).prefix(5))"
        }
        #expect(
            result["every_preview"] as? [String] == asShown,
            "page \(result["every_preview"] ?? "") vs alarm preview \(cliEvery)")
        #expect(asShown.count == 5)
        #expect(
            (result["every_listed"] as? String)?.contains("Sat *-*-* 09:00:00, every 2w from ") == true,
            "\(result["every_listed"] ?? "")")
        let stored =
            (try JSONSerialization.jsonObject(with: Data(h.cli("list", "--json").stdout.utf8)) as? [[String: Any]] ?? [])
            .first { $0["every"] as? String == "2w" }
        #expect(stored?["expression"] as? String == "Sat *-*-* 09:00:00")
        #expect(stored?["from"] != nil)
        #expect((result["scroll_width_at_320"] as? Int ?? 999) <= 320, "the page is wider than 320 px")
        #expect(
            (result["ringing_text"] as? String)?.hasPrefix("Ringing now") == true, "\(result["ringing_text"] ?? "")")
        #expect((result["history"] as? String)?.contains("stopped") == true)
        // Each step left its picture.
        for name in [
            "01-sign-in", "02-signed-in", "03-preview", "04-added", "04b-every-other-week", "05-320px", "06-ringing",
            "07-stopped", "08-history",
        ] {
            #expect(FileManager.default.fileExists(atPath: Self.screenshots + "/\(name).png"), "\(name).png")
        }

        // The sink: sound while it rang, silence after stop. The recording runs in real time, so
        // its tail is the time since the script's clock read `stopped_shown_at`.
        let rate = Double(h.recorder!.rate)
        func index(_ t: Double) -> Int { max(0, samples.count - Int((finishedAt.timeIntervalSince1970 - t) * rate)) }
        let ringShown = try #require(result["ringing_shown_at"] as? Double)
        let stopClicked = try #require(result["stop_clicked_at"] as? Double)
        let stoppedShown = try #require(result["stopped_shown_at"] as? Double)
        let whileRinging = samples[index(ringShown)..<index(stopClicked)]
        #expect(Recording.peak(whileRinging) > 1000, "no sound on the sink while the page showed ringing")
        // 0.5 s after the page showed it stopped, until the end: silence.
        let after = samples[index(stoppedShown + 0.5)...]
        #expect(after.count > Int(rate * 1.5), "too short a recording after stop: \(after.count) samples")
        #expect(Recording.peak(after) < 200, "sound on the sink after stop (peak \(Recording.peak(after)))")
        #expect(h.status()?["state"] as? String == "idle")
        #expect(!h.webLog.contains(h.token))
    }
}

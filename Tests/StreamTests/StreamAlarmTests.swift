import AlarmTestSupport
import Foundation
import Testing

/// Issue #43, the whole chain with real parts: alarmd (its socket client) ← the built
/// alarm-stream (`--listen`) ← a real Icecast fed in real time by ffmpeg (the MP3 mount's 440 Hz
/// sine), heard on a PulseAudio null sink. When the stream fails, the default tone's 880 Hz beeps
/// must take over within `stream_timeout` + 1 s, and no silence as long as `stream_timeout` may
/// come between. `alarm check` on each kind of stream.
@Suite("a stream alarm through alarm-stream and a real Icecast (issue #43)", .serialized)
struct StreamAlarmTests {
    static let timeout = 3.0

    /// alarm-stream on a socket of its own, Icecast (when `mounts` is not empty) and a file server
    /// for playlists and pages; stopped at the end of the test.
    final class Chain {
        let dir: String
        let icecast: StreamHarness.Icecast?
        let files: StreamHarness.FileServer
        let server: StreamHarness.Server

        init(_ name: String, mounts: [StreamHarness.Mount]) throws {
            dir = try StreamHarness.temporaryDirectory(name)
            try FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: true)
            icecast = mounts.isEmpty ? nil : try StreamHarness.Icecast(dir: dir + "/icecast", mounts: mounts)
            files = try StreamHarness.FileServer(dir: dir + "/www", logDir: dir)
            server = try StreamHarness.Server(dir: dir)
        }

        /// A file served at `files.url(name)`.
        func serve(_ name: String, _ text: String) throws -> String {
            try text.write(toFile: dir + "/www/" + name, atomically: true, encoding: .utf8)
            return files.url(name)
        }

        deinit {
            server.stop()
            files.stop()
            icecast?.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    func daemon(_ chain: Chain, extra: String = "") throws -> AlarmdHarness {
        // preflight 0: the pre-flight's own probe stays out of the ring tests; mixer_floor 0: the
        // sink's volume stays as it is.
        let h = try AlarmdHarness(
            name: "alarm-stream-alarm",
            config: "mixer_floor = 0\npreflight = 0\nring = 60s\nstream_timeout = 3s\n"
                + "stream_socket = \(chain.server.socket)\n" + extra,
            audio: .pulseSink("alarmstream"))
        try h.start()
        return h
    }

    /// Rings `url` and returns the recording's index where sound began.
    func ring(_ h: AlarmdHarness, _ url: String) throws -> Int {
        let mark = h.recorder.count
        let added = try h.cli("add", "--in", "2s", "--id", "radio", "--sound", url)
        #expect(added.status == 0, "\(added.stderr)")
        return try #require(
            h.recorder.waitForSound(threshold: 1000, from: mark, timeout: 25), "nothing heard: \(h.log)")
    }

    /// Waits until the stream has played `seconds` from `onset` and says what dominated its second half.
    func heard(_ h: AlarmdHarness, from onset: Int, seconds: Double = 3, among: [Double] = [440, 880]) -> Double? {
        let end = onset + Int(seconds * Double(h.rate))
        guard h.wait(15, { h.recorder.count >= end }) else { return nil }
        return Recording.dominant(
            h.recorder.samples[(onset + (end - onset) / 2)..<end], among: among, rate: h.rate)
    }

    @Test(
        "the config's sound a stream URL: an alarm added without --sound rings it (Vorbis, 660 Hz); alarm ring --sound URL rings that stream (MP3, 440 Hz)"
    )
    func configSoundAndRingNow() throws {
        let chain = try Chain("ring-default", mounts: [.mp3, .vorbis])
        let vorbis = chain.icecast!.url(.vorbis)
        let mp3 = chain.icecast!.url(.mp3)
        let h = try daemon(chain, extra: "sound = \(vorbis)\n")
        defer { h.shutdown() }
        let mark = h.recorder.count
        let added = try h.cli("add", "--in", "2s", "--id", "radio")
        #expect(added.status == 0, "\(added.stderr)")
        let onset = try #require(
            h.recorder.waitForSound(threshold: 1000, from: mark, timeout: 25), "nothing heard: \(h.log)")
        #expect(heard(h, from: onset, among: [440, 660, 880]) == 660, "\(h.log)")
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { h.history().contains { $0.string("alarm") == "radio" } }, "\(h.log)")
        let entry = try #require(h.history().last { $0.string("alarm") == "radio" })
        #expect(entry.string("sound") == vorbis, "\(entry)")
        #expect(entry["reason"] == nil || entry["reason"] is NSNull, "\(entry)")
        #expect(h.wait(10) { h.status()?["state"] as? String != "ringing" })

        // Ring now, with a stream of its own.
        let now = h.recorder.count
        let rang = try h.cli("ring", "--sound", mp3)
        #expect(rang.status == 0, "\(rang.stderr)")
        let again = try #require(
            h.recorder.waitForSound(threshold: 1000, from: now, timeout: 25), "nothing heard: \(h.log)")
        #expect(heard(h, from: again, among: [440, 660, 880]) == 440, "\(h.log)")
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { h.history().last?.string("sound") == mp3 }, "\(h.history())")
    }

    @Test("the MP3 stream rings at 440 Hz; Icecast killed mid-ring: the default tone within stream_timeout + 1 s")
    func ringsThenServerKilled() throws {
        let chain = try Chain("ring-killed", mounts: [.mp3])
        let url = chain.icecast!.url(.mp3)
        let h = try daemon(chain)
        defer { h.shutdown() }
        let onset = try ring(h, url)
        #expect(heard(h, from: onset) == 440, "\(h.log)")
        chain.icecast!.stop()
        let killedAt = h.recorder.count
        var w: [String] = []
        var fallback: Int?
        #expect(
            h.wait(20) {
                w = Recording.windows(h.recorder.samples, from: killedAt, rate: h.rate, among: [440, 880])
                fallback = w.firstIndex(of: "880")
                return fallback != nil
            }, "no fallback after Icecast was killed: \(h.log)")
        let first880 = try #require(fallback)
        let last440 = w[..<first880].lastIndex(of: "440") ?? 0
        let quiet = Recording.longestQuiet(w, last440, first880)
        let gap = Double(first880 - last440) * 0.02
        #expect(gap < Self.timeout + 1, "the default tone came \(gap) s after the stream's last sound")
        #expect(quiet < Self.timeout, "\(quiet) s of silence before the fallback")
        #expect(h.wait(10) { (h.status()?["reason"] as? String)?.hasPrefix("stream \(url): ") == true })
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { !h.history().isEmpty })
        let entry = try #require(h.history().last)
        #expect((entry["reason"] as? String)?.hasPrefix("stream \(url): ") == true, "\(entry)")
        #expect(entry["sound"] as? String == "default", "\(entry)")
    }

    @Test(
        "no server at the URL when the alarm rings: the fallback within stream_timeout + 1 s, the reason names the URL")
    func serverDownAtRing() throws {
        let chain = try Chain("ring-down", mounts: [])
        let url = "http://127.0.0.1:\(try StreamHarness.freePort())/live.mp3"
        let h = try daemon(chain)
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "2s", "--id", "radio", "--sound", url).status == 0)
        #expect(h.wait(15) { h.status()?["state"] as? String == "ringing" }, "\(h.log)")
        let mark = h.recorder.count
        let onset = try #require(
            h.recorder.waitForSound(threshold: 1000, from: mark, timeout: Self.timeout + 1), "no fallback: \(h.log)")
        #expect(Double(onset - mark) / Double(h.rate) < Self.timeout + 1)
        #expect(heard(h, from: onset, seconds: 2) == 880)
        #expect(
            h.wait(10) { (h.status()?["reason"] as? String)?.hasPrefix("stream \(url): ") == true },
            "\(h.status() ?? [:])")
        #expect(try h.cli("stop").status == 0)
    }

    @Test("a .m3u playlist URL rings its stream; an HTML page rings the fallback, naming the URL")
    func playlistAndUndecodable() throws {
        let chain = try Chain("ring-playlist", mounts: [.mp3])
        let playlist = try chain.serve("radio.m3u", "#EXTM3U\n#EXTINF:-1,test\n\(chain.icecast!.url(.mp3))\n")
        let page = try chain.serve(
            "page.html", "<html><body>" + String(repeating: "not a stream ", count: 400) + "</body></html>\n")
        let h = try daemon(chain)
        defer { h.shutdown() }
        let onset = try ring(h, playlist)
        #expect(heard(h, from: onset) == 440, "\(h.log)")
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { h.status()?["state"] as? String != "ringing" })

        let again = try ring(h, page)
        #expect(heard(h, from: again, seconds: 2) == 880, "\(h.log)")
        #expect(
            h.wait(10) { (h.status()?["reason"] as? String)?.hasPrefix("stream \(page): ") == true },
            "\(h.status() ?? [:])")
        #expect(try h.cli("stop").status == 0)
    }

    @Test(
        "alarm check: a live stream plays; a playlist plays; a server that is down and an HTML page are warnings naming the URL"
    )
    func check() throws {
        let chain = try Chain("check", mounts: [.mp3])
        let live = chain.icecast!.url(.mp3)
        let playlist = try chain.serve("radio.pls", "[playlist]\nNumberOfEntries=1\nFile1=\(live)\nVersion=2\n")
        let page = try chain.serve(
            "page.html", "<html><body>" + String(repeating: "no audio here ", count: 400) + "</body></html>\n")
        let down = "http://127.0.0.1:\(try StreamHarness.freePort())/live.mp3"
        let h = try AlarmdHarness(
            name: "alarm-stream-check",
            config: "preflight = 0\nstream_timeout = 3s\nstream_socket = \(chain.server.socket)\n",
            audio: .device("null"))
        defer { h.shutdown() }
        try h.start()
        func soundCheck(_ url: String) throws -> [String: Any] {
            #expect(try h.cli("add", "--in", "1h", "--id", "radio", "--sound", url).status == 0)
            let r = try h.cli("check", "--json")
            let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
            let list = (json as? [String: Any])?["checks"] as? [[String: Any]] ?? []
            return try #require(list.first { $0["name"] as? String == "sound" }, "\(r.stdout) \(r.stderr)")
        }
        for url in [live, playlist] {
            let sound = try soundCheck(url)
            #expect(sound["status"] as? String == "ok", "\(url): \(sound)")
            #expect((sound["message"] as? String)?.contains("plays (mp3, 48000 Hz, 2 ch") == true, "\(url): \(sound)")
        }
        for url in [down, page] {
            let sound = try soundCheck(url)
            #expect(sound["status"] as? String == "warning", "\(url): \(sound)")
            #expect((sound["message"] as? String)?.hasPrefix("stream \(url): ") == true, "\(url): \(sound)")
        }
        // The exit status of a check whose sound is a warning.
        #expect(try h.cli("check").status != 0)
    }
}

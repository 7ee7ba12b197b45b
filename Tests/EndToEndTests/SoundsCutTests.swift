import AlarmTestSupport
import Foundation
import Testing

/// `alarm sounds cut` as a person runs it (issue #24): the built `alarm`, a temporary sound
/// directory, a 3-minute MP3 made by ffmpeg; then alarmd rings the clip.
@Suite("alarm sounds cut (the built binary)", .serialized)
struct SoundsCutTests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-cut-" + UUID().uuidString
        var sounds: String { root + "/sounds" }
        var song: String { root + "/music/song.mp3" }
        var environment: [String: String] {
            [
                "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null",
                "ALARM_SOUNDS_DIR": sounds, "TZ": "Europe/Berlin",
            ]
        }
        /// 440 Hz to 1:10, 660 Hz to 1:20, 550 Hz to 1:30, then 880 Hz: 3 minutes.
        init() throws {
            try FileManager.default.createDirectory(atPath: root + "/music", withIntermediateDirectories: true)
            // Commas escaped: unescaped, ffmpeg's filter graph parser takes them for filter separators.
            let tones = "0.5*sin(2*PI*if(lt(t\\,70)\\,440\\,if(lt(t\\,80)\\,660\\,if(lt(t\\,90)\\,550\\,880)))*t)"
            try sh(
                "ffmpeg -nostdin -v error -f lavfi -i 'aevalsrc=\(tones):d=180:s=44100' -c:a libmp3lame -b:a 128k '\(song)'"
            )
        }
        func run(_ args: [String], prefix: String = "") throws -> Binaries.Result {
            if prefix.isEmpty { return try Binaries.run("alarm", args, environment: environment, timeout: 120) }
            let quoted = ([Binaries.path("alarm")] + args).map { "'\($0)'" }.joined(separator: " ")
            return try Binaries.runAbsolute(
                "/bin/bash", ["-c", prefix + " exec " + quoted], environment: environment, timeout: 120)
        }
        func cut(_ args: String..., prefix: String = "") throws -> Binaries.Result {
            try run(["sounds", "cut"] + args, prefix: prefix)
        }
        func listed() throws -> [[String: Any]] {
            let r = try run(["sounds", "--json"])
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
        }
        func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: sounds)) ?? []).sorted() }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func sh(_ script: String) throws {
        let r = try Binaries.runAbsolute("/bin/bash", ["-c", "set -euo pipefail; " + script], timeout: 300)
        guard r.status == 0 else { throw PulseNullSink.Failed(description: "\(script): \(r.stderr)") }
    }

    @Test("a 3-minute MP3 cut at 1:10 for 20 s: a 20 s FLAC clip in the sound directory, listed as playable")
    func cutsAndLists() throws {
        let e = try Env()
        let r = try e.cut(e.song, "--from", "1:10", "--length", "20s")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("cut song-1m10s.flac: 20.00 s from 1:10.00 to 1:30.00 of "), "\(r.stdout)")
        #expect(e.files() == ["song-1m10s.flac"])
        let entry = try #require(try e.listed().first { $0["name"] as? String == "song-1m10s.flac" })
        #expect(entry["playable"] as? Bool == true, "\(entry)")
        #expect(entry["container"] as? String == "FLAC" && entry["format"] as? String == "FLAC 16-bit")
        #expect(abs((entry["duration"] as? Double ?? 0) - 20) < 0.001, "\(entry)")
        // The other forms of TIME, a name, the default length (30 s), and CAF.
        let named = try e.cut(e.song, "--from", "70", "--name", "chorus")
        #expect(
            named.status == 0 && named.stdout.hasPrefix("cut chorus.flac: 30.00 s from 1:10.00 to 1:40.00"),
            "\(named.stdout)\(named.stderr)")
        let caf = try e.cut(e.song, "--from", "0:01:20", "--length", "5s", "--name", "bridge.caf")
        #expect(caf.status == 0, "\(caf.stderr)")
        let listed = try e.listed()
        #expect(listed.first { $0["name"] as? String == "bridge.caf" }?["container"] as? String == "CAF")
        #expect(listed.allSatisfy { $0["playable"] as? Bool == true }, "\(listed)")
        // And the long file itself is refused by the 30-second rule, with its true length.
        try FileManager.default.copyItem(atPath: e.song, toPath: e.sounds + "/song.mp3")
        let song = try #require(try e.listed().first { $0["name"] as? String == "song.mp3" })
        #expect(song["playable"] as? Bool == false && song["kind"] as? String == "too-long", "\(song)")
        #expect(abs((song["duration"] as? Double ?? 0) - 180) < 0.03, "\(song)")
    }

    @Test("issue #42: a clip cut under umask 077 is 0644, so alarmd (another user) can play it")
    func cutUnderStrictUmask() throws {
        let e = try Env()
        let r = try e.cut(e.song, "--from", "1:10", "--length", "2s", "--name", "strict", prefix: "umask 077;")
        #expect(r.status == 0, "\(r.stderr)")
        var st = stat()
        #expect(lstat(e.sounds + "/strict.flac", &st) == 0)
        #expect(UInt32(st.st_mode) & 0o7777 == 0o644, "mode \(String(UInt32(st.st_mode) & 0o7777, radix: 8))")
        // Replaced with --force under the same umask: still 0644.
        let again = try e.cut(
            e.song, "--from", "1:20", "--length", "2s", "--name", "strict", "--force", prefix: "umask 077;")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(lstat(e.sounds + "/strict.flac", &st) == 0 && UInt32(st.st_mode) & 0o7777 == 0o644)
    }

    @Test("refusals: each with a clear reason, a non-zero exit, and nothing written")
    func refusals() throws {
        let e = try Env()
        let cases: [([String], String)] = [
            ([e.root + "/music/none.mp3", "--from", "0:10"], "no such file"),
            ([e.song, "--from", "3:00"], "is at or past the end of the file (180"),
            ([e.song, "--from", "9:00", "--length", "5s"], "is at or past the end"),
            ([e.song, "--from", "1:10", "--length", "31s"], "at most 30 s long"),
            ([e.song, "--from", "1:75"], "invalid position '1:75'"),
            ([e.song, "--from", "soon"], "invalid position"),
            ([e.song, "--from", "1:10", "--length", "20"], "a number needs a unit"),
            ([e.song, "--from", "1:10", "--name", "a/b"], "it contains '/'"),
            ([e.song, "--from", "1:10", "--name", "chorus.wav"], "end the name in .flac or .caf"),
        ]
        for (args, words) in cases {
            let r = try e.run(["sounds", "cut"] + args)
            #expect(r.status != 0, "\(args): exit 0")
            #expect(r.stderr.contains(words), "\(args): \(r.stderr)")
        }
        try "not a sound".write(toFile: e.root + "/music/notes.mp3", atomically: true, encoding: .utf8)
        let notes = try e.cut(e.root + "/music/notes.mp3", "--from", "0")
        #expect(
            notes.status != 0 && notes.stderr.contains("not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file"),
            "\(notes.stderr)")
        #expect(e.files().isEmpty, "written: \(e.files())")

        // A name that exists: refused, then replaced with --force.
        #expect(try e.cut(e.song, "--from", "1:10", "--length", "2s", "--name", "x").status == 0)
        let before = FileManager.default.contents(atPath: e.sounds + "/x.flac")
        let again = try e.cut(e.song, "--from", "1:30", "--length", "3s", "--name", "x")
        #expect(
            again.status != 0 && again.stderr.contains("exists; give another --name, or --force"), "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: e.sounds + "/x.flac") == before)
        let forced = try e.cut(e.song, "--from", "1:30", "--length", "3s", "--name", "x", "--force")
        #expect(forced.status == 0 && forced.stdout.contains("3.00 s"), "\(forced.stderr)")
        #expect(FileManager.default.contents(atPath: e.sounds + "/x.flac") != before)
    }

    @Test("a write that fails (a file-size limit, as a full disk fails it): a clear error and nothing half-written")
    func fullDisk() throws {
        let e = try Env()
        try FileManager.default.createDirectory(atPath: e.sounds, withIntermediateDirectories: true)
        // SIGXFSZ ignored, so write(2) returns EFBIG at the limit, as it returns ENOSPC on a full disk.
        let r = try e.cut(e.song, "--from", "1:10", "--length", "20s", prefix: "trap '' XFSZ; ulimit -f 64;")
        #expect(r.status != 0, "exit 0 past a 64 KiB file-size limit")
        #expect(r.stderr.contains("cannot write") && r.stderr.contains("nothing was written"), "\(r.stderr)")
        #expect(e.files().isEmpty, "left behind: \(e.files())")
        // A real full file system, where this machine lets a test mount one.
        let mount = try Binaries.runAbsolute(
            "/usr/bin/unshare",
            [
                "-m", "/bin/bash", "-c",
                "mount -t tmpfs -o size=128k tmpfs '\(e.sounds)' && echo mounted && "
                    + ([Binaries.path("alarm"), "sounds", "cut", e.song, "--from", "1:10", "--length", "20s"].map {
                        "'\($0)'"
                    }.joined(separator: " ")) + "; echo \"exit $?\"; ls -A '\(e.sounds)'",
            ], environment: e.environment, timeout: 120)
        if mount.stdout.hasPrefix("mounted") {
            #expect(mount.stdout.contains("exit 1"), "\(mount.stdout)")
            #expect(
                mount.stderr.contains("No space left on device") && mount.stderr.contains("nothing was written"),
                "\(mount.stderr)")
            #expect(mount.stdout.split(separator: "\n").count == 2, "left on the full file system: \(mount.stdout)")
        } else {
            print(
                "SoundsCutTests.fullDisk: no tmpfs here (\(mount.stderr.prefix(200))); the file-size limit above stood for it"
            )
        }
    }

    @Test("alarmd rings the cut clip: the 20 s from 1:10, 660 Hz then 550 Hz")
    func rings() throws {
        let e = try Env()
        #expect(try e.cut(e.song, "--from", "1:10", "--length", "20s", "--name", "chorus").status == 0)
        let h = try DaemonHarness(config: "ring = 40s\n")
        defer { h.shutdown() }
        try FileManager.default.copyItem(atPath: e.sounds + "/chorus.flac", toPath: h.soundsDir + "/chorus.flac")
        try h.start()
        #expect(try h.cli("add", "--in", "2s", "--id", "song", "--sound", "chorus.flac").status == 0)
        let onset = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(
            h.wait(30) { h.recorder.count >= onset + 16 * h.rate }, "the recording stopped: \(h.recordingDiagnosis)")
        let s = h.recorder.samples
        let tone = { (at: Double) in
            Recording.dominant(
                s[(onset + Int(at * Double(h.rate)))..<(onset + Int((at + 1) * Double(h.rate)))],
                among: [440, 550, 660, 880], rate: h.rate)
        }
        // The fade-in ramp (ring's own) may keep the first seconds quiet; the tone is what matters.
        #expect(tone(2) == 660 && tone(8) == 660, "\(tone(2)) \(tone(8))")
        #expect(tone(12) == 550 && tone(15) == 550, "\(tone(12)) \(tone(15))")
        #expect(h.status()?.string("sound") == "chorus.flac")
        #expect(try h.cli("stop").status == 0)
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// Issue #43: `alarm add --sound URL --fallback-sound NAME` and `alarm ring --sound URL` as a
/// user types them (the built binary, no daemon): stored and shown, bad ones refused with a
/// message naming the problem.
@Suite("alarm add --sound URL --fallback-sound (issue #43)")
struct StreamCLITests {
    @Test("a stream URL and a fallback sound are stored and listed; bad URLs and fallbacks are refused, naming them")
    func addStream() throws {
        let e = try CLITests.Env()
        let url = "http://radio.example:8000/live.mp3?station=1,2"
        let r = try e.run("add", "Mon..Fri 06:30", "--id", "radio", "--sound", url, "--fallback-sound", "chime.flac")
        #expect(r.status == 0, "\(r.stderr)")
        let stored = try #require(try e.list().first)
        #expect(stored["sound"] as? String == url)
        #expect(stored["fallback_sound"] as? String == "chime.flac")
        let shown = try e.run("list").stdout
        #expect(shown.contains(url) && shown.contains("fallback chime.flac"), "\(shown)")
        #expect(try e.run("add", "07:00", "--id", "plain").status == 0)
        #expect(try e.list().first { $0["id"] as? String == "plain" }.map { $0["fallback_sound"] is NSNull } == true)
        let refused: [([String], String)] = [
            (
                ["--sound", "ftp://radio.example/a.mp3"],
                "--sound: sound 'ftp://radio.example/a.mp3': only http and https streams are played, not 'ftp'"
            ),
            (["--sound", "http://radio.example/a b.mp3"], "cannot contain spaces or control characters"),
            (["--sound", "http:///live.mp3"], "the stream URL has no host"),
            (["--sound", "sounds/a.wav"], "contains '/'"),
            (
                ["--sound", url, "--fallback-sound", "a.wav,b.wav"],
                "--fallback-sound: the fallback sound 'a.wav,b.wav' must be one sound file name"
            ),
            (["--sound", url, "--fallback-sound", "http://radio.example/b.mp3"], "must be one sound file name"),
            (["--sound", url, "--fallback-sound", "../x.wav"], "contains '/'"),
        ]
        for (args, message) in refused {
            let out = try Binaries.run("alarm", ["add", "08:00", "--id", "bad"] + args, environment: e.environment)
            #expect(out.status != 0, "\(args) was accepted")
            #expect(out.stderr.contains(message), "\(args): \(out.stderr)")
        }
        #expect(try e.list().count == 2, "no refused alarm was stored")
        let ring = try e.run("ring", "--sound", "gopher://radio.example/")
        #expect(ring.status != 0 && ring.stderr.contains("only http and https streams are played"), "\(ring.stderr)")
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// The built alarm-stream against a real Icecast fed in real time by ffmpeg, asked through the
/// wire by the tests' own client (issue #43): what it decodes, how it fails, and that it stops.
@Suite("alarm-stream end to end (issue #43)", .serialized)
struct StreamEndToEndTests {
    /// Each test's parts, stopped at its end.
    final class Setup {
        let dir: String
        let icecast: StreamHarness.Icecast?
        let server: StreamHarness.Server

        init(_ name: String, mounts: [StreamHarness.Mount]) throws {
            dir = try StreamHarness.temporaryDirectory(name)
            icecast = mounts.isEmpty ? nil : try StreamHarness.Icecast(dir: dir + "/icecast", mounts: mounts)
            server = try StreamHarness.Server(dir: dir)
        }

        func client() throws -> WireClient { try WireClient(socket: server.socket) }

        deinit {
            server.stop()
            icecast?.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    @Test(
        "a live stream is decoded at its frequency and level, in real time",
        arguments: [StreamHarness.Mount.mp3, .vorbis, .opus])
    func plays(mount: StreamHarness.Mount) throws {
        let setup = try Setup("plays-\(mount.codec)", mounts: [mount])
        let client = try setup.client()
        let url = setup.icecast!.url(mount)
        try client.request(url: url)
        let played = try client.play(seconds: 5)
        #expect(played.header["codec"] as? String == mount.codec)
        #expect(played.header["url"] as? String == url)
        #expect(played.channels == 2)
        #expect(played.rate == 48000)
        // The last 3 s (past the encoders' start): the sine's frequency and level (lavfi's sine
        // is at 1/8 of full scale, made stereo by ffmpeg at -3 dB a channel: 0.088; the lossy
        // codecs give or take a few percent).
        let tail = played.firstChannel.suffix(3 * played.rate)
        let frequency = SineCheck.frequency(tail, rate: played.rate)
        #expect(abs(frequency - mount.frequency) < mount.frequency * 0.01, "\(frequency) Hz")
        let peak = SineCheck.peak(tail)
        let expected = Float(0.125 / 2.0.squareRoot())
        #expect(abs(peak - expected) < expected * 0.1, "peak \(peak), want \(expected)")
        // Real time: 5 s of audio took about 5 s to come (a buffer's worth early at most), not
        // the moment a file would take.
        let last = played.arrivals.last!
        #expect(last.wall > last.audio - 2.0, "\(last.audio) s of audio in \(last.wall) s")
        #expect(last.wall < last.audio + 3.0, "\(last.audio) s of audio in \(last.wall) s")
        // And steadily: after the first second, never more than 2 s ahead of the clock.
        for a in played.arrivals where a.wall > 1 {
            #expect(a.audio < a.wall + 2.0, "\(a.audio) s of audio at \(a.wall) s")
        }
    }

    @Test("icecast killed mid-stream: an E naming the URL, promptly")
    func serverKilled() throws {
        let setup = try Setup("killed", mounts: [.mp3])
        let client = try setup.client()
        let url = setup.icecast!.url(.mp3)
        try client.request(url: url)
        _ = try client.play(seconds: 1)
        let killed = Date()
        setup.icecast!.stop()
        let message = try client.error(timeout: 10)
        #expect(message.hasPrefix(url + ": "), "\(message)")
        #expect(Date().timeIntervalSince(killed) < 5, "the E came \(Date().timeIntervalSince(killed)) s after the kill")
    }

    @Test("no server at the URL: an E naming the URL, quickly")
    func serverDown() throws {
        let setup = try Setup("down", mounts: [])
        let port = try StreamHarness.freePort()
        let url = "http://127.0.0.1:\(port)/live.mp3"
        let client = try setup.client()
        let asked = Date()
        try client.request(url: url)
        let message = try client.error(timeout: 10)
        #expect(message.hasPrefix(url + ": "), "\(message)")
        #expect(message.lowercased().contains("connect"), "\(message)")
        #expect(Date().timeIntervalSince(asked) < 3, "the E took \(Date().timeIntervalSince(asked)) s")
    }

    @Test("an .m3u and a .pls playlist are resolved to their first stream, which plays")
    func playlists() throws {
        let setup = try Setup("playlists", mounts: [.mp3, .vorbis])
        let files = setup.dir + "/www"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        let mp3 = setup.icecast!.url(.mp3)
        let ogg = setup.icecast!.url(.vorbis)
        try "#EXTM3U\n#EXTINF:-1,Test radio\n\(mp3)\n\(ogg)\n".write(
            toFile: files + "/radio.m3u", atomically: true, encoding: .utf8)
        try "[playlist]\nNumberOfEntries=2\nFile2=\(mp3)\nFile1=\(ogg)\nTitle1=Test\n".write(
            toFile: files + "/radio.pls", atomically: true, encoding: .utf8)
        let web = try StreamHarness.FileServer(dir: files, logDir: setup.dir)
        defer { web.stop() }
        for (name, stream, frequency) in [("radio.m3u", mp3, 440.0), ("radio.pls", ogg, 660.0)] {
            let client = try setup.client()
            try client.request(url: web.url(name))
            let played = try client.play(seconds: 2)
            #expect(played.header["url"] as? String == stream, "\(name)")
            let f = SineCheck.frequency(played.firstChannel.suffix(played.rate), rate: played.rate)
            #expect(abs(f - frequency) < frequency * 0.01, "\(name): \(f) Hz")
        }
    }

    @Test("what is not a stream gets an E: a page, noise, a playlist without a stream, a missing file")
    func undecodable() throws {
        let setup = try Setup("undecodable", mounts: [])
        let files = setup.dir + "/www"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try "<!DOCTYPE html>\n<html><head><title>Radio</title></head><body>Listen live!</body></html>\n".write(
            toFile: files + "/page.html", atomically: true, encoding: .utf8)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<262144).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(noise).write(to: URL(fileURLWithPath: files + "/noise.bin"))
        try "#EXTM3U\n# nothing here\n".write(toFile: files + "/empty.m3u", atomically: true, encoding: .utf8)
        let web = try StreamHarness.FileServer(dir: files, logDir: setup.dir)
        defer { web.stop() }
        let cases: [(String, String)] = [
            ("page.html", "not an audio stream but text (content type text/html)"),
            ("noise.bin", "not an MP3, Ogg Vorbis or Ogg Opus stream"),
            ("empty.m3u", "a playlist with no http or https stream in it"),
            ("missing.mp3", "404"),
        ]
        for (name, want) in cases {
            let client = try setup.client()
            try client.request(url: web.url(name))
            let message = try client.error(timeout: 10)
            #expect(message.hasPrefix(web.url(name) + ": "), "\(name): \(message)")
            #expect(message.contains(want), "\(name): \(message)")
        }
    }

    @Test("a request that is not JSON with an http(s) url gets an E naming the problem")
    func badRequests() throws {
        let setup = try Setup("requests", mounts: [])
        let cases: [(String, String)] = [
            ("GET / HTTP/1.0\n", "the request line is not JSON"),
            ("{\"url\":\"ftp://example.org/a.mp3\"}\n", "ftp://example.org/a.mp3: not an http or https URL"),
            ("{\"station\":\"x\"}\n", "the request has no string \"url\""),
            (String(repeating: "x", count: 5000), "the request line is longer than 4096 bytes"),
        ]
        for (line, want) in cases {
            let client = try setup.client()
            try client.send(line)
            let message = try client.error(timeout: 10)
            #expect(message.hasPrefix(want), "\(message)")
        }
        // A client that closes before a whole line gets nothing, and the server serves on.
        let early = try setup.client()
        try early.send("{\"url\":")
        early.close()
        let after = try setup.client()
        try after.send("nonsense\n")
        #expect(try after.error(timeout: 10).hasPrefix("the request line is not JSON"))
    }

    @Test("the client closing stops the fetch at once: Icecast loses its listener, the server its descriptors")
    func clientCloses() throws {
        let setup = try Setup("closes", mounts: [.mp3])
        let icecast = setup.icecast!
        // Idle: the listening socket and what the runtime holds.
        let idle = setup.server.openDescriptors
        let client = try setup.client()
        try client.request(url: icecast.url(.mp3))
        _ = try client.play(seconds: 1)
        #expect(
            waitUntil(timeout: 5, poll: 0.2, { icecast.listeners("/live.mp3") == 1 }), "icecast never saw alarm-stream")
        #expect(setup.server.openDescriptors > idle)
        client.close()
        let closed = Date()
        #expect(
            waitUntil(timeout: 5, poll: 0.05, { setup.server.openDescriptors <= idle }),
            "alarm-stream still holds the connection")
        #expect(Date().timeIntervalSince(closed) < 2.5, "took \(Date().timeIntervalSince(closed)) s")
        #expect(
            waitUntil(timeout: 10, poll: 0.2, { icecast.listeners("/live.mp3") == 0 }), "icecast still has a listener")
    }

    @Test("a stalled stream: the client closing ends the fetch even when no byte comes")
    func clientClosesDuringStall() throws {
        let setup = try Setup("stall", mounts: [])
        // A server that accepts and answers nothing: the fetch waits on the network.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) }
        }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        #expect(listen(listener, 4) == 0)
        let idle = setup.server.openDescriptors
        let client = try setup.client()
        try client.request(url: "http://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))/silent.mp3")
        #expect(waitUntil(timeout: 5, poll: 0.05, { setup.server.openDescriptors >= idle + 2 }), "no fetch began")
        client.close()
        #expect(
            waitUntil(timeout: 3, poll: 0.05, { setup.server.openDescriptors <= idle }),
            "the fetch went on after the client left")
    }

    @Test("socket activation with Accept=yes: the connection on fd 3 is served, then the process ends")
    func socketActivation() throws {
        let activate = try StreamHarness.tool("systemd-socket-activate", package: "systemd")
        let setup = try Setup("activation", mounts: [.opus])
        let socket = setup.dir + "/activated.sock"
        // systemd-socket-activate hands its program only PATH, TERM, USER and HOME of its own
        // environment: what user-mode qemu needs to start an arm64 alarm-stream is asked for.
        let keep = ["QEMU_LD_PREFIX", "LD_LIBRARY_PATH"].filter { ProcessInfo.processInfo.environment[$0] != nil }
        let parent = try StreamHarness.Spawned(
            activate,
            ["--listen=" + socket, "--accept"] + keep.map { "--setenv=" + $0 } + [Binaries.path("alarm-stream")],
            dir: setup.dir, name: "activate")
        defer { parent.kill() }
        #expect(waitUntil(timeout: 10, { FileManager.default.fileExists(atPath: socket) }))
        let client = try WireClient(socket: socket)
        try client.request(url: setup.icecast!.url(.opus))
        let played = try client.play(seconds: 1)
        #expect(played.header["codec"] as? String == "opus")
        let bad = try WireClient(socket: socket)
        try bad.send("{}\n")
        #expect(try bad.error(timeout: 10) == "the request has no string \"url\"")
        // Each connection's alarm-stream ends with it.
        #expect(StreamHarness.children(of: parent.pid).count >= 1, "the playing connection has no process")
        client.close()
        bad.close()
        #expect(
            waitUntil(timeout: 5, poll: 0.05, { StreamHarness.children(of: parent.pid).isEmpty }),
            "alarm-stream processes left: \(StreamHarness.children(of: parent.pid).map(StreamHarness.describe))")
    }
}

import AlarmAudio
import AlarmTestSupport
import Foundation
import Testing

/// Issue #43: the alarm-stream wire as the client reads it (pure), and `LiveStream` against a
/// fake server that misbehaves at exact moments.
@Suite("alarm-stream wire: frames")
struct StreamWireTests {
    static func frame(_ type: Character, _ payload: [UInt8]) -> [UInt8] {
        var out = [type.asciiValue!]
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { out += $0 }
        return out + payload
    }

    static func floats(_ v: [Float]) -> [UInt8] {
        v.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } }
    }

    static let header = frame("H", Array(#"{"rate":44100,"channels":2,"codec":"mp3","url":"http://x/a.mp3"}"#.utf8))

    @Test("frames split across reads at every byte come out whole and in order")
    func splitAnywhere() throws {
        let bytes =
            Self.header + Self.frame("M", Array(#"{"title":"t"}"#.utf8)) + Self.frame("A", Self.floats([0.25, -0.5]))
            + Self.frame("E", Array(#"{"error":"http://x/a.mp3: the stream ended"}"#.utf8))
        for cut in 1..<bytes.count {
            var p = StreamWire.Parser()
            var frames = try p.feed(bytes[0..<cut])
            frames += try p.feed(bytes[cut...])
            #expect(
                frames == [
                    .header(.init(rate: 44100, channels: 2, codec: "mp3", url: "http://x/a.mp3")), .metadata,
                    .audio([0.25, -0.5]), .error("http://x/a.mp3: the stream ended"),
                ], "cut at \(cut)")
        }
        // One byte at a time, too.
        var p = StreamWire.Parser()
        var frames: [StreamWire.Frame] = []
        for b in bytes { frames += try p.feed([b][...]) }
        #expect(frames.count == 4)
    }

    @Test("an unknown type, an oversized payload, audio before a header or of part of a frame are garbage")
    func garbage() {
        func refused(_ bytes: [UInt8], _ words: String) {
            var p = StreamWire.Parser()
            #expect(throws: StreamWire.Garbage.self) { _ = try p.feed(bytes[...]) }
            do {
                var q = StreamWire.Parser()
                _ = try q.feed(bytes[...])
            } catch { #expect("\(error)".contains(words), "\(error)") }
        }
        refused(Self.frame("Z", [1, 2]), "unknown type 0x5A")
        refused([0x41, 0x01, 0x00, 0x01, 0x00], "65537 bytes")
        refused(Self.frame("A", Self.floats([0.1, 0.1])), "audio before a header")
        refused(Self.header + Self.frame("A", Self.floats([0.1])), "not whole frames of 2 channels")
        refused(Self.frame("H", Array("rate=44100".utf8)), "not JSON")
        refused(Self.frame("H", Array(#"{"rate":0,"channels":2}"#.utf8)), "0 Hz")
        refused(Self.frame("E", Array("oops".utf8)), "error frame")
    }

    @Test("the request line is one JSON object with the URL, slashes unescaped, ending in a newline")
    func request() throws {
        let line = StreamWire.request(url: "http://host:8000/live.mp3?a=1&b=\"q\"")
        #expect(line.last == 10)
        let object = try JSONSerialization.jsonObject(with: Data(line.dropLast())) as? [String: String]
        #expect(object == ["url": "http://host:8000/live.mp3?a=1&b=\"q\""])
        #expect(String(decoding: line, as: UTF8.self).hasPrefix(#"{"url":"http://host:8000/live.mp3"#))
    }

    @Test("a fallback clip converted to a stream's format keeps its frequency and length")
    func conversion() {
        let tone = DefaultTone.clip()
        let c = tone.converted(rate: 44_100, channels: 2)
        #expect(c.channels == 2 && c.sampleRate == 44_100)
        #expect(abs(c.duration - tone.duration) < 0.001)
        let left = c.channel(0).map { Int16($0 * 32767) }
        let firstBeep = left.prefix(44_100 / 10)
        #expect(Recording.dominant(firstBeep[...], among: [660, 880, 1100], rate: 44_100) == 880)
        #expect(c.channel(0) == c.channel(1))
    }
}

@Suite("LiveStream against a fake alarm-stream (issue #43)")
struct LiveStreamTests {
    func waitFailure(_ s: LiveStream, _ timeout: Double) -> String? {
        var reason: String?
        _ = waitUntil(timeout: timeout) {
            reason = s.failureReason
            return reason != nil
        }
        return reason
    }

    @Test("a good stream: the request names the URL, the header gives the format, audio arrives in real time")
    func good() throws {
        let server = try FakeStreamServer(mode: "sine")
        let s = LiveStream(url: "http://radio.test/live.mp3", socketPath: server.socketPath, timeout: 3)
        s.start()
        defer { s.stop() }
        #expect(waitUntil(timeout: 10) { s.bufferedSeconds >= 1.5 })
        #expect(s.failureReason == nil)
        #expect(s.currentFormat == .init(rate: 44_100, channels: 2, codec: "mp3", url: "http://radio.test/live.mp3"))
        #expect(server.requests == [#"{"url":"http://radio.test/live.mp3"}"#])
        s.stop()
        // Closing is how the client says it has had enough.
        #expect(waitUntil(timeout: 10) { server.openConnections == 0 }, "\(server.log)")
    }

    @Test("no socket: fails at once, saying alarm-stream.socket is not running")
    func absent() throws {
        let s = LiveStream(url: "http://radio.test/a.mp3", socketPath: "/nonexistent/alarm-stream/socket", timeout: 3)
        let begun = Date()
        s.start()
        let reason = try #require(waitFailure(s, 5))
        #expect(Date().timeIntervalSince(begun) < 1)
        #expect(reason.hasPrefix("stream http://radio.test/a.mp3: alarm-stream is not running"), "\(reason)")
        #expect(reason.contains("alarm-stream.socket"), "\(reason)")
    }

    @Test("a header and no audio: fails after the timeout, 'no audio within'")
    func headerOnly() throws {
        let server = try FakeStreamServer(mode: "header-only")
        let s = LiveStream(url: "http://radio.test/a.mp3", socketPath: server.socketPath, timeout: 2)
        let begun = Date()
        s.start()
        defer { s.stop() }
        let reason = try #require(waitFailure(s, 10))
        let took = Date().timeIntervalSince(begun)
        #expect(took >= 1.9 && took < 3.5, "\(took)")
        #expect(reason == "stream http://radio.test/a.mp3: no audio within 2 s")
    }

    @Test("a stall after 1 s: fails one timeout after the last audio, 'no audio for'")
    func stall() throws {
        let server = try FakeStreamServer(mode: "stall", seconds: 1)
        let s = LiveStream(url: "http://radio.test/a.mp3", socketPath: server.socketPath, timeout: 2)
        let begun = Date()
        s.start()
        defer { s.stop() }
        let reason = try #require(waitFailure(s, 10))
        let took = Date().timeIntervalSince(begun)
        #expect(took >= 2.8 && took < 4.5, "\(took)")
        #expect(reason == "stream http://radio.test/a.mp3: no audio for 2 s")
    }

    @Test("an E frame, a close, garbage and a format change each fail the stream, naming the URL and why")
    func failures() throws {
        let cases: [(mode: String, words: String)] = [
            ("error", "stream http://radio.test/a.mp3: connection refused"),
            ("close", "closed the connection"),
            ("garbage", "unknown type 0x5A"),
            ("format", "format changed from 44100 Hz, 2 ch to 48000 Hz, 1 ch"),
        ]
        for c in cases {
            let server = try FakeStreamServer(mode: c.mode, seconds: 0.5)
            let s = LiveStream(url: "http://radio.test/a.mp3", socketPath: server.socketPath, timeout: 5)
            let begun = Date()
            s.start()
            defer { s.stop() }
            let reason = try #require(waitFailure(s, 10), "\(c.mode)")
            #expect(Date().timeIntervalSince(begun) < 3, "\(c.mode): not at once")
            #expect(reason.hasPrefix("stream http://radio.test/a.mp3: "), "\(c.mode): \(reason)")
            #expect(reason.contains(c.words), "\(c.mode): \(reason)")
        }
    }

    @Test("the probe of alarm check: a second of audio plays; a stream without audio fails, naming it")
    func probe() throws {
        let good = try FakeStreamServer(mode: "sine")
        guard
            case .plays(let detail) = StreamProbe.probe(url: "http://r.test/a", socketPath: good.socketPath, timeout: 3)
        else {
            Issue.record("the good stream did not play")
            return
        }
        #expect(detail.hasPrefix("mp3, 44100 Hz, 2 ch; 1 s of audio in"), "\(detail)")
        let bad = try FakeStreamServer(mode: "header-only")
        #expect(
            StreamProbe.probe(url: "http://r.test/b", socketPath: bad.socketPath, timeout: 1)
                == .fails("stream http://r.test/b: no audio within 1 s"))
    }
}

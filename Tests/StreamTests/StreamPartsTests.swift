import AlarmStream
import Foundation
import Testing

/// alarm-stream's pure parts: the request line, the frames, playlists, ICY metadata and sniffing.
@Suite("alarm-stream's parts (issue #43)")
struct StreamPartsTests {
    func refusal(_ line: String) -> String? { refusal(bytes: Array(line.utf8)) }

    func refusal(bytes: [UInt8]) -> String? {
        do {
            _ = try StreamRequest.parse(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a request line with an http or https url is taken, unknown keys ignored")
    func goodRequests() throws {
        #expect(
            try StreamRequest.parse(Array(#"{"url":"http://host:8000/live.mp3"}"#.utf8)).url
                == "http://host:8000/live.mp3")
        #expect(try StreamRequest.parse(Array(#"{"url":"HTTPS://h/x","later":1}"#.utf8)).url == "HTTPS://h/x")
    }

    @Test("each bad request line is refused with the reason")
    func badRequests() {
        #expect(refusal("hello") == #"the request line is not JSON (want {"url":"http://..."})"#)
        #expect(refusal("[1,2]") == #"the request is not a JSON object (want {"url":"http://..."})"#)
        #expect(refusal(#"{"link":"http://x/"}"#) == #"the request has no string "url""#)
        #expect(refusal(#"{"url":5}"#) == #"the request has no string "url""#)
        #expect(refusal(#"{"url":"ftp://x/a.mp3"}"#) == "ftp://x/a.mp3: not an http or https URL")
        #expect(refusal(#"{"url":"file:///etc/passwd"}"#) == "file:///etc/passwd: not an http or https URL")
        #expect(refusal(#"{"url":"/tmp/a.mp3"}"#) == "/tmp/a.mp3: not an http or https URL")
        #expect(refusal(#"{"url":"http:///a.mp3"}"#) == "http:///a.mp3: no host in the URL")
        #expect(refusal(#"{"url":"http://x/"#) != nil)
        #expect(
            refusal(#"{"url":"http://x/\#(String(repeating: "a", count: 4100))"}"#)
                == "the request line is longer than 4096 bytes")
        #expect(refusal(bytes: [0x7B, 0xFF, 0x7D]) == "the request line is not UTF-8")
    }

    @Test("frames: type, little-endian length, payload; audio split into whole frames of at most 64 KiB")
    func frames() {
        #expect(StreamWire.frame(.error, [1, 2, 3]) == [0x45, 3, 0, 0, 0, 1, 2, 3])
        #expect(StreamWire.metadata(title: "a/b") == StreamWire.frame(.metadata, Array(#"{"title":"a/b"}"#.utf8)))
        let header = StreamWire.header(StreamFormat(rate: 44100, channels: 2, codec: .mp3), url: "http://h/a.mp3")
        #expect(
            Array(header.dropFirst(5))
                == Array(#"{"channels":2,"codec":"mp3","rate":44100,"url":"http://h/a.mp3"}"#.utf8))
        // 3 channels: 65536 / 12 = 5461 frames per payload at most.
        let samples = [Float](repeating: 0.5, count: 3 * 12000)
        let frames = samples.withUnsafeBufferPointer { StreamWire.audio($0, channels: 3) }
        #expect(frames.map { $0.count - 5 } == [5461 * 12, 5461 * 12, (12000 - 2 * 5461) * 12])
        #expect(Array(frames[0][5..<9]) == [0x00, 0x00, 0x00, 0x3F])
        #expect(frames.allSatisfy { $0[0] == 0x41 })
        // Past full scale and NaN: clamped, and 0.
        let loud: [Float] = [1.5, -2, .nan, -0.25]
        let clamped = loud.withUnsafeBufferPointer { StreamWire.audio($0, channels: 2) }
        #expect(clamped.count == 1)
        var values: [Float] = []
        for i in stride(from: 5, to: clamped[0].count, by: 4) {
            var bits = UInt32(clamped[0][i])
            bits |= UInt32(clamped[0][i + 1]) << 8
            bits |= UInt32(clamped[0][i + 2]) << 16
            bits |= UInt32(clamped[0][i + 3]) << 24
            values.append(Float(bitPattern: bits))
        }
        #expect(values == [1, -1, 0, -0.25])
    }

    @Test("playlists: the kind by content type or suffix, the first stream URL")
    func playlists() {
        #expect(Playlist.kind(url: "http://h/a", contentType: "audio/x-mpegurl") == .m3u)
        #expect(Playlist.kind(url: "http://h/a", contentType: "audio/x-scpls; charset=utf-8") == .pls)
        #expect(Playlist.kind(url: "http://h/radio.M3U?x=1", contentType: "application/octet-stream") == .m3u)
        #expect(Playlist.kind(url: "http://h/radio.pls", contentType: nil) == .pls)
        #expect(Playlist.kind(url: "http://h/live.mp3", contentType: "audio/mpeg") == nil)
        #expect(
            Playlist.firstURL("#EXTM3U\n#EXTINF:-1,Radio\r\n\nhttp://a/1.mp3\nhttp://a/2.mp3\n", kind: .m3u)
                == "http://a/1.mp3")
        #expect(
            Playlist.firstURL(
                "[playlist]\nFile2=http://a/2\nFile1=https://a/1\nTitle1=x\nNumberOfEntries=2\n", kind: .pls)
                == "https://a/1")
        #expect(Playlist.firstURL("#EXTM3U\n/local/file.mp3\n", kind: .m3u) == nil)
        #expect(Playlist.firstURL("[playlist]\nNumberOfEntries=0\n", kind: .pls) == nil)
    }

    @Test("ICY metadata blocks are cut out of the audio, however the bytes are split, and their titles kept")
    func icy() {
        // interval 4: AAAA [1] 16 bytes metadata, AAAA [0], AAAA [1] ...
        func block(_ title: String) -> [UInt8] {
            var text = Array("StreamTitle='\(title)';".utf8)
            let n = (text.count + 15) / 16
            text += [UInt8](repeating: 0, count: n * 16 - text.count)
            return [UInt8(n)] + text
        }
        // Built a piece at a time: one long `+` chain is too much for Swift 6.2.3's type checker.
        var stream: [UInt8] = [1, 2, 3, 4]
        stream += block("One")
        stream += [5, 6, 7, 8, 0]
        stream += [9, 10, 11, 12]
        stream += block("Two")
        stream += [13, 14]
        for piece in [1, 3, 7, 100] {
            var stripper = IcyMetadataStripper(interval: 4)
            var audio: [UInt8] = []
            var titles: [String] = []
            var i = 0
            while i < stream.count {
                let part = Array(stream[i..<min(stream.count, i + piece)])
                let (a, t) = part.withUnsafeBytes { stripper.feed($0) }
                audio += a
                titles += t
                i += piece
            }
            #expect(audio == Array(1...14), "pieces of \(piece)")
            #expect(titles == ["One", "Two"], "pieces of \(piece)")
        }
    }

    @Test("sniffing: Ogg Vorbis, Ogg Opus, MP3 by ID3 or two frames, and pages or noise refused")
    func sniffing() {
        func oggPage(_ packet: [UInt8]) -> [UInt8] {
            Array("OggS".utf8) + [UInt8](repeating: 0, count: 22) + [1, UInt8(packet.count)] + packet
        }
        #expect(
            StreamSniffer.sniff(oggPage([1] + Array("vorbis".utf8) + [0, 0, 0]), contentType: nil) == .codec(.vorbis))
        #expect(StreamSniffer.sniff(oggPage(Array("OpusHead".utf8) + [1]), contentType: "audio/ogg") == .codec(.opus))
        #expect(
            StreamSniffer.sniff(oggPage(Array("\u{80}theora".utf8) + [0, 0]), contentType: nil)
                == .unknown("an Ogg stream of a codec other than Vorbis or Opus"))
        #expect(StreamSniffer.sniff(Array("ID3".utf8) + [4, 0, 0], contentType: nil) == .codec(.mp3))
        // MPEG-1 layer III, 128 kbit/s, 44.1 kHz, no padding: 417 bytes a frame; joined mid-frame.
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 413)
        #expect(StreamSniffer.sniff([1, 2, 3] + frame + frame, contentType: nil) == .codec(.mp3))
        #expect(StreamSniffer.sniff([1, 2, 3] + frame, contentType: nil) == .needMore)
        let page = Array("<!DOCTYPE html>\n<html><body>Not found</body></html>\n".utf8)
        guard case .unknown(let why) = StreamSniffer.sniff(page, contentType: "text/html") else {
            Issue.record("a page was not refused")
            return
        }
        #expect(why.hasPrefix("not an audio stream but text (content type text/html)"))
        var generator = SystemRandomNumberGenerator()
        var noise = (0..<StreamSniffer.limit).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // No MPEG frame header anywhere: 0xFF never followed by a sync byte.
        for i in noise.indices where noise[i] == 0xFF { noise[i] = 0xFE }
        #expect(StreamSniffer.sniff(Array(noise.prefix(1000)), contentType: nil) == .needMore)
        #expect(
            StreamSniffer.sniff(noise, contentType: "application/octet-stream")
                == .unknown("not an MP3, Ogg Vorbis or Ogg Opus stream (content type application/octet-stream)"))
    }
}

import AlarmCore
import Testing

/// Issue #43: an http or https stream as an alarm's sound, told from file names and checked.
@Suite("stream URLs as sounds (issue #43)")
struct StreamSoundTests {
    @Test("a text with a scheme is a stream, kept whole (commas included); file names, lists and '*' are not")
    func selection() {
        #expect(SoundSelection("http://radio.example:8000/live.mp3") == .stream("http://radio.example:8000/live.mp3"))
        #expect(SoundSelection(" https://r.example/a,b.ogg ") == .stream("https://r.example/a,b.ogg"))
        #expect(SoundSelection("ftp://r.example/a.mp3") == .stream("ftp://r.example/a.mp3"))
        #expect(SoundSelection("https://r.example/a").names == nil)
        #expect(SoundSelection("https://r.example/a").streamURL == "https://r.example/a")
        #expect(SoundSelection("chime.flac") == .one("chime.flac"))
        #expect(SoundSelection("a.wav, b.wav") == .list(["a.wav", "b.wav"]))
        #expect(SoundSelection("*") == .any)
        #expect(SoundSelection("chime.flac").streamURL == nil)
        #expect(!StreamURL.isStream("not a://url"))
        #expect(!StreamURL.isStream("://nohost"))
    }

    @Test("http and https URLs are taken; other schemes, blanks, control characters, no host, too long are refused")
    func validation() throws {
        for good in ["http://radio.example:8000/live.mp3", "HTTPS://r.example/a.pls", "http://user@r.example/x?y=1"] {
            #expect(throws: Never.self, "\(good)") { try StreamURL.validate(good) }
        }
        let refused: [(String, String)] = [
            ("ftp://r.example/a.mp3", "only http and https streams are played, not 'ftp'"),
            ("http://r.example/a b.mp3", "cannot contain spaces or control characters"),
            ("http://r.example/a\tb.mp3", "cannot contain spaces or control characters"),
            ("http:///a.mp3", "has no host"),
            ("http://:8000/a.mp3", "has no host"),
            ("http://r.example/" + String(repeating: "a", count: 2100), "longer than 2048 bytes"),
        ]
        for (url, words) in refused {
            do {
                try StreamURL.validate(url)
                Issue.record("\(url) was taken")
            } catch {
                #expect("\(error)".contains(words), "\(url): \(error)")
                #expect(url.count > 100 || "\(error)".contains(url), "the message names the URL: \(error)")
            }
        }
    }

    @Test("a stream sound and a fallback sound survive the store's writer and reader, and JSONDecoder")
    func roundTrip() throws {
        let a = Alarm(
            id: "radio", trigger: .calendar(try CalendarExpression("Mon..Fri 06:30")),
            sound: "http://radio.example:8000/live.mp3?x=1&y=\"2\"", fallbackSound: "chime.flac")
        let bytes = try AlarmListWriter.encode([a])
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""fallback_sound" : "chime.flac""#))
        #expect(try AlarmListReader.decode(bytes) == [a])
        let plain = Alarm(id: "p", trigger: .calendar(try CalendarExpression("07:00")))
        // Unset, the store leaves the key out.
        #expect(!String(decoding: try AlarmListWriter.encode([plain]), as: UTF8.self).contains("fallback_sound"))
    }
}

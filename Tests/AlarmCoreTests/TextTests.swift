import AlarmCore
import Testing

@Suite("Text helpers")
struct TextTests {
    @Test("trimmingBlanks: spaces, tabs, newlines and carriage returns at either end, CRLF (one Character) too")
    func trimming() {
        // An HTTP header line as libcurl hands it over (alarm-stream's icy-metaint: issue #43).
        #expect(Int("icy-metaint: 16000\r\n".split(separator: ":")[1].trimmingBlanks()) == 16000)
        #expect(" \t16000\r\n".trimmingBlanks() == "16000")
        #expect("\r\nx y\n\r".trimmingBlanks() == "x y")
        #expect("a\r\nb".trimmingBlanks() == "a\r\nb")
        #expect(" \r\n \t".trimmingBlanks() == "")
        #expect("".trimmingBlanks() == "")
    }
}

import FoundationEssentials

/// An internet radio stream as an alarm's sound (issue #43): `--sound http://host:8000/live.mp3`.
/// alarmd does not fetch it: alarm-stream does, and hands it decoded over a local socket. Pure:
/// looks at the text only.
public enum StreamURL {
    /// The longest URL taken: the request line of the alarm-stream wire is at most 4096 bytes.
    public static let maxLength = 2048

    /// Whether `text` names a stream rather than sound files: it has a scheme (`word://`). Such a
    /// text is checked by `validate` (an `ftp://` one is refused as a URL, not as a file name).
    public static func isStream(_ text: String) -> Bool {
        guard let range = text.firstRange(of: "://") else { return false }
        let scheme = text[..<range.lowerBound]
        return !scheme.isEmpty && scheme.utf8.allSatisfy(isSchemeByte)
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default: return false
        }
    }

    /// Refuses what alarm-stream would not fetch: a scheme other than http or https, no host,
    /// blanks or control characters, more than `maxLength` bytes. The message names the URL.
    public static func validate(_ text: String) throws(AlarmError) {
        guard let range = text.firstRange(of: "://") else {
            throw .invalid("sound '\(text)' is not a stream URL: give http://... or https://...")
        }
        let scheme = text[..<range.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .invalid("sound '\(text)': only http and https streams are played, not '\(scheme)'")
        }
        if text.unicodeScalars.contains(where: { $0 == " " || $0.value < 0x20 || $0.value == 0x7F }) {
            throw .invalid(
                "sound '\(text)': a stream URL cannot contain spaces or control characters (write a space as %20)")
        }
        if text.utf8.count > maxLength {
            throw .invalid("sound URL '\(text.prefix(60))...' is longer than \(maxLength) bytes")
        }
        let rest = text[range.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        if host.isEmpty || host.hasPrefix(":") {
            throw .invalid("sound '\(text)': the stream URL has no host")
        }
    }
}

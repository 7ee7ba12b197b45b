/// Random secrets for alarm-web: the access token, session ids, CSRF tokens.
///
/// 32 bytes from the system's cryptographic generator (`getrandom(2)` behind
/// `SystemRandomNumberGenerator`), written as base64url without padding: 43 characters a user
/// can paste, safe in a header, a cookie and a file.
public enum Secret {
    public static let byteCount = 32
    /// The length of every secret made here.
    public static let textLength = 43

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return base64url(bytes)
    }

    /// True for text that could be one of these secrets (the characters and length), so that
    /// anything else is refused before it is compared.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == textLength && text.utf8.allSatisfy { alphabet.contains($0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func base64url(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            let chars = min(4, (bytes.count - i) * 4 / 3 + ((bytes.count - i) < 3 ? 1 : 0))
            for k in 0..<chars { out.append(alphabet[Int((v >> UInt32(18 - 6 * k)) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

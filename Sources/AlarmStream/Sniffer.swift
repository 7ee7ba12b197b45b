import FoundationEssentials

/// Which decoder a stream's first bytes call for, by their signatures, not by the server's word
/// (stations label Ogg as audio/mpeg and serve pages as audio): Ogg's first page names Vorbis or
/// Opus; MP3 starts with an ID3v2 tag or two MPEG audio frame headers in a row.
public enum StreamSniffer {
    public enum Verdict: Equatable, Sendable {
        case codec(StreamFormat.Codec)
        /// Not enough bytes yet to tell.
        case needMore
        /// Not a stream alarm-stream decodes; the reason.
        case unknown(String)
    }

    /// How many bytes to look at before giving up.
    public static let limit = 16384

    public static func sniff(_ bytes: [UInt8], contentType: String?) -> Verdict {
        if bytes.count >= 4 && bytes[0..<4].elementsEqual("OggS".utf8) {
            guard bytes.count >= 36 else { return .needMore }
            // The first page's first packet, after the 27-byte header and its segment table.
            let segments = Int(bytes[26])
            let packet = 27 + segments
            guard bytes.count >= packet + 8 else { return .needMore }
            if bytes[packet..<(packet + 7)].elementsEqual([0x01] + Array("vorbis".utf8)) { return .codec(.vorbis) }
            if bytes[packet..<(packet + 8)].elementsEqual("OpusHead".utf8) { return .codec(.opus) }
            return .unknown("an Ogg stream of a codec other than Vorbis or Opus")
        }
        if bytes.count >= 3 && bytes[0..<3].elementsEqual("ID3".utf8) { return .codec(.mp3) }
        // Two MPEG audio frames in a row, found within the first bytes (a stream joined
        // mid-frame starts with the rest of one).
        let end = min(bytes.count, limit)
        var i = 0
        while i + 4 <= end {
            if let length = mpegFrameLength(bytes, at: i) {
                let next = i + length
                if next + 4 > bytes.count {
                    return bytes.count >= limit ? .unknown(describe(bytes, contentType)) : .needMore
                }
                if mpegFrameLength(bytes, at: next) != nil { return .codec(.mp3) }
            }
            i += 1
        }
        if bytes.count < limit && !looksLikeText(bytes) { return .needMore }
        return .unknown(describe(bytes, contentType))
    }

    /// The length of the MPEG audio (layer I, II, III) frame whose header starts at `i`, nil when
    /// there is none.
    static func mpegFrameLength(_ b: [UInt8], at i: Int) -> Int? {
        guard i + 4 <= b.count, b[i] == 0xFF, b[i + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (b[i + 1] >> 3) & 3  // 0: 2.5, 2: 2, 3: 1
        let layer = (b[i + 1] >> 1) & 3  // 1: III, 2: II, 3: I
        let bitrateIndex = Int(b[i + 2] >> 4)
        let rateIndex = Int((b[i + 2] >> 2) & 3)
        let padding = Int((b[i + 2] >> 1) & 1)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let rates = [44100, 48000, 32000]
        let rate = rates[rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let v1 = version == 3
        let kbps: [Int]
        switch (v1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        if layer == 3 { return (12 * bitrate / rate + padding) * 4 }
        let samples = (layer == 1 && !v1) ? 576 : 1152
        return samples / 8 * bitrate / rate + padding
    }

    private static func looksLikeText(_ b: [UInt8]) -> Bool {
        let head = b.prefix(512)
        return !head.isEmpty
            && head.allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) || $0 >= 0x80 }
            && head.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: " ") }
    }

    private static func describe(_ b: [UInt8], _ contentType: String?) -> String {
        let type = contentType.map { " (content type \($0))" } ?? ""
        if looksLikeText(b) { return "not an audio stream but text\(type), starting \"\(preview(b))\"" }
        return "not an MP3, Ogg Vorbis or Ogg Opus stream\(type)"
    }

    private static func preview(_ b: [UInt8]) -> String {
        String(decoding: b.prefix(40), as: UTF8.self).replacing("\n", with: " ")
            .replacing("\r", with: "")
    }
}

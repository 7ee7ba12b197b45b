/// MPEG audio (MP3, and its Layer I and II siblings): the frame headers, walked without decoding.
///
/// Why our own walk when libsndfile decodes MP3 through libmpg123: libsndfile takes the length from
/// a Xing/Info or VBRI header when the first frame carries one, and otherwise *estimates* it from
/// the file size and the first frame's bit rate, then never reads past that estimate. For a
/// variable-bit-rate file without such a header the estimate is wrong (an ffmpeg-made 40 s VBR file
/// without its Xing frame reads as 6.7 s). The walk counts the frames that are really there, so a
/// clip's length is never a guess: over 30 s is refused with its true length, and a file that
/// libsndfile would cut short is refused, not played in part.
struct MPEGFrameHeader: Equatable {
    /// 1 for MPEG-1, 2 for MPEG-2, 25 for MPEG-2.5.
    var version: Int
    /// 1, 2 or 3.
    var layer: Int
    /// kbit/s.
    var bitrate: Int
    var sampleRate: Int
    var padding: Bool
    var channels: Int

    /// Parses the four bytes of a frame header; nil when they are not one (bad sync, reserved
    /// version, layer or rate, the free or bad bit-rate index).
    init?(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        let v = Int(b1 >> 3) & 3
        let l = Int(b1 >> 1) & 3
        let bi = Int(b2 >> 4)
        let ri = Int(b2 >> 2) & 3
        guard v != 1, l != 0, bi != 0, bi != 15, ri != 3 else { return nil }
        version = v == 3 ? 1 : v == 2 ? 2 : 25
        layer = 4 - l
        let table: [Int] =
            switch (version == 1, layer) {
            case (true, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (true, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (true, _): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (false, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            case (false, _): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
        bitrate = table[bi]
        let base = [44_100, 48_000, 32_000][ri]
        sampleRate = version == 1 ? base : version == 2 ? base / 2 : base / 4
        padding = b2 & 2 != 0
        channels = b3 >> 6 == 3 ? 1 : 2
    }

    /// PCM frames per MPEG frame.
    var samplesPerFrame: Int { layer == 1 ? 384 : layer == 2 || version == 1 ? 1152 : 576 }

    /// Bytes in this frame, header included.
    var length: Int {
        switch layer {
        case 1: (12 * bitrate * 1000 / sampleRate + (padding ? 1 : 0)) * 4
        case 2: 144 * bitrate * 1000 / sampleRate + (padding ? 1 : 0)
        default: (version == 1 ? 144 : 72) * bitrate * 1000 / sampleRate + (padding ? 1 : 0)
        }
    }

    /// Where a Xing/Info header would start in a Layer III frame: after the header and the side
    /// information.
    var xingOffset: Int { 4 + (version == 1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)) }

    var name: String {
        let v = version == 25 ? "MPEG-2.5" : "MPEG-\(version)"
        return "\(v) Layer \(["I", "II", "III"][layer - 1])"
    }
}

/// What the frame walk found in an MPEG audio file.
struct MPEGStream: Equatable {
    var first: MPEGFrameHeader
    /// Where the first audio frame starts (after any ID3v2 tag and junk).
    var firstOffset: Int
    /// Frames of audio, not counting a Xing/Info/VBRI frame.
    var frames: Int
    /// The frame count a Xing/Info or VBRI header announces, nil without one.
    var announcedFrames: Int?
    /// Encoder delay and padding from a LAME tag (PCM frames trimmed by a gapless decoder).
    var encoderDelay = 0
    var encoderPadding = 0
    /// More than one bit rate among the frames.
    var variableBitrate = false
    /// The last frame runs past the end of the file.
    var cutInFrame = false

    /// The header's name for the length: "Xing", "Info", "VBRI", or nil.
    var lengthHeader: String?

    /// PCM frames a gapless decoder gives: all frames, less the LAME tag's delay and padding.
    var pcmFrames: Int { max(0, frames * first.samplesPerFrame - encoderDelay - encoderPadding) }
}

extension ContainerScanner {
    /// The size of an ID3v2 tag at `offset` (header, body and footer), or 0 when there is none.
    static func id3v2Size(_ file: SoundFile, at offset: Int) -> Int {
        let h = Bytes(file.read(at: offset, count: 10))
        guard h.count == 10, h.fourCC(0).hasPrefix("ID3"), h.u8(3) < 0xFF, h.u8(4) < 0xFF else { return 0 }
        var size = 0
        for i in 6..<10 {
            guard h.u8(i) < 0x80 else { return 0 }  // sync-safe: seven bits per byte
            size = size << 7 | Int(h.u8(i))
        }
        return 10 + size + (h.u8(5) & 0x10 != 0 ? 10 : 0)
    }

    /// The first frame at or after `start`, confirmed by a second frame of the same version, layer
    /// and rate right after it (a lone 0xFFE sync in a tag or in noise is not a frame). Searches
    /// `window` bytes.
    static func findMPEGFrame(_ file: SoundFile, from start: Int, window: Int = 65_536) -> (Int, MPEGFrameHeader)? {
        let bytes = file.read(at: start, count: window + 4)
        var i = 0
        while i + 4 <= bytes.count {
            if bytes[i] == 0xFF, let h = MPEGFrameHeader(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) {
                let next = Bytes(file.read(at: start + i + h.length, count: 4))
                if let n = MPEGFrameHeader(next.u8(0), next.u8(1), next.u8(2), next.u8(3)),
                    n.version == h.version, n.layer == h.layer, n.sampleRate == h.sampleRate
                {
                    return (start + i, h)
                }
                // A file of a single frame ends right after it.
                if start + i + h.length == file.size { return (start + i, h) }
            }
            i += 1
        }
        return nil
    }

    /// Walks an MPEG audio stream from `start` (after any ID3v2 tag). Throws `.unsupported` when no
    /// frame is found, `.truncated` when the frames end before what a Xing/VBRI header announces
    /// or inside a frame.
    static func walkMPEG(_ file: SoundFile, name: String, start: Int) throws(SoundProblem) -> MPEGStream {
        guard let (firstOffset, first) = findMPEGFrame(file, from: start) else {
            if start > 0 { throw .corrupt(name, detail: "no MPEG audio frame follows its ID3v2 tag") }
            throw .unsupported(name, detail: "not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file")
        }
        var s = MPEGStream(first: first, firstOffset: firstOffset, frames: 0)
        var announcedBytes: Int?
        var pos = firstOffset
        // A Xing/Info (Layer III) or VBRI header in the first frame: the encoder's own count.
        let f = Bytes(file.read(at: firstOffset, count: min(first.length, 400)))
        if first.layer == 3 {
            let x = first.xingOffset
            let tag = f.fourCC(x)
            if tag == "Xing" || tag == "Info" {
                s.lengthHeader = tag
                let flags = f.be32(x + 4)
                if flags & 1 != 0 { s.announcedFrames = Int(f.be32(x + 8)) }
                if flags & 2 != 0 { announcedBytes = Int(f.be32(x + 8 + (flags & 1 != 0 ? 4 : 0))) }
                var lame = x + 8
                for bit in 0..<4 where flags & (1 << UInt32(bit)) != 0 { lame += [4, 4, 100, 4][bit] }
                // The LAME tag: 9 bytes of encoder name, then at +21 12 bits of delay, 12 of padding.
                if f.count >= lame + 24, ["LAME", "Lavc", "Lavf"].contains(f.fourCC(lame)) {
                    s.encoderDelay = Int(f.u8(lame + 21)) << 4 | Int(f.u8(lame + 22)) >> 4
                    s.encoderPadding = (Int(f.u8(lame + 22)) & 0x0F) << 8 | Int(f.u8(lame + 23))
                }
                pos += first.length
            }
        }
        if s.lengthHeader == nil, f.fourCC(36) == "VBRI" {
            s.lengthHeader = "VBRI"
            s.announcedFrames = Int(f.be32(36 + 14))
            announcedBytes = Int(f.be32(36 + 10))
            pos += first.length
        }
        // The encoder's counts, when the file holds the bytes they announce: no walk (a listing
        // of a music folder reads a few bytes per song, not every song).
        if let frames = s.announcedFrames, let bytes = announcedBytes, frames > 0, bytes > first.length {
            // (Some encoders count the ID3v2 tag in; the file must hold at least that much.)
            guard firstOffset + bytes <= file.size || bytes <= file.size else {
                throw .truncated(
                    name,
                    detail:
                        "its \(s.lengthHeader!) header announces \(bytes) bytes of audio but the file holds \(file.size - firstOffset)"
                )
            }
            s.frames = frames
            s.variableBitrate = s.lengthHeader != "Info"  // LAME and ffmpeg write "Info" for constant bit rate
            return s
        }
        // The frames, read in large pieces; the walk ends at the end of the file, at a tag
        // (ID3v1 "TAG", APEv2, Lyrics3) or at bytes that are no frame.
        var bitrate = first.bitrate
        var buffer: [UInt8] = []
        var bufferStart = pos
        func byte(_ at: Int) -> UInt8? {
            if at < bufferStart || at >= bufferStart + buffer.count {
                bufferStart = at
                buffer = file.read(at: at, count: 1 << 16)
            }
            let i = at - bufferStart
            return i < buffer.count ? buffer[i] : nil
        }
        var resyncs = 0
        while pos + 4 <= file.size {
            let b0 = byte(pos) ?? 0
            var h: MPEGFrameHeader?
            if let b1 = byte(pos + 1), let b2 = byte(pos + 2), let b3 = byte(pos + 3) {
                h = MPEGFrameHeader(b0, b1, b2, b3)
            }
            guard let h, h.version == first.version, h.layer == first.layer, h.sampleRate == first.sampleRate else {
                // A tag at the end (ID3v1 "TAG", APEv2, Lyrics3) ends the audio. Other bytes are
                // skipped up to the next pair of frames, as libmpg123 resynchronises.
                if [UInt8(ascii: "T"), UInt8(ascii: "A"), UInt8(ascii: "L")].contains(b0) { break }
                resyncs += 1
                guard resyncs <= 64, let (next, n) = findMPEGFrame(file, from: pos + 1, window: 8_192),
                    n.version == first.version, n.layer == first.layer, n.sampleRate == first.sampleRate
                else { break }
                pos = next
                continue
            }
            if pos + h.length > file.size {
                s.cutInFrame = true
                break
            }
            if h.bitrate != bitrate { s.variableBitrate = true }
            bitrate = h.bitrate
            s.frames += 1
            pos += h.length
        }
        if let announced = s.announcedFrames, s.frames < announced {
            throw .truncated(
                name,
                detail:
                    "its \(s.lengthHeader!) header announces \(announced) MPEG frames but the file holds \(s.frames)")
        }
        if s.cutInFrame {
            throw .truncated(name, detail: "the file ends inside MPEG frame \(s.frames + 1)")
        }
        if s.frames == 0 { throw .empty(name) }
        return s
    }
}

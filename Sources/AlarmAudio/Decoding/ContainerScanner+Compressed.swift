/// The compressed containers libsndfile decodes for us (issue #24): Ogg (Vorbis, Opus), FLAC and
/// MPEG audio (MP3). The scan only tells what the file is and what its header promises; the audio
/// itself is decoded by libsndfile (`SoundDecoder.decodeWithSndfile`) under the same bounds as
/// every other clip.
extension ContainerScanner {
    /// Ogg: the first page's first packet names the codec. Vorbis and Opus are played; FLAC and
    /// Speex in Ogg are named and refused (libsndfile does not decode them there).
    static func scanOgg(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: .ogg)
        let page = Bytes(file.read(at: 0, count: 27 + 255))
        guard page.count >= 27 else { throw .truncated(name, detail: "the file ends inside its first Ogg page header") }
        guard page.u8(4) == 0 else {
            throw .unsupported(name, detail: "Ogg version \(page.u8(4)); only version 0 exists")
        }
        let segments = Int(page.u8(26))
        guard page.count >= 27 + segments else {
            throw .truncated(name, detail: "the file ends inside its first Ogg page header")
        }
        let packet = Bytes(file.read(at: 27 + segments, count: 19))
        if packet.count >= 7, packet.u8(0) == 1, packet.fourCC(1) == "vorb", packet.fourCC(3) == "rbis" {
            l.oggCodec = "Vorbis"
            l.channels = Int(packet.u8(11))
            l.sampleRate = Int(packet.le32(12))
        } else if packet.count >= 8, packet.fourCC(0) == "Opus", packet.fourCC(4) == "Head" {
            l.oggCodec = "Opus"
            l.channels = Int(packet.u8(9))
            l.sampleRate = Int(packet.le32(12))  // the rate it was made from (libsndfile decodes at an Opus rate)
        } else if packet.count >= 5, packet.u8(0) == 0x7F, packet.fourCC(1) == "FLAC" {
            l.oggCodec = "FLAC"
        } else if packet.count >= 8, packet.fourCC(0) == "Spee", packet.fourCC(4) == "x   " {
            l.oggCodec = "Speex"
        } else if packet.count >= 7, packet.u8(0) == 0x80, packet.fourCC(1) == "theo" {
            l.oggCodec = "Theora"
        } else {
            l.oggCodec = "unknown"
        }
        return l
    }

    /// Native FLAC: "fLaC", then STREAMINFO (rate, channels, bits, total samples).
    static func scanFLAC(_ file: SoundFile, name: String, at start: Int) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: .flac)
        let b = Bytes(file.read(at: start, count: 4 + 4 + 34))
        guard b.count == 42 else { throw .truncated(name, detail: "the file ends inside its FLAC STREAMINFO block") }
        guard b.u8(4) & 0x7F == 0, Int(b.u8(5)) << 16 | Int(b.u8(6)) << 8 | Int(b.u8(7)) == 34 else {
            throw .corrupt(name, detail: "its first FLAC metadata block is not a 34-byte STREAMINFO")
        }
        let s = 8
        l.sampleRate = Int(b.u8(s + 10)) << 12 | Int(b.u8(s + 11)) << 4 | Int(b.u8(s + 12)) >> 4
        l.channels = (Int(b.u8(s + 12)) >> 1 & 7) + 1
        l.flacBits = (Int(b.u8(s + 12)) & 1) << 4 + (Int(b.u8(s + 13)) >> 4) + 1
        let total = (Int(b.u8(s + 13)) & 0x0F) << 32 | Int(b.be32(s + 14))
        l.flacTotalFrames = total == 0 ? nil : total  // 0: unknown (a streamed encoder)
        return l
    }

    /// MP3 (and MPEG Layer I/II): an optional ID3v2 tag, then frames; see `MPEGStream`. A FLAC
    /// file behind an ID3v2 tag (some taggers write one) is a FLAC file.
    static func scanMPEG(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        var start = 0
        // Taggers have been seen to write more than one ID3v2 tag in a row.
        for _ in 0..<8 {
            let n = id3v2Size(file, at: start)
            if n == 0 { break }
            start += n
            if start >= file.size {
                throw .truncated(name, detail: "the file ends inside its ID3v2 tag (\(n) bytes announced)")
            }
        }
        if start > 0, Bytes(file.read(at: start, count: 4)).fourCC(0) == "fLaC" {
            return try scanFLAC(file, name: name, at: start)
        }
        let stream = try walkMPEG(file, name: name, start: start)
        var l = ContainerLayout(container: .mp3)
        l.mpeg = stream
        l.channels = stream.first.channels
        l.sampleRate = stream.first.sampleRate
        l.dataOffset = stream.firstOffset
        return l
    }

    /// True when the first bytes look like an MPEG audio stream: an ID3v2 tag or a frame header.
    static func looksLikeMPEG(_ head: Bytes) -> Bool {
        head.fourCC(0).hasPrefix("ID3") || MPEGFrameHeader(head.u8(0), head.u8(1), head.u8(2), head.u8(3)) != nil
    }
}

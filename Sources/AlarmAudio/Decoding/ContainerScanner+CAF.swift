/// CAF (Apple Core Audio Format): big-endian chunks with 64-bit sizes; `desc` gives the shape,
/// `pakt` the packet table, `kuki` a codec's magic cookie, `data` the audio.
extension ContainerScanner {
    static func scanCAF(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: .caf)
        var sawDesc = false
        var sawData = false
        var descOffset = 0
        try walkChunks(file, name: name, start: 8, header: .caf) { (id, off, raw) throws(SoundProblem) -> Bool in
            if id == "data" && raw == -1 {
                // "Size unknown": the audio runs to the end of the file; only valid for the last
                // chunk (ffmpeg writes it when its output is a pipe). libsndfile 1.2.0 refuses it, so
                // its view gets the true size.
                guard sawDesc else { throw .corrupt(name, detail: "its 'data' chunk comes before 'desc'") }
                guard file.size - off >= 4 else {
                    throw .truncated(name, detail: "the file ends inside its 'data' chunk")
                }
                l.dataOffset = off + 4  // skip mEditCount
                l.dataSize = file.size - off - 4
                l.streamed = true
                l.patches.append(.init(offset: off - 8, bytes: Bytes.encode64(UInt64(file.size - off), le: false)))
                sawData = true
                return false
            }
            if id == "caff" {
                // libsndfile writing to a pipe appends its whole header again at each rewrite (sox -t caf -):
                // the first 'data' chunk then says "no audio" and the audio sits between copies.
                throw .corrupt(
                    name,
                    detail:
                        "a second CAF header follows its 'data' chunk (libsndfile's output to a pipe, e.g. 'sox … -t caf -'); write it to a file instead"
                )
            }
            guard raw >= 0, raw <= Int64(Int.max / 2) else {
                throw .corrupt(name, detail: "its '\(id)' chunk has size \(raw)")
            }
            let size = Int(raw)
            switch id {
            case "desc":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 32 else { throw .corrupt(name, detail: "its 'desc' chunk is \(size) bytes, not 32") }
                let d = Bytes(file.read(at: off, count: 32))
                let rate = Double(bitPattern: d.be64(0))
                l.sampleRate = rate.isFinite && rate >= 0 && rate < 1e7 ? Int(rate.rounded()) : 0
                l.cafFormatID = d.fourCC(8)
                l.cafFormatFlags = d.be32(12)
                l.cafBytesPerPacket = Int(d.be32(16))
                l.cafFramesPerPacket = Int(d.be32(20))
                l.channels = Int(d.be32(24))
                l.cafBitsPerChannel = Int(d.be32(28))
                descOffset = off
                sawDesc = true
            case "pakt":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 24 else { throw .corrupt(name, detail: "its 'pakt' chunk is \(size) bytes, under 24") }
                let p = Bytes(file.read(at: off, count: 24))
                let valid = Int64(bitPattern: p.be64(8))
                let priming = Int32(bitPattern: p.be32(16))
                guard valid >= 0, priming >= 0 else {
                    throw .corrupt(name, detail: "its 'pakt' chunk has negative frame counts")
                }
                l.cafValidFrames = Int(clamping: valid)
                l.cafPrimingFrames = Int(priming)
            case "kuki":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                l.cafALACBitDepth = alacBitDepth(Bytes(file.read(at: off, count: min(size, 64))))
            case "data":
                guard !sawData else { break }
                guard sawDesc else { throw .corrupt(name, detail: "its 'data' chunk comes before 'desc'") }
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 4 else { throw .corrupt(name, detail: "its 'data' chunk is \(size) bytes") }
                l.dataOffset = off + 4
                l.dataSize = size - 4
                sawData = true
            default: break
            }
            return true
        }
        try requireChunks(file, name: name, shape: ("desc", sawDesc, heldFrom: nil), audio: ("data", sawData))
        try patchALACFlags(&l, descOffset: descOffset, name: name)
        return l
    }

    /// ffmpeg writes ALAC's `desc` with format flags 0; libsndfile 1.2.0 takes the bit depth from
    /// those flags only (1: 16-bit, 2: 20, 3: 24, 4: 32) and refuses 0. The magic cookie holds the
    /// same depth, so the flags libsndfile sees are filled in from it.
    static func patchALACFlags(_ l: inout ContainerLayout, descOffset: Int, name: String) throws(SoundProblem) {
        guard l.cafFormatID == "alac", l.cafFormatFlags == 0 else { return }
        let flags: [Int: UInt32] = [16: 1, 20: 2, 24: 3, 32: 4]
        guard l.cafALACBitDepth != 0 else { throw .corrupt(name, detail: "its ALAC audio has no 'kuki' magic cookie") }
        guard let flag = flags[l.cafALACBitDepth] else {
            throw .unsupported(
                name, detail: "its ALAC audio is \(l.cafALACBitDepth)-bit; 16, 20, 24 and 32-bit are played")
        }
        l.cafFormatFlags = flag
        l.patches.append(.init(offset: descOffset + 12, bytes: Bytes.encode32(flag, le: false)))
    }

    /// The bit depth in an ALAC magic cookie (Apple's ALACMagicCookieDescription): a 24-byte
    /// ALACSpecificConfig (frameLength 4, compatibleVersion 1, bitDepth 1, …), optionally after a
    /// 12-byte 'frma' atom and a 12-byte 'alac' atom header, as ffmpeg writes it. 0 when absent.
    static func alacBitDepth(_ kuki: Bytes) -> Int {
        var at = 0
        if kuki.fourCC(at + 4) == "frma" { at += 12 }
        if kuki.fourCC(at + 4) == "alac" { at += 12 }
        guard kuki.count >= at + 24 else { return 0 }
        return Int(kuki.u8(at + 5))
    }
}

/// Walks the chunks of a WAV, AIFF/AIFF-C or CAF file before any decoder sees it.
///
/// Why our own walk when libsndfile parses headers too: it is the single place that decides
/// *container*, *truncated* and *corrupt* the same way for every decoder (libsndfile and our IMA4
/// decoder), it finds the facts libsndfile ignores (WAV `fact` frame count, CAF `pakt`), and a header
/// that announces more audio than the file holds — "billions of frames" — is refused here, before
/// anything is allocated. The walk reads only chunk headers and a few small chunks, at most
/// `ClipLimits.maxChunks` of them.
struct ContainerLayout: Equatable {
    var container: Container
    /// Where the audio bytes start and how many there are (checked to lie inside the file).
    var dataOffset = 0
    var dataSize = 0
    var channels = 0
    var sampleRate = 0
    // WAV
    var wavFormatTag: UInt16 = 0
    var wavBitsPerSample = 0
    var wavFactFrames: Int?
    /// ADPCM frames per block (fmt extension), 0 when absent.
    var wavSamplesPerBlock = 0
    // AIFF
    var aiffCompression = "NONE"
    var aiffBits = 0
    /// COMM numSampleFrames: frames for PCM and the laws; packets for 'ima4'.
    var aiffFrames = 0
    // CAF 'desc' and 'pakt'
    var cafFormatID = ""
    var cafFormatFlags: UInt32 = 0
    var cafBytesPerPacket = 0
    var cafFramesPerPacket = 0
    var cafBitsPerChannel = 0
    var cafValidFrames: Int?
    var cafPrimingFrames = 0
}

enum ContainerScanner {
    static func scan(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        if file.size == 0 { throw .empty(name) }
        let head = Bytes(file.read(at: 0, count: 12))
        let magic = head.fourCC(0)
        if head.count < 12 {
            if ["RIFF", "FORM", "caff"].contains(magic) || head.count < 4 {
                throw .truncated(name, detail: "the file ends inside its \(head.count < 4 ? "first bytes" : "header") (\(file.size) bytes)")
            }
        }
        switch (magic, head.fourCC(8)) {
        case ("RIFF", "WAVE"): return try scanRIFF(file, name: name)
        case ("FORM", "AIFF"): return try scanAIFF(file, name: name, aifc: false)
        case ("FORM", "AIFC"): return try scanAIFF(file, name: name, aifc: true)
        case ("caff", _):
            guard head.be16(4) == 1 else { throw .unsupported(name, detail: "CAF version \(head.be16(4)); only version 1 exists") }
            return try scanCAF(file, name: name)
        case ("RIFF", let form), ("FORM", let form):
            throw .unsupported(name, detail: "a \(magic) '\(form)' file is not a sound container we play (WAV, AIFF, AIFF-C, CAF)")
        default:
            throw .unsupported(name, detail: "not a WAV, AIFF, AIFF-C or CAF file")
        }
    }

    /// Calls `body(id, payloadOffset, payloadSize)` for each chunk from `start`; chunk sizes are
    /// 32-bit (RIFF little-endian, IFF big-endian) and padded to even lengths.
    private static func walkIFF(
        _ file: SoundFile, name: String, start: Int, littleEndian: Bool,
        _ body: (String, Int, Int) throws(SoundProblem) -> Void
    ) throws(SoundProblem) {
        var pos = start
        var count = 0
        while pos + 8 <= file.size {
            count += 1
            if count > ClipLimits.maxChunks { throw .corrupt(name, detail: "more than \(ClipLimits.maxChunks) chunks") }
            let h = Bytes(file.read(at: pos, count: 8))
            let id = h.fourCC(0)
            let size = Int(littleEndian ? h.le32(4) : h.be32(4))
            try body(id, pos + 8, size)
            pos += 8 + size + (size & 1)
        }
    }

    private static func requireInside(_ file: SoundFile, name: String, id: String, offset: Int, size: Int) throws(SoundProblem) {
        if offset + size > file.size {
            throw .truncated(name, detail: "its '\(id.trimmingSpaces)' chunk announces \(size) bytes but the file holds \(max(0, file.size - offset))")
        }
    }

    private static func scanRIFF(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: .wav)
        var sawFmt = false, sawData = false
        try walkIFF(file, name: name, start: 12, littleEndian: true) { (id, off, size) throws(SoundProblem) in
            switch id {
            case "fmt ":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 16 else { throw .corrupt(name, detail: "its 'fmt' chunk is \(size) bytes, under 16") }
                let f = Bytes(file.read(at: off, count: min(size, 40)))
                l.wavFormatTag = f.le16(0)
                l.channels = Int(f.le16(2))
                l.sampleRate = Int(f.le32(4))
                l.wavBitsPerSample = Int(f.le16(14))
                if size >= 20 { l.wavSamplesPerBlock = Int(f.le16(18)) }
                if l.wavFormatTag == 0xFFFE, size >= 26 { l.wavFormatTag = f.le16(24) }  // WAVE_FORMAT_EXTENSIBLE sub-format
                sawFmt = true
            case "fact":
                if size >= 4, off + 4 <= file.size { l.wavFactFrames = Int(Bytes(file.read(at: off, count: 4)).le32(0)) }
            case "data":
                guard !sawData else { return }
                try requireInside(file, name: name, id: id, offset: off, size: size)
                l.dataOffset = off
                l.dataSize = size
                sawData = true
            default: break
            }
        }
        guard sawFmt else { throw file.size < 44 ? .truncated(name, detail: "the file ends before its 'fmt' chunk") : .corrupt(name, detail: "no 'fmt' chunk") }
        guard sawData else { throw .truncated(name, detail: "the file ends before its 'data' chunk") }
        return l
    }

    private static func scanAIFF(_ file: SoundFile, name: String, aifc: Bool) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: aifc ? .aifc : .aiff)
        var sawComm = false, sawData = false
        try walkIFF(file, name: name, start: 12, littleEndian: false) { (id, off, size) throws(SoundProblem) in
            switch id {
            case "COMM":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= (aifc ? 22 : 18) else { throw .corrupt(name, detail: "its 'COMM' chunk is \(size) bytes") }
                let c = Bytes(file.read(at: off, count: min(size, 64)))
                l.channels = Int(c.be16(0))
                l.aiffFrames = Int(c.be32(2))
                l.aiffBits = Int(c.be16(6))
                let rate = c.extended80(8)
                l.sampleRate = rate.isFinite && rate >= 0 && rate < 1e7 ? Int(rate.rounded()) : 0
                if aifc { l.aiffCompression = c.fourCC(18) }
                sawComm = true
            case "SSND":
                guard !sawData else { return }
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 8 else { throw .corrupt(name, detail: "its 'SSND' chunk is \(size) bytes") }
                let skip = Int(Bytes(file.read(at: off, count: 4)).be32(0))
                guard skip <= size - 8 else { throw .corrupt(name, detail: "its 'SSND' offset points past the chunk") }
                l.dataOffset = off + 8 + skip
                l.dataSize = size - 8 - skip
                sawData = true
            default: break
            }
        }
        guard sawComm else { throw file.size < 54 ? .truncated(name, detail: "the file ends before its 'COMM' chunk") : .corrupt(name, detail: "no 'COMM' chunk") }
        guard sawData else { throw .truncated(name, detail: "the file ends before its 'SSND' chunk") }
        return l
    }

    private static func scanCAF(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: .caf)
        var sawDesc = false, sawData = false
        var pos = 8
        var count = 0
        while pos + 12 <= file.size {
            count += 1
            if count > ClipLimits.maxChunks { throw .corrupt(name, detail: "more than \(ClipLimits.maxChunks) chunks") }
            let h = Bytes(file.read(at: pos, count: 12))
            let id = h.fourCC(0)
            let raw = Int64(bitPattern: h.be64(4))
            let off = pos + 12
            if id == "data" && raw == -1 {
                // "Size unknown": the audio runs to the end of the file; only valid for the last chunk.
                guard sawDesc else { throw .corrupt(name, detail: "its 'data' chunk comes before 'desc'") }
                guard file.size - off >= 4 else { throw .truncated(name, detail: "the file ends inside its 'data' chunk") }
                l.dataOffset = off + 4  // skip mEditCount
                l.dataSize = file.size - off - 4
                sawData = true
                break
            }
            guard raw >= 0, raw <= Int64(Int.max / 2) else { throw .corrupt(name, detail: "its '\(id)' chunk has size \(raw)") }
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
                sawDesc = true
            case "pakt":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 24 else { throw .corrupt(name, detail: "its 'pakt' chunk is \(size) bytes, under 24") }
                let p = Bytes(file.read(at: off, count: 24))
                let valid = Int64(bitPattern: p.be64(8))
                let priming = Int32(bitPattern: p.be32(16))
                guard valid >= 0, priming >= 0 else { throw .corrupt(name, detail: "its 'pakt' chunk has negative frame counts") }
                l.cafValidFrames = Int(clamping: valid)
                l.cafPrimingFrames = Int(priming)
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
            pos = off + size
        }
        guard sawDesc else { throw .truncated(name, detail: "the file ends before its 'desc' chunk") }
        guard sawData else { throw .truncated(name, detail: "the file ends before its 'data' chunk") }
        return l
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// Walks the chunks of a WAV (RIFF, RIFX, RF64), AIFF/AIFF-C or CAF file before any decoder sees it,
/// and the headers of a FLAC, Ogg or MPEG audio file (`ContainerScanner+Compressed`).
///
/// Why our own walk when libsndfile parses headers too: it is the single place that decides
/// *container*, *truncated* and *corrupt* the same way for every decoder (libsndfile and our IMA4
/// decoder), it finds the facts libsndfile ignores (WAV `fact` frame count, CAF `pakt`), and a header
/// that announces more audio than the file holds — "billions of frames" — is refused here, before
/// anything is allocated. The walk reads only chunk headers and a few small chunks, at most
/// `ClipLimits.maxChunks` of them.
///
/// It also takes in what programs write when their output is a pipe and they cannot go back to fill
/// in the sizes (`espeak-ng --stdout`, `ffmpeg … pipe:`, `sox … -`): the known placeholder values
/// mean "the audio runs to the end of the file". Where libsndfile would misread such a header (a CAF
/// `data` of size -1, an RF64 `ds64` left at zero, ffmpeg's ALAC `desc` without flags), the layout
/// carries `patches`: the true values, laid over the header bytes in the view libsndfile reads
/// (`SndfileView`); the file itself is never written.
struct ContainerLayout: Equatable {
    /// Bytes to show libsndfile in place of the file's own at `offset`.
    struct Patch: Equatable {
        var offset: Int
        var bytes: [UInt8]
    }

    var container: Container
    /// Where the audio bytes start and how many there are (checked to lie inside the file).
    var dataOffset = 0
    var dataSize = 0
    var channels = 0
    var sampleRate = 0
    /// The writer left placeholder sizes (its output was a pipe); the audio runs to the end of the file.
    var streamed = false
    var patches: [Patch] = []
    // WAV
    /// "RIFF", "RIFX" (big-endian) or "RF64" (64-bit sizes in 'ds64').
    var wavForm = "RIFF"
    var wavFormatTag: UInt16 = 0
    var wavBitsPerSample = 0
    var wavBlockAlign = 0
    var wavFactFrames: Int?
    /// ADPCM frames per block (fmt extension), 0 when absent.
    var wavSamplesPerBlock = 0
    // AIFF
    var aiffCompression = "NONE"
    var aiffBits = 0
    /// COMM numSampleFrames: frames for PCM and the laws; packets for 'ima4'. Nil when the writer
    /// left a placeholder there (`streamed`).
    var aiffFrames: Int?
    // CAF 'desc' and 'pakt'
    var cafFormatID = ""
    var cafFormatFlags: UInt32 = 0
    var cafBytesPerPacket = 0
    var cafFramesPerPacket = 0
    var cafBitsPerChannel = 0
    var cafValidFrames: Int?
    var cafPrimingFrames = 0
    /// ALAC's bit depth from the 'kuki' magic cookie, 0 when there is none.
    var cafALACBitDepth = 0
    // Ogg: the codec its first packet names ("Vorbis", "Opus", "FLAC", "Speex", …).
    var oggCodec = ""
    // FLAC STREAMINFO: bits per sample, and the total frames (nil when the encoder left 0).
    var flacBits = 0
    var flacTotalFrames: Int?
    // MPEG audio: the frame walk.
    var mpeg: MPEGStream?
}

enum ContainerScanner {
    static func scan(_ file: SoundFile, name: String) throws(SoundProblem) -> ContainerLayout {
        if file.size == 0 { throw .empty(name) }
        let head = Bytes(file.read(at: 0, count: 12))
        let magic = head.fourCC(0)
        if head.count < 12 {
            if ["RIFF", "RIFX", "RF64", "FORM", "caff", "OggS", "fLaC"].contains(magic) || head.count < 4 {
                throw .truncated(
                    name,
                    detail: "the file ends inside its \(head.count < 4 ? "first bytes" : "header") (\(file.size) bytes)"
                )
            }
        }
        switch (magic, head.fourCC(8)) {
        case ("RIFF", "WAVE"), ("RIFX", "WAVE"), ("RF64", "WAVE"): return try scanWAV(file, name: name, form: magic)
        case ("FORM", "AIFF"): return try scanAIFF(file, name: name, aifc: false)
        case ("FORM", "AIFC"): return try scanAIFF(file, name: name, aifc: true)
        case ("caff", _):
            guard head.be16(4) == 1 else {
                throw .unsupported(name, detail: "CAF version \(head.be16(4)); only version 1 exists")
            }
            return try scanCAF(file, name: name)
        case ("OggS", _): return try scanOgg(file, name: name)
        case ("fLaC", _): return try scanFLAC(file, name: name, at: 0)
        case ("RIFF", let form), ("RIFX", let form), ("RF64", let form), ("FORM", let form):
            throw .unsupported(
                name, detail: "a \(magic) '\(form)' file is not a sound container we play (WAV, AIFF, AIFF-C, CAF)")
        default:
            if looksLikeMPEG(head) { return try scanMPEG(file, name: name) }
            throw .unsupported(name, detail: "not a WAV, AIFF, AIFF-C, CAF, FLAC, Ogg or MP3 file")
        }
    }

    /// Calls `body(id, payloadOffset, payloadSize)` for each chunk from `start` while it returns
    /// true; chunk sizes are 32-bit (RIFF little-endian, RIFX and IFF big-endian) and padded to
    /// even lengths.
    static func walkIFF(
        _ file: SoundFile, name: String, start: Int, littleEndian: Bool,
        _ body: (String, Int, Int) throws(SoundProblem) -> Bool
    ) throws(SoundProblem) {
        try walkChunks(file, name: name, start: start, header: .iff(littleEndian: littleEndian)) {
            (id, offset, size) throws(SoundProblem) -> Bool in try body(id, offset, Int(size))
        }
    }

    /// How a container's chunk headers read: a four-character id, then the payload's size.
    enum ChunkHeader {
        /// A 32-bit size (RIFF little-endian, RIFX and IFF big-endian); payloads padded to even
        /// lengths.
        case iff(littleEndian: Bool)
        /// CAF: a signed 64-bit big-endian size, -1 for "unknown"; no padding.
        case caf

        var count: Int { if case .iff = self { 8 } else { 12 } }

        func size(_ h: Bytes) -> Int64 {
            switch self {
            case .iff(let le): Int64(h.u32(4, le: le))
            case .caf: Int64(bitPattern: h.be64(4))
            }
        }

        func padding(_ size: Int64) -> Int { if case .iff = self { Int(size & 1) } else { 0 } }
    }

    /// Calls `body(id, payloadOffset, size)` for each chunk from `start` while it returns true. A
    /// size that `body` lets pass must be one the walk can step over (not negative).
    static func walkChunks(
        _ file: SoundFile, name: String, start: Int, header: ChunkHeader,
        _ body: (String, Int, Int64) throws(SoundProblem) -> Bool
    ) throws(SoundProblem) {
        var pos = start
        var count = 0
        while pos + header.count <= file.size {
            count += 1
            if count > ClipLimits.maxChunks { throw .corrupt(name, detail: "more than \(ClipLimits.maxChunks) chunks") }
            let h = Bytes(file.read(at: pos, count: header.count))
            let size = header.size(h)
            guard try body(h.fourCC(0), pos + header.count, size) else { return }
            pos += header.count + Int(size) + header.padding(size)
        }
    }

    /// The refusal when a walk ended without the chunk that gives the shape (`COMM`, `fmt `,
    /// `desc`) or without the audio: the file ends before it, or, when the file is long enough to
    /// have held the shape chunk (`heldFrom` bytes; nil: never said), it has none.
    static func requireChunks(
        _ file: SoundFile, name: String, shape: (id: String, seen: Bool, heldFrom: Int?),
        audio: (id: String, seen: Bool)
    ) throws(SoundProblem) {
        guard shape.seen else {
            if let heldFrom = shape.heldFrom, file.size >= heldFrom {
                throw .corrupt(name, detail: "no '\(shape.id)' chunk")
            }
            throw .truncated(name, detail: "the file ends before its '\(shape.id)' chunk")
        }
        guard audio.seen else { throw .truncated(name, detail: "the file ends before its '\(audio.id)' chunk") }
    }

    static func requireInside(_ file: SoundFile, name: String, id: String, offset: Int, size: Int) throws(SoundProblem)
    {
        if offset + size > file.size {
            throw .truncated(
                name,
                detail:
                    "its '\(id.trimmingSpaces)' chunk announces \(size) bytes but the file holds \(max(0, file.size - offset))"
            )
        }
    }

    /// True when the outer size field at byte 4 (RIFF, RIFX, FORM) is not the file's: a writer
    /// that left the audio's size as a placeholder left this one too, while a file whose audio size
    /// alone was changed (or damaged) still carries its true outer size.
    static func outerSizeIsPlaceholder(_ file: SoundFile, littleEndian: Bool) -> Bool {
        Int(Bytes(file.read(at: 4, count: 4)).u32(0, le: littleEndian)) + 8 != file.size
    }

    /// A 32-bit size for a patch: the true value, or the largest a 32-bit field holds (a file of
    /// 4 GB would be far over the 30 s limit; only the first 30 s are ever read).
    static func size32(_ v: Int) -> UInt32 { UInt32(clamping: max(0, v)) }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

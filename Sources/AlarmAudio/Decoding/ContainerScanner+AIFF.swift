/// AIFF and AIFF-C: big-endian IFF chunks; `COMM` gives the shape, `SSND` the audio.
extension ContainerScanner {
    /// `SSND` sizes that programs writing an AIFF to a pipe leave in place of the real one:
    /// ffmpeg writes 0, sox 0x7F000008 (its 0x7F000000 bytes of audio plus the 8-byte SSND header).
    static let aiffPlaceholderSizes: Set<Int> = [0, 0x7F00_0008]

    static func scanAIFF(_ file: SoundFile, name: String, aifc: Bool) throws(SoundProblem) -> ContainerLayout {
        var l = ContainerLayout(container: aifc ? .aifc : .aiff)
        var sawComm = false
        var sawData = false
        try walkIFF(file, name: name, start: 12, littleEndian: false) { (id, off, size) throws(SoundProblem) -> Bool in
            switch id {
            case "COMM":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= (aifc ? 22 : 18) else {
                    throw .corrupt(name, detail: "its 'COMM' chunk is \(size) bytes")
                }
                let c = Bytes(file.read(at: off, count: min(size, 64)))
                l.channels = Int(c.be16(0))
                l.aiffFrames = Int(c.be32(2))
                l.aiffBits = Int(c.be16(6))
                let rate = c.extended80(8)
                l.sampleRate = rate.isFinite && rate >= 0 && rate < 1e7 ? Int(rate.rounded()) : 0
                if aifc { l.aiffCompression = c.fourCC(18) }
                sawComm = true
            case "SSND":
                guard !sawData else { return true }
                let rest = file.size - off
                if aiffPlaceholderSizes.contains(size) && (size > rest || size < 8) && rest >= 8
                    && outerSizeIsPlaceholder(file, littleEndian: false)
                {
                    // Written to a pipe: the audio runs to the end of the file, and COMM's frame
                    // count (0 from ffmpeg, 0x7F000000 bytes' worth from sox) is a placeholder too.
                    let skip = Int(Bytes(file.read(at: off, count: 4)).be32(0))
                    guard skip <= rest - 8 else {
                        throw .corrupt(name, detail: "its 'SSND' offset points past the end of the file")
                    }
                    l.streamed = true
                    l.dataOffset = off + 8 + skip
                    l.dataSize = rest - 8 - skip
                    l.patches.append(.init(offset: 4, bytes: Bytes.encode32(size32(file.size - 8), le: false)))
                    l.patches.append(.init(offset: off - 4, bytes: Bytes.encode32(size32(rest), le: false)))
                    sawData = true
                    return false
                }
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 8 else { throw .corrupt(name, detail: "its 'SSND' chunk is \(size) bytes") }
                let skip = Int(Bytes(file.read(at: off, count: 4)).be32(0))
                guard skip <= size - 8 else { throw .corrupt(name, detail: "its 'SSND' offset points past the chunk") }
                l.dataOffset = off + 8 + skip
                l.dataSize = size - 8 - skip
                sawData = true
            default: break
            }
            return true
        }
        try requireChunks(file, name: name, shape: ("COMM", sawComm, heldFrom: 54), audio: ("SSND", sawData))
        if l.streamed { l.aiffFrames = nil }
        return l
    }
}

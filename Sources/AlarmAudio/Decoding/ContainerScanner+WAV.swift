/// WAV in its three forms: RIFF (little-endian), RIFX (big-endian fields and samples, as `sox -B`
/// writes), and RF64 (EBU Tech 3306: 64-bit sizes in a leading `ds64` chunk, as `ffmpeg -rf64`
/// writes).
extension ContainerScanner {
    /// Data sizes that programs writing a WAV to a pipe leave in place of the real one: ffmpeg
    /// writes 0xFFFFFFFF; sox and espeak-ng write 0x7FFFF000 (sox's `MS_UNSPEC`).
    static let wavPlaceholderSizes: Set<Int> = [0xFFFF_FFFF, 0x7FFF_F000]

    static func scanWAV(_ file: SoundFile, name: String, form: String) throws(SoundProblem) -> ContainerLayout {
        let le = form != "RIFX"
        var l = ContainerLayout(container: .wav)
        l.wavForm = form
        var sawFmt = false
        var sawData = false
        // RF64: where the ds64 fields sit, and what they hold.
        var ds64Offset: Int?
        var ds64RiffSize: UInt64 = 0
        var ds64DataSize: UInt64 = 0
        try walkIFF(file, name: name, start: 12, littleEndian: le) { (id, off, size) throws(SoundProblem) -> Bool in
            switch id {
            case "ds64" where form == "RF64":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 24 else { throw .corrupt(name, detail: "its 'ds64' chunk is \(size) bytes, under 24") }
                let d = Bytes(file.read(at: off, count: 24))
                ds64Offset = off
                ds64RiffSize = d.le64(0)
                ds64DataSize = d.le64(8)
            case "fmt ":
                try requireInside(file, name: name, id: id, offset: off, size: size)
                guard size >= 16 else { throw .corrupt(name, detail: "its 'fmt' chunk is \(size) bytes, under 16") }
                let f = Bytes(file.read(at: off, count: min(size, 40)))
                l.wavFormatTag = f.u16(0, le: le)
                l.channels = Int(f.u16(2, le: le))
                l.sampleRate = Int(f.u32(4, le: le))
                l.wavBlockAlign = Int(f.u16(12, le: le))
                l.wavBitsPerSample = Int(f.u16(14, le: le))
                if size >= 20 { l.wavSamplesPerBlock = Int(f.u16(18, le: le)) }
                if l.wavFormatTag == 0xFFFE, size >= 26 {  // WAVE_FORMAT_EXTENSIBLE: its sub-format counts
                    l.wavFormatTag = f.u16(24, le: le)
                    // libsndfile 1.2.0 misreads the sub-format GUID of a big-endian file (sox -B -b 24
                    // writes one), so its view gets the plain format tag that GUID stands for.
                    if !le {
                        l.patches.append(
                            .init(offset: off, bytes: Bytes.encode32(UInt32(l.wavFormatTag), le: false).suffix(2)))
                    }
                }
                sawFmt = true
            case "fact":
                if size >= 4, off + 4 <= file.size {
                    l.wavFactFrames = Int(Bytes(file.read(at: off, count: 4)).u32(0, le: le))
                }
            case "data":
                guard !sawData else { return true }
                sawData = true
                l.dataOffset = off
                let rest = file.size - off
                if form == "RF64" && size == 0xFFFF_FFFF {
                    guard let ds64Offset else {
                        throw .corrupt(name, detail: "its 'data' size refers to a 'ds64' chunk it does not have")
                    }
                    if ds64DataSize == 0 && ds64RiffSize == 0 {
                        // ffmpeg -rf64 to a pipe leaves the whole 'ds64' at zero.
                        l.streamed = true
                        l.dataSize = rest
                        let frames = l.wavBlockAlign > 0 ? rest / l.wavBlockAlign : 0
                        l.patches.append(
                            .init(
                                offset: ds64Offset,
                                bytes: Bytes.encode64(UInt64(file.size - 8), le: true)
                                    + Bytes.encode64(UInt64(rest), le: true) + Bytes.encode64(UInt64(frames), le: true))
                        )
                    } else {
                        guard ds64DataSize <= UInt64(rest) else {
                            throw .truncated(
                                name,
                                detail:
                                    "its 'ds64' chunk announces \(ds64DataSize) bytes of audio but the file holds \(rest)"
                            )
                        }
                        l.dataSize = Int(ds64DataSize)
                    }
                    return false  // a 64-bit size cannot be stepped over with the 32-bit walk
                }
                if size > rest && wavPlaceholderSizes.contains(size) && outerSizeIsPlaceholder(file, littleEndian: le) {
                    l.streamed = true
                    l.dataSize = rest
                    l.patches.append(.init(offset: 4, bytes: Bytes.encode32(size32(file.size - 8), le: le)))
                    l.patches.append(.init(offset: off - 4, bytes: Bytes.encode32(size32(rest), le: le)))
                    return false  // it runs to the end of the file
                }
                try requireInside(file, name: name, id: id, offset: off, size: size)
                l.dataSize = size
            default: break
            }
            return true
        }
        try requireChunks(file, name: name, shape: ("fmt", sawFmt, heldFrom: 44), audio: ("data", sawData))
        return l
    }
}

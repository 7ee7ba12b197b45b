import AlarmCore
import AlarmSystem
import CSndfile
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `alarm sounds cut` (issue #24): a stretch of at most 30 s from any file the decoder reads, of
/// any length, made into a clip of its own, so that a person wakes to the chorus of a song while
/// the 30-second rule stands.
///
/// The stretch is decoded exactly (every frame before it is decoded and dropped, never sought
/// approximately), faded in and out over `fade` seconds so it does not click, and written as
/// 16-bit FLAC or CAF: encoded in memory, read back to check it, then written with `AtomicFile`
/// (a temporary file, fsync, rename), so a full disk leaves nothing half-written.
public enum SoundCutter {
    /// The fade at each end, in seconds (shorter for a very short clip: at most a quarter of it).
    public static let fade = 0.05

    /// Why a cut was refused, in words for the person who asked.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// The source cannot be read (missing, unreadable, corrupt, a format we do not decode).
        case source(SoundProblem)
        /// `--from` is at or after the end of the source (its length in seconds).
        case fromPastEnd(from: Double, length: Double)
        /// `--length` is not more than 0 or over the limit.
        case length(Double)
        /// The clip's name is not a plain file name, or has an extension we do not write.
        case name(String, why: String)
        /// A sound of that name exists (and `--force` was not given).
        case exists(String)
        /// The clip could not be written; nothing was left behind.
        case write(String, detail: String)

        public var description: String {
            switch self {
            case .source(let p): "cannot cut: \(p.description)"
            case .fromPastEnd(let from, let length):
                "cannot cut: --from \(Text.fixed(from, 2)) s is at or past the end of the file (\(Text.fixed(length, 2)) s long)"
            case .length(let l):
                "cannot cut \(Text.fixed(l, 2)) s: a clip is more than 0 s and at most \(ClipLimits.maxSeconds) s long"
            case .name(let n, let why): "cannot name the clip '\(n)': \(why)"
            case .exists(let path): "\(path) exists; give another --name, or --force to replace it"
            case .write(let path, let detail): "cannot write \(path): \(detail); nothing was written"
            }
        }
    }

    /// The clip file's container, from the name's extension.
    public enum Output: String, Sendable {
        case flac, caf
    }

    /// The file name a clip gets: `name` as given when it ends in `.flac` or `.caf`, else
    /// `name.flac`. Refuses what `SoundLibrary.checkName` refuses, and other sound extensions
    /// (a `.wav` name holding FLAC would mislead).
    public static func fileName(_ name: String) throws(Refusal) -> (String, Output) {
        do throws(SoundProblem) { try SoundLibrary.checkName(name) } catch {
            if case .badName(_, let why) = error { throw .name(name, why: why) }
            throw .name(name, why: error.description)
        }
        let lower = name.lowercased()
        if lower.hasSuffix(".flac") { return (name, .flac) }
        if lower.hasSuffix(".caf") { return (name, .caf) }
        for ext in [".wav", ".aif", ".aiff", ".aifc", ".ogg", ".oga", ".opus", ".mp3"] where lower.hasSuffix(ext) {
            throw .name(
                name, why: "a clip is written as FLAC or CAF; end the name in .flac or .caf, or give no extension")
        }
        return (name + ".flac", .flac)
    }

    /// Decodes `length` seconds of the file at `path` from `from` seconds (fewer when the file
    /// ends first) and fades its ends. `name` is how messages call the file.
    public static func cut(path: String, name: String, from: Double, length: Double) throws(Refusal) -> AudioClip {
        try cut(name: name, from: from, length: length) { () throws(SoundProblem) in
            try SoundFile(path: path, name: name)
        }
    }

    /// `cut(path:...)` reading `descriptor` (taken over and closed), opened by root's `alarm` for
    /// its decoding child, which is no longer root (issue #42).
    public static func cut(descriptor: Int32, name: String, from: Double, length: Double) throws(Refusal) -> AudioClip {
        try cut(name: name, from: from, length: length) { () throws(SoundProblem) in
            try SoundFile(descriptor: descriptor, name: name)
        }
    }

    private static func cut(
        name: String, from: Double, length: Double, opening: () throws(SoundProblem) -> SoundFile
    ) throws(Refusal) -> AudioClip {
        guard length > 0, length <= ClipLimits.maxDuration else { throw .length(length) }
        guard from >= 0, from.isFinite else { throw .fromPastEnd(from: from, length: 0) }
        var piece: Piece
        do throws(SoundProblem) {
            let file = try opening()
            let layout = try ContainerScanner.scan(file, name: name)
            try Codecs.check(layout, name: name)
            if layout.container == .caf && layout.cafFormatID == "ima4" {
                piece = try cutCAFIMA4(file, layout, name: name, from: from, length: length)
            } else {
                piece = try cutWithSndfile(file, layout, name: name, from: from, length: length)
            }
        } catch {
            if case .empty = error { throw .fromPastEnd(from: from, length: 0) }
            throw .source(error)
        }
        if let end = piece.sourceEnd { throw .fromPastEnd(from: from, length: end) }
        applyFades(&piece.clip)
        return piece.clip
    }

    /// The stretch decoded, or where the source ended when it ended before the stretch began.
    struct Piece {
        var clip: AudioClip
        /// Seconds; set only when the source ends at or before `from`.
        var sourceEnd: Double?
    }

    /// The first frame and the frame count of the stretch at `rate`.
    static func window(from: Double, length: Double, rate: Int) -> (Int, Int) {
        (
            Int((from * Double(rate)).rounded()),
            min(Int((length * Double(rate)).rounded()), ClipLimits.maxFrames(rate: rate))
        )
    }

    static func cutWithSndfile(
        _ file: SoundFile, _ l: ContainerLayout, name: String, from: Double, length: Double
    ) throws(SoundProblem) -> Piece {
        let reader = try SndfileReader.open(file, l, name: name)
        let (start, count) = window(from: from, length: length, rate: reader.rate)
        let sndfileFrames = Int(clamping: reader.info.frames)
        if let m = l.mpeg, m.pcmFrames - sndfileFrames > m.first.samplesPerFrame, start + count > sndfileFrames {
            // libsndfile would stop early in this MP3 (see `SoundDecoder.checkMPEGLength`).
            throw SoundDecoder.mpegReadsShort(m, sndfileFrames: sndfileFrames, rate: reader.rate, name: name)
        }
        let skipped = try reader.skip(min(start, reader.realFrames))
        var samples: [Float] = []
        samples.reserveCapacity(count * reader.channels)
        if skipped == start { try reader.read(min(count, max(0, reader.realFrames - start)), into: &samples) }
        for i in samples.indices { samples[i] = samples[i].isFinite ? max(-1, min(1, samples[i])) : 0 }
        let clip = AudioClip(samples: samples, channels: reader.channels, sampleRate: reader.rate)
        return Piece(clip: clip, sourceEnd: clip.frameCount == 0 ? Double(skipped) / Double(reader.rate) : nil)
    }

    /// Apple IMA4 in CAF, our own decoder: its packets are independent, so only those of the
    /// stretch are read.
    static func cutCAFIMA4(
        _ file: SoundFile, _ l: ContainerLayout, name: String, from: Double, length: Double
    ) throws(SoundProblem) -> Piece {
        try SoundDecoder.checkShape(channels: l.channels, rate: l.sampleRate, name: name)
        let packetBytes = IMA4.bytesPerChannelBlock * l.channels
        let total = min(
            (l.dataSize / packetBytes) * IMA4.framesPerPacket - l.cafPrimingFrames, l.cafValidFrames ?? .max)
        let (start, wanted) = window(from: from, length: length, rate: l.sampleRate)
        guard start < total else {
            return Piece(
                clip: AudioClip(samples: [], channels: l.channels, sampleRate: l.sampleRate),
                sourceEnd: Double(max(0, total)) / Double(l.sampleRate))
        }
        let count = min(wanted, total - start)
        let first = l.cafPrimingFrames + start
        let p0 = first / IMA4.framesPerPacket
        let p1 = (first + count + IMA4.framesPerPacket - 1) / IMA4.framesPerPacket
        let bytes = file.read(at: l.dataOffset + p0 * packetBytes, count: (p1 - p0) * packetBytes)
        guard bytes.count == (p1 - p0) * packetBytes else {
            throw .truncated(name, detail: "the file ends inside its audio")
        }
        let pcm = IMA4.decode(bytes, channels: l.channels, maxPackets: p1 - p0)
        let offset = (first - p0 * IMA4.framesPerPacket) * l.channels
        let samples = pcm[offset..<(offset + count * l.channels)].map { Float($0) / 32768 }
        return Piece(clip: AudioClip(samples: samples, channels: l.channels, sampleRate: l.sampleRate))
    }

    /// Raised-cosine fades of `fade` seconds (at most a quarter of the clip) at both ends.
    static func applyFades(_ clip: inout AudioClip) {
        let n = min(Int(fade * Double(clip.sampleRate)), clip.frameCount / 4)
        guard n > 0 else { return }
        let frames = clip.frameCount
        let ch = clip.channels
        for i in 0..<n {
            let g = Float(0.5 - 0.5 * cos(Double.pi * Double(i) / Double(n)))
            for c in 0..<ch {
                clip.samples[i * ch + c] *= g
                clip.samples[(frames - 1 - i) * ch + c] *= g
            }
        }
    }

    /// Encodes `clip` as 16-bit FLAC or CAF in memory and reads it back: the file's bytes, checked
    /// to hold every frame.
    public static func encode(_ clip: AudioClip, as output: Output) throws(Refusal) -> [UInt8] {
        let memory = MemoryFile()
        var info = SF_INFO()
        info.samplerate = Int32(clip.sampleRate)
        info.channels = Int32(clip.channels)
        let major = output == .flac ? SF_FORMAT_FLAC : SF_FORMAT_CAF
        info.format = Int32(major | SF_FORMAT_PCM_16)
        guard let sf = memory.open(Int32(SFM_WRITE), &info) else {
            throw .write(output.rawValue, detail: "libsndfile: \(String(cString: sf_strerror(nil)))")
        }
        _ = sf_command(sf, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let written = clip.samples.withUnsafeBufferPointer {
            sf_writef_float(sf, $0.baseAddress, sf_count_t(clip.frameCount))
        }
        let error = sf_error(sf) != 0 ? String(cString: sf_strerror(sf)) : nil
        sf_close(sf)
        guard written == clip.frameCount, error == nil else {
            throw .write(
                output.rawValue, detail: "libsndfile: \(error ?? "wrote \(written) of \(clip.frameCount) frames")")
        }
        // Read back: the bytes must decode to as many frames as were written.
        let check = MemoryFile(memory.bytes)
        var back = SF_INFO()
        guard let r = check.open(Int32(SFM_READ), &back) else {
            throw .write(
                output.rawValue,
                detail: "the encoded clip does not read back (libsndfile: \(String(cString: sf_strerror(nil))))")
        }
        sf_close(r)
        guard back.frames == clip.frameCount, Int(back.channels) == clip.channels,
            Int(back.samplerate) == clip.sampleRate
        else {
            throw .write(
                output.rawValue, detail: "the encoded clip reads back as \(back.frames) frames, not \(clip.frameCount)")
        }
        return memory.bytes
    }

    /// Writes `bytes` as `directory/fileName` atomically; refuses to replace an existing file
    /// unless `force`. The path written.
    public static func write(
        _ bytes: [UInt8], directory: String, fileName: String, force: Bool
    ) throws(Refusal) -> String {
        let path = directory + "/" + fileName
        do {
            try Directories.create(directory)
            // 0644 whatever the writer's umask: alarmd (the user alarm) plays what `alarm sounds cut`
            // run as root or as its owner under umask 077 wrote (issue #42: a 0600 clip rang the
            // default tone instead).
            try AtomicFile.write(bytes, to: path, permissions: 0o644, ignoringUmask: true, replacing: force)
        } catch let e as SystemError where e.errno == EEXIST {
            throw .exists(path)
        } catch let e as SystemError {
            throw .write(path, detail: String(cString: strerror(e.errno)))
        } catch {
            throw .write(path, detail: "\(error)")
        }
        return path
    }
}

/// A growable byte buffer libsndfile reads and writes through `sf_open_virtual` (the FLAC encoder
/// seeks back to fill in its STREAMINFO when it closes).
final class MemoryFile {
    private(set) var bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    func open(_ mode: Int32, _ info: inout SF_INFO) -> OpaquePointer? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { sf_count_t(MemoryFile.from($0).bytes.count) },
            seek: { offset, whence, me in
                let m = MemoryFile.from(me)
                guard
                    let target = SndfileView.seekTarget(
                        Int(offset), whence: whence, position: m.position, length: m.bytes.count)
                else { return -1 }
                m.position = target
                return sf_count_t(m.position)
            },
            read: { buffer, count, me in
                let m = MemoryFile.from(me)
                guard let buffer, count > 0, m.position < m.bytes.count else { return 0 }
                let n = min(Int(count), m.bytes.count - m.position)
                m.bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + m.position, byteCount: n) }
                m.position += n
                return sf_count_t(n)
            },
            write: { buffer, count, me in
                let m = MemoryFile.from(me)
                guard let buffer, count > 0 else { return 0 }
                let n = Int(count)
                if m.position + n > m.bytes.count {
                    m.bytes.append(contentsOf: repeatElement(0, count: m.position + n - m.bytes.count))
                }
                m.bytes.withUnsafeMutableBytes {
                    $0.baseAddress!.advanced(by: m.position).copyMemory(from: buffer, byteCount: n)
                }
                m.position += n
                return sf_count_t(n)
            },
            tell: { sf_count_t(MemoryFile.from($0).position) })
        // The handle is closed before this object goes away (both uses are within one function).
        return sf_open_virtual(&io, mode, &info, Unmanaged.passUnretained(self).toOpaque())
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> MemoryFile {
        Unmanaged<MemoryFile>.fromOpaque(pointer!).takeUnretainedValue()
    }
}

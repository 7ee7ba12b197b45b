import FoundationEssentials
import AlarmCore
import CSndfile

/// What reading one sound file found: its format when the header told it, its length, and either
/// the decoded clip or why it will not play. `alarm sounds` prints this; the daemon uses `result`.
public struct SoundInspection: Sendable {
    public var name: String
    public var path: String
    public var format: SoundFormat?
    /// Seconds, from the frames actually decoded (for over-long clips: at least that long).
    public var duration: Double?
    public var result: Result<AudioClip, SoundProblem>

    public init(
        name: String, path: String, format: SoundFormat?, duration: Double?, result: Result<AudioClip, SoundProblem>
    ) {
        self.name = name
        self.path = path
        self.format = format
        self.duration = duration
        self.result = result
    }

    public var playable: Bool { if case .success = result { true } else { false } }
    public var problem: SoundProblem? { if case .failure(let p) = result { p } else { nil } }
}

/// Decodes a sound file into memory, bounded: at most `ClipLimits.maxFrames + 1` frames are ever
/// read, in fixed-size pieces, whatever the header claims; never more than 30 s of audio is kept.
public enum SoundDecoder {
    /// Reads `path` (already resolved and checked by `SoundLibrary`) and reports what it holds.
    /// `name` is what the user typed; it is used in every message.
    public static func inspect(path: String, name: String) -> SoundInspection {
        inspect(path: path, name: name) { () throws(SoundProblem) in try SoundFile(path: path, name: name) }
    }

    /// `inspect(path:name:)` reading `descriptor` (taken over and closed), opened by someone else:
    /// root's `alarm` opens the file and its decoding child, no longer root, reads it (issue #42).
    /// `path` only names the file in the inspection.
    public static func inspect(descriptor: Int32, path: String, name: String) -> SoundInspection {
        inspect(path: path, name: name) { () throws(SoundProblem) in try SoundFile(descriptor: descriptor, name: name) }
    }

    /// Opens `path` as `inspect(path:name:)` and `SoundCutter.cut(path:...)` do (read-only, a final
    /// symlink not followed, never blocking): the descriptor, close-on-exec, for
    /// `inspect(descriptor:path:name:)`, in this process or in a child that gets it.
    public static func open(path: String, name: String) throws(SoundProblem) -> Int32 {
        try SoundFile.open(path: path, name: name)
    }

    /// `open(path:name:)` following no symlink anywhere on the way, for root's `alarm` (issue #42):
    /// `path` is absolute and already resolved, and the file opened is refused unless the kernel
    /// says it is at `path` (a directory swapped for a symlink since it was resolved).
    public static func openWithoutSymlinks(path: String, name: String) throws(SoundProblem) -> Int32 {
        try SoundFile.openWithoutSymlinks(path: path, name: name)
    }

    private static func inspect(
        path: String, name: String, opening: () throws(SoundProblem) -> SoundFile
    ) -> SoundInspection {
        var out = SoundInspection(name: name, path: path, format: nil, duration: nil, result: .failure(.empty(name)))
        do throws(SoundProblem) {
            let file = try opening()
            let layout = try ContainerScanner.scan(file, name: name)
            out.format = SoundFormat(
                container: layout.container, format: headerFormatName(layout),
                channels: layout.channels, sampleRate: layout.sampleRate)
            try Codecs.check(layout, name: name)
            var clip: AudioClip
            if layout.container == .caf && layout.cafFormatID == "ima4" {
                clip = try decodeCAFIMA4(file, layout, name: name, into: &out)
            } else {
                clip = try decodeWithSndfile(file, layout, name: name, into: &out)
            }
            out.duration = clip.duration
            if clip.frameCount == 0 { throw .empty(name) }
            // alsa-lib's plug layer refuses rates under 4000 Hz: such clips are raised here.
            if clip.sampleRate < ClipLimits.minDeviceRate {
                clip = Resampler.upsample(clip, by: Resampler.factor(for: clip.sampleRate))
            }
            out.result = .success(clip)
        } catch {
            out.result = .failure(error)
        }
        return out
    }

    static func checkShape(channels: Int, rate: Int, name: String) throws(SoundProblem) {
        guard channels >= 1 else { throw .corrupt(name, detail: "its header says \(channels) channels") }
        guard channels <= ClipLimits.maxChannels else {
            throw .unsupported(name, detail: "it has \(channels) channels; only mono and stereo are played")
        }
        guard rate >= ClipLimits.minSampleRate, rate <= ClipLimits.maxSampleRate else {
            throw .unsupported(
                name,
                detail:
                    "its sample rate is \(rate) Hz; rates from \(ClipLimits.minSampleRate) to \(ClipLimits.maxSampleRate) Hz are played"
            )
        }
    }

    // MARK: CAF ima4, our own decoder

    static func decodeCAFIMA4(
        _ file: SoundFile, _ l: ContainerLayout, name: String, into out: inout SoundInspection
    ) throws(SoundProblem) -> AudioClip {
        out.format = SoundFormat(container: .caf, format: "Apple IMA4", channels: l.channels, sampleRate: l.sampleRate)
        try checkShape(channels: l.channels, rate: l.sampleRate, name: name)
        let packetBytes = IMA4.bytesPerChannelBlock * l.channels
        guard l.cafFramesPerPacket == IMA4.framesPerPacket, l.cafBytesPerPacket == packetBytes else {
            throw .corrupt(
                name,
                detail:
                    "its 'desc' says \(l.cafBytesPerPacket) bytes and \(l.cafFramesPerPacket) frames per ima4 packet, not \(packetBytes) and 64"
            )
        }
        let packets = l.dataSize / packetBytes
        if l.dataSize % packetBytes != 0 {
            throw .truncated(name, detail: "its audio ends inside an ima4 packet")
        }
        let codedFrames = packets * IMA4.framesPerPacket
        let priming = l.cafPrimingFrames
        var realFrames = codedFrames - priming
        if let valid = l.cafValidFrames {
            guard valid <= codedFrames - priming else {  // (no addition: `valid` may be near Int.max)
                throw .truncated(name, detail: "its 'pakt' announces \(valid) frames but the data holds \(codedFrames)")
            }
            realFrames = valid
        }
        guard realFrames >= 0 else { throw .corrupt(name, detail: "more priming frames than audio") }
        let limit = ClipLimits.maxFrames(rate: l.sampleRate)
        if realFrames > limit {
            let seconds = Double(realFrames) / Double(l.sampleRate)
            out.duration = seconds
            throw .tooLong(name, seconds: seconds)
        }
        // realFrames <= limit, so this read is bounded by 30 s of packets.
        let needPackets = (priming + realFrames + IMA4.framesPerPacket - 1) / IMA4.framesPerPacket
        let bytes = file.read(at: l.dataOffset, count: needPackets * packetBytes)
        guard bytes.count == needPackets * packetBytes else {
            throw .truncated(name, detail: "the file ends inside its audio")
        }
        let pcm = IMA4.decode(bytes, channels: l.channels, maxPackets: needPackets)
        let start = priming * l.channels
        let samples = pcm[start..<(start + realFrames * l.channels)].map { Float($0) / 32768 }
        return AudioClip(samples: samples, channels: l.channels, sampleRate: l.sampleRate)
    }

    // MARK: libsndfile

    /// Data formats we play, per container; anything else libsndfile may read is refused.
    static func formatName(container: Container, subtype: Int32) -> String? {
        let s = Int(subtype)
        switch container {
        case .flac:
            return [
                Int(SF_FORMAT_PCM_S8): "FLAC 8-bit", Int(SF_FORMAT_PCM_16): "FLAC 16-bit",
                Int(SF_FORMAT_PCM_24): "FLAC 24-bit",
            ][s]
        case .ogg:
            return [Int(SF_FORMAT_VORBIS): "Vorbis", Int(SF_FORMAT_OPUS): "Opus"][s]
        case .mp3:
            return [
                Int(SF_FORMAT_MPEG_LAYER_I): "MPEG Layer I", Int(SF_FORMAT_MPEG_LAYER_II): "MPEG Layer II",
                Int(SF_FORMAT_MPEG_LAYER_III): "MPEG Layer III",
            ][s]
        case .wav, .aiff, .aifc, .caf:
            break
        }
        let common: [Int: String] = [
            Int(SF_FORMAT_PCM_16): "PCM s16", Int(SF_FORMAT_PCM_24): "PCM s24", Int(SF_FORMAT_PCM_32): "PCM s32",
            Int(SF_FORMAT_FLOAT): "float32", Int(SF_FORMAT_DOUBLE): "float64",
            Int(SF_FORMAT_ULAW): "µ-law", Int(SF_FORMAT_ALAW): "a-law",
        ]
        if let n = common[s] { return n }
        switch container {
        case .wav:
            return [
                Int(SF_FORMAT_PCM_U8): "PCM u8", Int(SF_FORMAT_IMA_ADPCM): "IMA ADPCM",
                Int(SF_FORMAT_MS_ADPCM): "MS ADPCM",
            ][s]
        case .aiff, .aifc:
            return [
                Int(SF_FORMAT_PCM_S8): "PCM s8", Int(SF_FORMAT_PCM_U8): "PCM u8",
                Int(SF_FORMAT_IMA_ADPCM): "Apple IMA4",
            ][s]
        case .caf:
            return [
                Int(SF_FORMAT_PCM_S8): "PCM s8", Int(SF_FORMAT_ALAC_16): "ALAC 16", Int(SF_FORMAT_ALAC_20): "ALAC 20",
                Int(SF_FORMAT_ALAC_24): "ALAC 24", Int(SF_FORMAT_ALAC_32): "ALAC 32",
            ][s]
        case .flac, .ogg, .mp3:
            return nil
        }
    }

    static func hex4(_ v: Int) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    /// A description of the data format from our own header walk, for files libsndfile refuses.
    static func headerFormatName(_ l: ContainerLayout) -> String {
        switch l.container {
        case .wav:
            let tag = "0x\(Self.hex4(Int(l.wavFormatTag)))"
            return Codecs.wavNames[l.wavFormatTag].map { "\($0) (\(tag))" }
                ?? "WAV format tag \(tag), \(l.wavBitsPerSample)-bit"
        case .aiff: return "PCM \(l.aiffBits)-bit"
        case .aifc: return Codecs.describe(l.aiffCompression)
        case .caf: return Codecs.describe(l.cafFormatID)
        case .ogg: return l.oggCodec
        case .flac: return "FLAC \(l.flacBits)-bit"
        case .mp3: return l.mpeg.map(mpegFormatName) ?? "MPEG audio"
        }
    }

    /// "MPEG-1 Layer III, 128 kbit/s", or "…, VBR" when the bit rate varies.
    static func mpegFormatName(_ s: MPEGStream) -> String {
        s.first.name + (s.variableBitrate ? ", VBR" : ", \(s.first.bitrate) kbit/s")
    }

    /// An MP3's length is the frame walk's, never libsndfile's estimate (see `MPEGStream`): over
    /// 30 s is refused with the walked length, before anything is decoded; a file that libsndfile
    /// would stop reading early (variable bit rate and no Xing/VBRI header) is refused, not played
    /// in part.
    static func checkMPEGLength(
        _ m: MPEGStream, sndfileFrames: Int, rate: Int, name: String, into out: inout SoundInspection
    ) throws(SoundProblem) {
        let frames = m.pcmFrames
        if frames > ClipLimits.maxFrames(rate: rate) {
            let seconds = Double(frames) / Double(rate)
            out.duration = seconds
            throw .tooLong(name, seconds: seconds)
        }
        if frames - sndfileFrames > m.first.samplesPerFrame {
            out.duration = Double(frames) / Double(rate)
            throw mpegReadsShort(m, sndfileFrames: sndfileFrames, rate: rate, name: name)
        }
    }

    /// The refusal for an MP3 that libsndfile would stop reading before its end.
    static func mpegReadsShort(_ m: MPEGStream, sndfileFrames: Int, rate: Int, name: String) -> SoundProblem {
        let have = Text.fixed(Double(sndfileFrames) / Double(rate), 1)
        let real = Text.fixed(Double(m.pcmFrames) / Double(rate), 1)
        return .unsupported(
            name,
            detail:
                "a variable-bit-rate MP3 without a length header (Xing or VBRI): libsndfile would stop after \(have) s of its \(real) s; re-encode it, e.g. 'ffmpeg -i IN -c:a libmp3lame -q:a 2 OUT.mp3' (ffmpeg writes the header)"
        )
    }

    static func decodeWithSndfile(
        _ file: SoundFile, _ l: ContainerLayout, name: String, into out: inout SoundInspection
    ) throws(SoundProblem) -> AudioClip {
        var shown: SoundFormat?
        defer { if let shown { out.format = shown } }
        let reader = try SndfileReader.open(file, l, name: name) { shown = $0 }
        let channels = reader.channels
        let rate = reader.rate
        let info = reader.info
        if let mpeg = l.mpeg {
            try checkMPEGLength(mpeg, sndfileFrames: Int(clamping: info.frames), rate: rate, name: name, into: &out)
        }
        let realCap = reader.realFrames
        let limit = ClipLimits.maxFrames(rate: rate)
        var samples: [Float] = []
        samples.reserveCapacity(max(0, min(Int(clamping: info.frames), limit + 1, realCap)) * channels)
        let frames = try reader.read(min(limit + 1, realCap), into: &samples)
        if frames > limit {
            // At least limit+1 frames exist; report the header's length when it is larger.
            let claimed = min(Int(clamping: info.frames), realCap)
            let seconds = Double(max(frames, claimed)) / Double(rate)
            out.duration = seconds
            throw .tooLong(name, seconds: seconds)
        }
        if realCap != Int.max, l.container != .wav, frames < realCap {
            let header = l.container == .flac ? "FLAC STREAMINFO" : "'COMM' chunk"
            throw .truncated(name, detail: "its \(header) announces \(realCap) frames but the file holds \(frames)")
        }
        // AudioClip promises frames in -1...1: NaN and infinities become silence, the rest is clamped.
        for i in samples.indices { samples[i] = samples[i].isFinite ? max(-1, min(1, samples[i])) : 0 }
        return AudioClip(samples: samples, channels: channels, sampleRate: rate)
    }
}

import FoundationEssentials
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

    public var playable: Bool { if case .success = result { true } else { false } }
    public var problem: SoundProblem? { if case .failure(let p) = result { p } else { nil } }
}

/// Decodes a sound file into memory, bounded: at most `ClipLimits.maxFrames + 1` frames are ever
/// read, in fixed-size pieces, whatever the header claims; never more than 30 s of audio is kept.
public enum SoundDecoder {
    /// Reads `path` (already resolved and checked by `SoundLibrary`) and reports what it holds.
    /// `name` is what the user typed; it is used in every message.
    public static func inspect(path: String, name: String) -> SoundInspection {
        var out = SoundInspection(name: name, path: path, format: nil, duration: nil, result: .failure(.empty(name)))
        do throws(SoundProblem) {
            let file = try SoundFile(path: path, name: name)
            let layout = try ContainerScanner.scan(file, name: name)
            out.format = SoundFormat(container: layout.container, format: headerFormatName(layout),
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
            throw .unsupported(name, detail: "its sample rate is \(rate) Hz; rates from \(ClipLimits.minSampleRate) to \(ClipLimits.maxSampleRate) Hz are played")
        }
    }

    // MARK: CAF ima4, our own decoder

    static func decodeCAFIMA4(_ file: SoundFile, _ l: ContainerLayout, name: String, into out: inout SoundInspection) throws(SoundProblem) -> AudioClip {
        out.format = SoundFormat(container: .caf, format: "Apple IMA4", channels: l.channels, sampleRate: l.sampleRate)
        try checkShape(channels: l.channels, rate: l.sampleRate, name: name)
        let packetBytes = IMA4.bytesPerChannelBlock * l.channels
        guard l.cafFramesPerPacket == IMA4.framesPerPacket, l.cafBytesPerPacket == packetBytes else {
            throw .corrupt(name, detail: "its 'desc' says \(l.cafBytesPerPacket) bytes and \(l.cafFramesPerPacket) frames per ima4 packet, not \(packetBytes) and 64")
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
        guard bytes.count == needPackets * packetBytes else { throw .truncated(name, detail: "the file ends inside its audio") }
        let pcm = IMA4.decode(bytes, channels: l.channels, maxPackets: needPackets)
        let start = priming * l.channels
        let samples = pcm[start..<(start + realFrames * l.channels)].map { Float($0) / 32768 }
        return AudioClip(samples: samples, channels: l.channels, sampleRate: l.sampleRate)
    }

    // MARK: libsndfile

    /// Data formats we play, per container; anything else libsndfile may read is refused.
    static func formatName(container: Container, subtype: Int32) -> String? {
        let s = Int(subtype)
        let common: [Int: String] = [
            Int(SF_FORMAT_PCM_16): "PCM s16", Int(SF_FORMAT_PCM_24): "PCM s24", Int(SF_FORMAT_PCM_32): "PCM s32",
            Int(SF_FORMAT_FLOAT): "float32", Int(SF_FORMAT_DOUBLE): "float64",
            Int(SF_FORMAT_ULAW): "µ-law", Int(SF_FORMAT_ALAW): "a-law",
        ]
        if let n = common[s] { return n }
        switch container {
        case .wav:
            return [Int(SF_FORMAT_PCM_U8): "PCM u8", Int(SF_FORMAT_IMA_ADPCM): "IMA ADPCM", Int(SF_FORMAT_MS_ADPCM): "MS ADPCM"][s]
        case .aiff, .aifc:
            return [Int(SF_FORMAT_PCM_S8): "PCM s8", Int(SF_FORMAT_PCM_U8): "PCM u8", Int(SF_FORMAT_IMA_ADPCM): "Apple IMA4"][s]
        case .caf:
            return [Int(SF_FORMAT_PCM_S8): "PCM s8", Int(SF_FORMAT_ALAC_16): "ALAC 16", Int(SF_FORMAT_ALAC_20): "ALAC 20",
                    Int(SF_FORMAT_ALAC_24): "ALAC 24", Int(SF_FORMAT_ALAC_32): "ALAC 32"][s]
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
            return Codecs.wavNames[l.wavFormatTag].map { "\($0) (\(tag))" } ?? "WAV format tag \(tag), \(l.wavBitsPerSample)-bit"
        case .aiff: return "PCM \(l.aiffBits)-bit"
        case .aifc: return Codecs.describe(l.aiffCompression)
        case .caf: return Codecs.describe(l.cafFormatID)
        }
    }

    static func decodeWithSndfile(_ file: SoundFile, _ l: ContainerLayout, name: String, into out: inout SoundInspection) throws(SoundProblem) -> AudioClip {
        var info = SF_INFO()
        // libsndfile reads the file through a view that carries the scanner's patches.
        guard let (sf, view) = SndfileView(file, patches: l.patches).open(&info) else {
            let code = sf_error(nil)
            let text = String(cString: sf_strerror(nil))
            if code == Int32(SF_ERR_UNSUPPORTED_ENCODING) { throw .unsupported(name, detail: "\(headerFormatName(l)) in \(l.container.rawValue) is not supported (libsndfile: \(text))") }
            throw .corrupt(name, detail: "libsndfile: \(text)")
        }
        defer {
            sf_close(sf)
            view.release()
        }
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        // WAVE_FORMAT_EXTENSIBLE (sox's 24-bit output, many editors' exports) is still a WAV, and so
        // is RF64; RIFX is SF_FORMAT_WAV with big-endian data.
        let expected: [Int32] = switch l.container {
        case .wav: [Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_WAVEX), Int32(SF_FORMAT_RF64)]
        case .aiff, .aifc: [Int32(SF_FORMAT_AIFF)]
        case .caf: [Int32(SF_FORMAT_CAF)]
        }
        guard expected.contains(major) else { throw .corrupt(name, detail: "libsndfile reads it as another container") }
        let channels = Int(info.channels), rate = Int(info.samplerate)
        guard let fmt = formatName(container: l.container, subtype: info.format & Int32(SF_FORMAT_SUBMASK)) else {
            throw .unsupported(name, detail: "\(headerFormatName(l)) in \(l.container.rawValue) is not supported (not a data format we play)")
        }
        let form = l.container == .wav && l.wavForm != "RIFF" ? " (\(l.wavForm))" : ""
        out.format = SoundFormat(container: l.container, format: fmt + form, channels: channels, sampleRate: rate)
        try checkShape(channels: channels, rate: rate, name: name)

        // The frames that really exist: libsndfile counts ADPCM in whole blocks, the WAV 'fact'
        // chunk holds the writer's true count; in AIFF the COMM frame count is the truth (an odd
        // SSND size with its pad byte must not add a frame). AIFF-C 'ima4' counts packets there.
        let sub = info.format & Int32(SF_FORMAT_SUBMASK)
        let isADPCM = sub == Int32(SF_FORMAT_IMA_ADPCM) || sub == Int32(SF_FORMAT_MS_ADPCM)
        var realCap = Int.max
        // A 'fact' is trusted only to trim the padding of the last block: libsndfile 1.2.0's own
        // writer records half the frames for stereo IMA ADPCM, and such a count must not cut audio.
        if isADPCM, l.container == .wav, let fact = l.wavFactFrames,
            fact <= info.frames, info.frames - Int64(fact) < Int64(l.wavSamplesPerBlock) { realCap = fact }
        if !isADPCM, l.container != .wav, l.container != .caf, let frames = l.aiffFrames { realCap = frames }

        let limit = ClipLimits.maxFrames(rate: rate)
        let chunk = 4096
        var buf = [Float](repeating: 0, count: chunk * channels)
        var samples: [Float] = []
        samples.reserveCapacity(max(0, min(Int(clamping: info.frames), limit + 1, realCap)) * channels)
        var frames = 0
        while frames <= limit && frames < realCap {
            let want = min(chunk, limit + 1 - frames, realCap - frames)
            let got = buf.withUnsafeMutableBufferPointer { sf_readf_float(sf, $0.baseAddress, sf_count_t(want)) }
            if got <= 0 { break }
            samples.append(contentsOf: buf[0..<(Int(got) * channels)])
            frames += Int(got)
        }
        if sf_error(sf) != 0 {
            throw .corrupt(name, detail: "libsndfile: \(String(cString: sf_strerror(sf)))")
        }
        if frames > limit {
            // At least limit+1 frames exist; report the header's length when it is larger.
            let claimed = min(Int(clamping: info.frames), realCap)
            let seconds = Double(max(frames, claimed)) / Double(rate)
            out.duration = seconds
            throw .tooLong(name, seconds: seconds)
        }
        if realCap != Int.max, l.container != .wav, frames < realCap {
            throw .truncated(name, detail: "its 'COMM' chunk announces \(realCap) frames but the file holds \(frames)")
        }
        // AudioClip promises frames in -1...1: NaN and infinities become silence, the rest is clamped.
        for i in samples.indices { samples[i] = samples[i].isFinite ? max(-1, min(1, samples[i])) : 0 }
        return AudioClip(samples: samples, channels: channels, sampleRate: rate)
    }
}

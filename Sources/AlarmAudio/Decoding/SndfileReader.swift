import CSndfile

/// A libsndfile handle on a scanned file, checked before a frame is read: libsndfile sees the
/// container the scan found, a data format we play, a channel count and rate we play. Used by the
/// decoder (the first 30 s of a clip) and by `alarm sounds cut` (any stretch of any length).
final class SndfileReader {
    private let sf: OpaquePointer
    private let view: Unmanaged<SndfileView>
    let info: SF_INFO
    let channels: Int
    let rate: Int
    /// What `alarm sounds` shows: container, data format, channels, rate.
    let format: SoundFormat
    /// The frames the header says really exist where libsndfile counts more (see `init`), else
    /// `Int.max`.
    let realFrames: Int
    private let name: String

    /// Opens `file` with libsndfile and checks what it found against the scan; throws what will
    /// not play. (The checks run on a complete object, so that a refusal still closes the handle.)
    /// `shown` gets the format once libsndfile's container and data format are known to be ones
    /// we play, before the shape is checked (`alarm sounds` lists a 6-channel WAV as what it is).
    static func open(
        _ file: SoundFile, _ l: ContainerLayout, name: String, shown: (SoundFormat) -> Void = { _ in }
    ) throws(SoundProblem) -> SndfileReader {
        var info = SF_INFO()
        // libsndfile reads the file through a view that carries the scanner's patches.
        guard let (sf, view) = SndfileView(file, patches: l.patches).open(&info) else {
            let code = sf_error(nil)
            let text = String(cString: sf_strerror(nil))
            if code == Int32(SF_ERR_UNSUPPORTED_ENCODING) {
                throw .unsupported(
                    name,
                    detail:
                        "\(SoundDecoder.headerFormatName(l)) in \(l.container.rawValue) is not supported (libsndfile: \(text))"
                )
            }
            throw .corrupt(name, detail: "libsndfile: \(text)")
        }
        let reader = SndfileReader(sf: sf, view: view, info: info, layout: l, name: name)
        try reader.check(l)
        shown(reader.format)
        try SoundDecoder.checkShape(channels: reader.channels, rate: reader.rate, name: name)
        return reader
    }

    private init(
        sf: OpaquePointer, view: Unmanaged<SndfileView>, info: SF_INFO, layout l: ContainerLayout, name: String
    ) {
        self.sf = sf
        self.view = view
        self.info = info
        self.name = name
        channels = Int(info.channels)
        rate = Int(info.samplerate)
        let sub = info.format & Int32(SF_FORMAT_SUBMASK)
        let fmt = SoundDecoder.formatName(container: l.container, subtype: sub) ?? SoundDecoder.headerFormatName(l)
        let form = l.container == .wav && l.wavForm != "RIFF" ? " (\(l.wavForm))" : ""
        format = SoundFormat(
            container: l.container, format: l.mpeg.map(SoundDecoder.mpegFormatName) ?? fmt + form,
            channels: channels, sampleRate: rate)
        // The frames that really exist: libsndfile counts ADPCM in whole blocks, the WAV 'fact'
        // chunk holds the writer's true count; in AIFF the COMM frame count is the truth (an odd
        // SSND size with its pad byte must not add a frame). AIFF-C 'ima4' counts packets there.
        // FLAC's STREAMINFO holds the encoder's count.
        let isADPCM = sub == Int32(SF_FORMAT_IMA_ADPCM) || sub == Int32(SF_FORMAT_MS_ADPCM)
        var real = Int.max
        // A 'fact' is trusted only to trim the padding of the last block: libsndfile 1.2.0's own
        // writer records half the frames for stereo IMA ADPCM, and such a count must not cut audio.
        if isADPCM, l.container == .wav, let fact = l.wavFactFrames,
            fact <= info.frames, info.frames - Int64(fact) < Int64(l.wavSamplesPerBlock)
        {
            real = fact
        }
        if !isADPCM, l.container == .aiff || l.container == .aifc, let frames = l.aiffFrames { real = frames }
        if l.container == .flac, let frames = l.flacTotalFrames { real = frames }
        realFrames = real
    }

    /// The container libsndfile found is the scan's, the data format one we play.
    private func check(_ l: ContainerLayout) throws(SoundProblem) {
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        // WAVE_FORMAT_EXTENSIBLE (sox's 24-bit output, many editors' exports) is still a WAV, and so
        // is RF64; RIFX is SF_FORMAT_WAV with big-endian data.
        let expected: [Int32] =
            switch l.container {
            case .wav: [Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_WAVEX), Int32(SF_FORMAT_RF64)]
            case .aiff, .aifc: [Int32(SF_FORMAT_AIFF)]
            case .caf: [Int32(SF_FORMAT_CAF)]
            case .flac: [Int32(SF_FORMAT_FLAC)]
            case .ogg: [Int32(SF_FORMAT_OGG)]
            case .mp3: [Int32(SF_FORMAT_MPEG)]
            }
        guard expected.contains(major) else { throw .corrupt(name, detail: "libsndfile reads it as another container") }
        guard SoundDecoder.formatName(container: l.container, subtype: info.format & Int32(SF_FORMAT_SUBMASK)) != nil
        else {
            throw .unsupported(
                name,
                detail:
                    "\(SoundDecoder.headerFormatName(l)) in \(l.container.rawValue) is not supported (not a data format we play)"
            )
        }
    }

    deinit {
        sf_close(sf)
        view.release()
    }

    /// Reads up to `count` frames (fewer at the end of the audio), appending them to `samples`
    /// when given, else dropping them; the frames read. Throws `.corrupt` on a decoding error.
    @discardableResult
    func read(_ count: Int, into samples: inout [Float]) throws(SoundProblem) -> Int {
        try read(count) { samples.append(contentsOf: $0) }
    }

    /// Reads and drops up to `count` frames; the frames read.
    func skip(_ count: Int) throws(SoundProblem) -> Int {
        try read(count) { _ in }
    }

    private func read(_ count: Int, _ body: (ArraySlice<Float>) -> Void) throws(SoundProblem) -> Int {
        let chunk = 4096
        var buf = [Float](repeating: 0, count: chunk * channels)
        var frames = 0
        while frames < count {
            let want = min(chunk, count - frames)
            let got = buf.withUnsafeMutableBufferPointer { sf_readf_float(sf, $0.baseAddress, sf_count_t(want)) }
            if got <= 0 { break }
            body(buf[0..<(Int(got) * channels)])
            frames += Int(got)
        }
        if sf_error(sf) != 0 {
            throw .corrupt(name, detail: "libsndfile: \(String(cString: sf_strerror(sf)))")
        }
        return frames
    }
}

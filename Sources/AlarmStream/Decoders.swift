import CMpg123
import COpusFile
import CVorbisFile

/// A decoder that failed: what it said, for the `E` frame.
struct DecodeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where a decoder puts its audio: the format it is in and the interleaved samples; false when
/// no more is wanted (the client is gone), and the decoder then returns at once.
typealias AudioSink = (StreamFormat, UnsafeBufferPointer<Float>) -> Bool

/// Decodes a stream read from a `ByteQueue` until the queue ends (it returns) or the stream
/// cannot be decoded (it throws).
protocol StreamDecoder {
    func run(_ queue: ByteQueue, _ sink: AudioSink) throws(DecodeError)
}

enum Decoders {
    static func make(_ codec: StreamFormat.Codec) -> any StreamDecoder {
        switch codec {
        case .mp3: return Mp3Decoder()
        case .vorbis: return VorbisDecoder()
        case .opus: return OpusDecoder()
        }
    }
}

/// MP3 through libmpg123's feed API: bytes in as they come, float32 out.
struct Mp3Decoder: StreamDecoder {
    /// A stream that gives no audio in this many bytes is not MP3, whatever its first bytes said.
    static let formatLimit = 131072
    private static let initialised: Void = { _ = mpg123_init() }()

    func run(_ queue: ByteQueue, _ sink: AudioSink) throws(DecodeError) {
        _ = Self.initialised
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw DecodeError("libmpg123 could not start: \(String(cString: mpg123_plain_strerror(status)))")
        }
        defer { mpg123_delete(handle) }
        _ = mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0)
        _ = mpg123_format_none(handle)
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] {
            _ = mpg123_format(
                handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            throw DecodeError("libmpg123 could not open a feed: \(String(cString: mpg123_strerror(handle)))")
        }
        var input = [UInt8](repeating: 0, count: 16384)
        var output = [Float](repeating: 0, count: 16384)
        var format: StreamFormat?
        var fed = 0
        while true {
            let n = input.withUnsafeMutableBytes { queue.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { return }
            fed += n
            _ = input.withUnsafeBytes { mpg123_feed(handle, $0.bindMemory(to: UInt8.self).baseAddress, n) }
            while true {
                var done = 0
                let r = output.withUnsafeMutableBytes { mpg123_read(handle, $0.baseAddress, $0.count, &done) }
                if r == MPG123_NEW_FORMAT.rawValue {
                    var rate = 0
                    var channels: Int32 = 0
                    var encoding: Int32 = 0
                    _ = mpg123_getformat(handle, &rate, &channels, &encoding)
                    format = StreamFormat(rate: rate, channels: Int(channels), codec: .mp3)
                    continue
                }
                if done > 0, let format {
                    let frames = done / 4 / format.channels
                    let keep = output.withUnsafeBufferPointer {
                        sink(format, UnsafeBufferPointer(rebasing: $0[0..<(frames * format.channels)]))
                    }
                    if !keep { return }
                }
                if r == MPG123_NEED_MORE.rawValue { break }
                if r == MPG123_OK.rawValue || r == MPG123_DONE.rawValue { continue }
                throw DecodeError("the MP3 decoder failed: \(String(cString: mpg123_strerror(handle)))")
            }
            if format == nil && fed > Self.formatLimit {
                throw DecodeError("no MP3 audio in the first \(Self.formatLimit / 1024) KiB")
            }
        }
    }
}

/// The read callback of libvorbisfile and libopusfile: bytes from the queue.
private func queueRead(_ source: UnsafeMutableRawPointer?, _ into: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    guard let source, let into, count > 0 else { return 0 }
    return Unmanaged<ByteQueue>.fromOpaque(source).takeUnretainedValue().read(into: into, count: count)
}

/// Ogg Vorbis through libvorbisfile, reading the queue through callbacks (no seeking: a stream).
struct VorbisDecoder: StreamDecoder {
    func run(_ queue: ByteQueue, _ sink: AudioSink) throws(DecodeError) {
        var file = OggVorbis_File()
        let callbacks = ov_callbacks(
            read_func: { into, size, count, source in queueRead(source, into, size * count) / max(size, 1) },
            seek_func: nil, close_func: nil, tell_func: nil)
        let source = Unmanaged.passUnretained(queue).toOpaque()
        let opened = ov_open_callbacks(source, &file, nil, 0, callbacks)
        guard opened == 0 else {
            if queue.endReasonIfDrained != nil { return }
            throw DecodeError("not an Ogg Vorbis stream the decoder can read (libvorbisfile: \(Self.describe(opened)))")
        }
        defer { ov_clear(&file) }
        var format: StreamFormat?
        var interleaved = [Float](repeating: 0, count: 8192)
        while true {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var section: Int32 = 0
            let frames = Int(ov_read_float(&file, &pcm, 2048, &section))
            if frames == 0 { return }
            if frames == Int(OV_HOLE) { continue }
            if frames < 0 {
                throw DecodeError("the Ogg Vorbis decoder failed (libvorbisfile: \(Self.describe(Int32(frames))))")
            }
            guard let info = ov_info(&file, -1), let pcm else { throw DecodeError("libvorbisfile gave no stream info") }
            let now = StreamFormat(rate: Int(info.pointee.rate), channels: Int(info.pointee.channels), codec: .vorbis)
            if format != now { format = now }
            let channels = now.channels
            if interleaved.count < frames * channels { interleaved = [Float](repeating: 0, count: frames * channels) }
            for c in 0..<channels {
                let channel = pcm[c]!
                for f in 0..<frames { interleaved[f * channels + c] = channel[f] }
            }
            let keep = interleaved.withUnsafeBufferPointer {
                sink(now, UnsafeBufferPointer(rebasing: $0[0..<(frames * channels)]))
            }
            if !keep { return }
        }
    }

    static func describe(_ code: Int32) -> String {
        switch code {
        case OV_EREAD: return "read error"
        case OV_ENOTVORBIS: return "not Vorbis data"
        case OV_EVERSION: return "Vorbis version mismatch"
        case OV_EBADHEADER: return "invalid Vorbis header"
        case OV_EFAULT: return "internal error"
        default: return "error \(code)"
        }
    }
}

/// Ogg Opus through libopusfile, reading the queue through callbacks; always 48 kHz.
struct OpusDecoder: StreamDecoder {
    func run(_ queue: ByteQueue, _ sink: AudioSink) throws(DecodeError) {
        var callbacks = OpusFileCallbacks(
            read: { source, into, count in Int32(queueRead(source, into, Int(count))) },
            seek: nil, tell: nil, close: nil)
        var error: Int32 = 0
        let source = Unmanaged.passUnretained(queue).toOpaque()
        guard let file = op_open_callbacks(source, &callbacks, nil, 0, &error) else {
            if queue.endReasonIfDrained != nil { return }
            throw DecodeError("not an Ogg Opus stream the decoder can read (libopusfile error \(error))")
        }
        defer { op_free(file) }
        var buffer = [Float](repeating: 0, count: 11520)
        while true {
            var link: Int32 = 0
            let frames = buffer.withUnsafeMutableBufferPointer {
                Int(op_read_float(file, $0.baseAddress, Int32($0.count), &link))
            }
            if frames == 0 { return }
            if frames == Int(OP_HOLE) { continue }
            if frames < 0 { throw DecodeError("the Ogg Opus decoder failed (libopusfile error \(frames))") }
            let format = StreamFormat(rate: 48000, channels: Int(op_channel_count(file, link)), codec: .opus)
            let keep = buffer.withUnsafeBufferPointer {
                sink(format, UnsafeBufferPointer(rebasing: $0[0..<(frames * format.channels)]))
            }
            if !keep { return }
        }
    }
}

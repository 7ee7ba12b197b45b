import FoundationEssentials

/// The alarm-stream wire (issue #43; docs/sounds.md): the client sends one JSON request line,
/// `{"url":"..."}`, and reads frames: 1 byte type, 4 bytes payload length (little-endian), the
/// payload. `H` (header, JSON: rate, channels, codec, url) comes before the first `A` (audio:
/// interleaved 32-bit float little-endian samples), `M` is metadata (ignored here), `E` (JSON:
/// error) is the last frame. Pure: bytes in, frames out.
public enum StreamWire {
    /// The longest payload a frame may announce.
    public static let maxPayload = 65_536
    /// The longest request line, its newline included.
    public static let maxRequest = 4_096

    public struct Format: Equatable, Sendable, CustomStringConvertible {
        public var rate: Int
        public var channels: Int
        public var codec: String
        /// The stream actually played (after .m3u/.pls resolution).
        public var url: String

        public init(rate: Int, channels: Int, codec: String, url: String) {
            self.rate = rate
            self.channels = channels
            self.codec = codec
            self.url = url
        }

        /// "mp3, 44100 Hz, 2 ch".
        public var description: String { "\(codec), \(rate) Hz, \(channels) ch" }
    }

    public enum Frame: Equatable, Sendable {
        case header(Format)
        /// Interleaved samples, whole frames of the current format.
        case audio([Float])
        case metadata
        /// The server's last word: what went wrong (it names the URL).
        case error(String)
    }

    /// A frame that does not follow the wire; the text says what was wrong.
    public struct Garbage: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The request line for `url`.
    public static func request(url: String) -> [UInt8] {
        struct Request: Encodable { var url: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return ((try? encoder.encode(Request(url: url))).map(Array.init) ?? []) + [10]
    }

    /// Cuts frames out of the bytes as they come, whatever the reads' boundaries.
    public struct Parser: Sendable {
        private var pending: [UInt8] = []
        private var start = 0
        /// Channels of the last header: audio payloads must hold whole frames of it.
        private var channels: Int?

        public init() {}

        /// Takes `bytes` and returns the frames they complete. Throws on a frame the wire does
        /// not have (unknown type, a payload over `maxPayload`, audio before a header or of part
        /// of a frame, a header or error that is not the JSON it must be).
        public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(Garbage) -> [Frame] {
            pending.append(contentsOf: bytes)
            var frames: [Frame] = []
            while pending.count - start >= 5 {
                let type = pending[start]
                let length =
                    Int(pending[start + 1]) | Int(pending[start + 2]) << 8 | Int(pending[start + 3]) << 16
                    | Int(pending[start + 4]) << 24
                guard [0x48, 0x41, 0x4D, 0x45].contains(type) else {
                    throw Garbage("a frame of unknown type 0x\(String(type, radix: 16, uppercase: true))")
                }
                guard length <= StreamWire.maxPayload else {
                    throw Garbage("a frame announcing \(length) bytes (at most \(StreamWire.maxPayload))")
                }
                guard pending.count - start >= 5 + length else { break }
                let payload = pending[(start + 5)..<(start + 5 + length)]
                start += 5 + length
                frames.append(try frame(type, payload))
            }
            if start > 0 && (start == pending.count || start >= 65_536) {
                pending.removeFirst(start)
                start = 0
            }
            return frames
        }

        private mutating func frame(_ type: UInt8, _ payload: ArraySlice<UInt8>) throws(Garbage) -> Frame {
            switch type {
            case 0x48:
                struct Header: Decodable {
                    var rate: Int
                    var channels: Int
                    var codec: String?
                    var url: String?
                }
                guard let h = try? JSONDecoder().decode(Header.self, from: Data(payload)) else {
                    throw Garbage("a header that is not JSON with a rate and channels")
                }
                guard (1...768_000).contains(h.rate), (1...32).contains(h.channels) else {
                    throw Garbage("a header with \(h.rate) Hz and \(h.channels) channels")
                }
                channels = h.channels
                return .header(Format(rate: h.rate, channels: h.channels, codec: h.codec ?? "?", url: h.url ?? ""))
            case 0x41:
                guard let channels else { throw Garbage("audio before a header") }
                guard payload.count % (4 * channels) == 0 else {
                    throw Garbage("audio of \(payload.count) bytes, not whole frames of \(channels) channels")
                }
                var samples = [Float](repeating: 0, count: payload.count / 4)
                var i = payload.startIndex
                for k in samples.indices {
                    let bits =
                        UInt32(payload[i]) | UInt32(payload[i + 1]) << 8 | UInt32(payload[i + 2]) << 16
                        | UInt32(payload[i + 3]) << 24
                    let v = Float(bitPattern: bits)
                    samples[k] = v.isFinite ? min(1, max(-1, v)) : 0
                    i += 4
                }
                return .audio(samples)
            case 0x4D:
                return .metadata
            default:
                struct Failure: Decodable { var error: String }
                guard let e = try? JSONDecoder().decode(Failure.self, from: Data(payload)) else {
                    throw Garbage("an error frame that is not JSON with an error")
                }
                return .error(e.error)
            }
        }
    }
}

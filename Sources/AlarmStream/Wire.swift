import FoundationEssentials

/// The alarm-stream wire (docs/sounds.md, "Streams"): one JSON request line from the client, then
/// frames from the server, each a type byte, a 4-byte little-endian payload length and the
/// payload. What the server sends and the client may rely on is spelled out per frame below.
public enum StreamWire {
    /// The longest request line, its "\n" included.
    public static let maximumRequestLength = 4096
    /// The longest payload of one frame.
    public static let maximumPayload = 65536

    public enum FrameType: UInt8, Sendable {
        /// JSON `{"rate","channels","codec","url"}`: always before the first `audio`; again when the format changes.
        case header = 0x48
        /// Interleaved float32 little-endian samples, whole frames.
        case audio = 0x41
        /// JSON `{"title"}`: the ICY StreamTitle.
        case metadata = 0x4D
        /// JSON `{"error"}`: the last frame.
        case error = 0x45
    }

    /// One frame as bytes on the wire.
    public static func frame(_ type: FrameType, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= maximumPayload, "a frame's payload is at most \(maximumPayload) bytes")
        let n = UInt32(payload.count)
        return [type.rawValue, UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)]
            + payload
    }

    public static func header(_ format: StreamFormat, url: String) -> [UInt8] {
        frame(
            .header,
            json(Header(rate: format.rate, channels: format.channels, codec: format.codec.rawValue, url: url)))
    }

    public static func metadata(title: String) -> [UInt8] { frame(.metadata, json(["title": title])) }

    public static func error(_ message: String) -> [UInt8] { frame(.error, json(["error": message])) }

    /// Audio frames for interleaved samples, split so that each payload is at most
    /// `maximumPayload` bytes and holds whole frames of `channels` samples. Samples are clamped to
    /// -1...1 (a decoder's float output of a loud master goes past full scale) and NaN is 0.
    public static func audio(_ samples: UnsafeBufferPointer<Float>, channels: Int) -> [[UInt8]] {
        let perFrame = 4 * channels
        let chunk = (maximumPayload / perFrame) * channels
        var frames: [[UInt8]] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + chunk)
            var payload = [UInt8](repeating: 0, count: (end - start) * 4)
            payload.withUnsafeMutableBytes { out in
                for i in start..<end {
                    let sample = samples[i].isNaN ? 0 : min(1, max(-1, samples[i]))
                    out.storeBytes(of: sample.bitPattern.littleEndian, toByteOffset: (i - start) * 4, as: UInt32.self)
                }
            }
            frames.append(frame(.audio, payload))
            start = end
        }
        return frames
    }

    private struct Header: Encodable {
        let rate: Int
        let channels: Int
        let codec: String
        let url: String
    }

    private static func json(_ value: some Encodable) -> [UInt8] {
        // Sorted keys: the same frame for the same values (tests and logs compare them).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8]((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}

/// A request line's JSON: an object (else `typeMismatch`) whose `url`, when it is a string.
private struct RequestObject: Decodable {
    let url: String?

    enum Key: String, CodingKey { case url }

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Key.self)
        url = try? object.decode(String.self, forKey: .url)
    }
}

/// A request line that the server refuses, with the reason sent back in the `E` frame.
public struct StreamRequestError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The client's request: the URL to play.
public struct StreamRequest: Equatable, Sendable {
    public var url: String

    public init(url: String) { self.url = url }

    /// Parses one request line (without its "\n"): JSON with a string `url` of scheme http or
    /// https. Unknown keys are ignored.
    public static func parse(_ line: [UInt8]) throws(StreamRequestError) -> StreamRequest {
        guard line.count < StreamWire.maximumRequestLength else {
            throw StreamRequestError("the request line is longer than \(StreamWire.maximumRequestLength) bytes")
        }
        guard String(validating: line, as: UTF8.self) != nil else {
            throw StreamRequestError("the request line is not UTF-8")
        }
        let object: RequestObject
        do {
            object = try JSONDecoder().decode(RequestObject.self, from: Data(line))
        } catch DecodingError.typeMismatch {
            throw StreamRequestError("the request is not a JSON object (want {\"url\":\"http://...\"})")
        } catch {
            throw StreamRequestError("the request line is not JSON (want {\"url\":\"http://...\"})")
        }
        guard let url = object.url else {
            throw StreamRequestError("the request has no string \"url\"")
        }
        guard let scheme = StreamURL.scheme(of: url), scheme == "http" || scheme == "https" else {
            throw StreamRequestError("\(url): not an http or https URL")
        }
        guard StreamURL.host(of: url) != nil else {
            throw StreamRequestError("\(url): no host in the URL")
        }
        return StreamRequest(url: url)
    }
}

/// The few questions asked of a URL's text, answered without Foundation's URL (whose parsing
/// differs between Swift versions).
enum StreamURL {
    /// The scheme, lowercased: `http` of `HTTP://x/`; nil without `scheme://`.
    static func scheme(of url: String) -> String? {
        guard let r = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<r.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// The authority's host part, nil when empty.
    static func host(of url: String) -> String? {
        guard let r = url.firstRange(of: "://") else { return nil }
        let rest = url[r.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let host: Substring
        if hostPort.hasPrefix("[") {
            host = hostPort.prefix { $0 != "]" }.dropFirst()
        } else {
            host = hostPort.prefix { $0 != ":" }
        }
        return host.isEmpty ? nil : String(host)
    }

    /// The path's last part, lowercased, without query or fragment: `live.m3u` of `http://x/live.m3u?a=1`.
    static func lastPathComponent(of url: String) -> String {
        guard let r = url.firstRange(of: "://") else { return "" }
        let rest = url[r.upperBound...]
        let path = rest.drop { $0 != "/" }.prefix { $0 != "?" && $0 != "#" }
        return String(path.split(separator: "/").last ?? "").lowercased()
    }
}

/// What a decoder puts out: float samples at `rate`, `channels` interleaved.
public struct StreamFormat: Equatable, Sendable {
    public enum Codec: String, Sendable { case mp3, vorbis, opus }
    public var rate: Int
    public var channels: Int
    public var codec: Codec

    public init(rate: Int, channels: Int, codec: Codec) {
        self.rate = rate
        self.channels = channels
        self.codec = codec
    }
}

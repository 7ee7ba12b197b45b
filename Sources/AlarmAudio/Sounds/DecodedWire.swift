import AlarmCore

/// The bytes a decoding child (root's `alarm` decodes in a child that is not root, issue #42)
/// writes on its stdout, and their reading in the parent: what `SoundDecoder.inspect` or
/// `SoundCutter.cut` found, the clip's samples included.
///
/// The child read a file someone else wrote, so the parent treats its bytes as untrusted: every
/// length is checked against what is left, every clip against `ClipLimits` (channels, rate, at most
/// 30 s plus one frame), every sample made finite and kept in -1...1. Nothing here parses text
/// formats (no JSON decoder on bytes a subverted decoder wrote); it is a fixed binary layout,
/// little-endian: a magic line, a kind byte, then the fields in order.
public enum DecodedWire {
    static let magic = Array("alarm-decoded 1\n".utf8)
    /// The most a well-formed answer can hold: a clip at the highest rate, channels and length,
    /// and room for its texts.
    public static let maxBytes =
        (ClipLimits.maxFrames(rate: ClipLimits.maxSampleRate) + 1) * ClipLimits.maxChannels * 4
        + (1 << 16)

    /// A malformed answer: the child did not speak this layout (or was subverted).
    public struct Malformed: Error, CustomStringConvertible {
        public var why: String
        public var description: String { "its decoder's answer is malformed (\(why))" }
    }

    // MARK: writing (the child)

    public static func encode(_ inspection: SoundInspection) -> [UInt8] {
        var w = Writer()
        w.bytes = magic
        w.u8(1)
        if let f = inspection.format {
            w.u8(1)
            w.string(f.container.rawValue)
            w.string(f.format)
            w.u32(f.channels)
            w.u32(f.sampleRate)
        } else {
            w.u8(0)
        }
        if let d = inspection.duration {
            w.u8(1)
            w.f64(d)
        } else {
            w.u8(0)
        }
        switch inspection.result {
        case .success(let clip):
            w.u8(0)
            w.clip(clip)
        case .failure(let problem):
            w.u8(1)
            w.problem(problem)
        }
        return w.bytes
    }

    public static func encode(cut: Result<AudioClip, SoundCutter.Refusal>) -> [UInt8] {
        var w = Writer()
        w.bytes = magic
        w.u8(2)
        switch cut {
        case .success(let clip):
            w.u8(0)
            w.clip(clip)
        case .failure(.source(let problem)):
            w.u8(1)
            w.problem(problem)
        case .failure(.fromPastEnd(let from, let length)):
            w.u8(2)
            w.f64(from)
            w.f64(length)
        case .failure(.length(let length)):
            w.u8(3)
            w.f64(length)
        case .failure(let other):
            w.u8(4)
            w.string(other.description)
        }
        return w.bytes
    }

    // MARK: reading (the parent)

    /// The inspection of sound `name` at `path` the child sent.
    public static func inspection(_ bytes: [UInt8], path: String, name: String) throws(Malformed) -> SoundInspection {
        var r = Reader(b: bytes)
        try r.header(kind: 1)
        var out = SoundInspection(name: name, path: path, format: nil, duration: nil, result: .failure(.empty(name)))
        if try r.flag() {
            let text = try r.string()
            guard let container = Container(rawValue: text) else { throw Malformed(why: "container '\(text)'") }
            out.format = SoundFormat(
                container: container, format: try r.string(), channels: try r.u32(), sampleRate: try r.u32())
        }
        if try r.flag() { out.duration = try r.f64() }
        out.result = try r.flag() ? .failure(try r.problem(name)) : .success(try r.clip())
        try r.end()
        return out
    }

    /// The cut the child sent, for the source file called `name` in messages.
    public static func cut(_ bytes: [UInt8], name: String) throws(Malformed) -> Result<AudioClip, SoundCutter.Refusal> {
        var r = Reader(b: bytes)
        try r.header(kind: 2)
        let out: Result<AudioClip, SoundCutter.Refusal>
        switch try r.u8() {
        case 0: out = .success(try r.clip())
        case 1: out = .failure(.source(try r.problem(name)))
        case 2: out = .failure(.fromPastEnd(from: try r.f64(), length: try r.f64()))
        case 3: out = .failure(.length(try r.f64()))
        case 4: out = .failure(.source(.unreadable(name, detail: try r.string())))
        case let k: throw Malformed(why: "cut kind \(k)")
        }
        try r.end()
        return out
    }

    private struct Writer {
        var bytes: [UInt8] = []
        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u32(_ v: Int) {
            let x = UInt32(clamping: v)
            for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(i)))) }
        }
        mutating func f64(_ v: Double) {
            for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64(i)))) }
        }
        mutating func string(_ s: String) {
            u32(s.utf8.count)
            bytes.append(contentsOf: s.utf8)
        }
        mutating func clip(_ c: AudioClip) {
            u32(c.channels)
            u32(c.sampleRate)
            u32(c.samples.count)
            #if _endian(little)
            c.samples.withUnsafeBytes { bytes.append(contentsOf: $0) }  // 46 MB at most: no loop per byte
            #else
            for s in c.samples {
                let x = s.bitPattern
                for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(i)))) }
            }
            #endif
        }
        mutating func problem(_ p: SoundProblem) {
            var text = ""
            var seconds = 0.0
            var searched: [String] = []
            switch p {
            case .badName(_, let why): text = why
            case .notFound(_, let dirs): searched = dirs
            case .outsideDirectory(_, let resolved): text = resolved
            case .unreadable(_, let d), .truncated(_, let d), .corrupt(_, let d), .unsupported(_, let d): text = d
            case .empty: break
            case .tooLong(_, let s): seconds = s
            }
            string(p.kind)
            string(text)
            f64(seconds)
            u32(searched.count)
            for s in searched { string(s) }
        }
    }

    private struct Reader {
        let b: [UInt8]
        var i = 0

        mutating func take(_ n: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard n >= 0, n <= b.count - i else { throw Malformed(why: "it ends early") }
            defer { i += n }
            return b[i..<(i + n)]
        }
        mutating func header(kind: UInt8) throws(Malformed) {
            guard Array(try take(DecodedWire.magic.count)) == DecodedWire.magic else {
                throw Malformed(why: "no header")
            }
            guard try u8() == kind else { throw Malformed(why: "another kind of answer") }
        }
        mutating func end() throws(Malformed) {
            guard i == b.count else { throw Malformed(why: "\(b.count - i) bytes after its end") }
        }
        mutating func u8() throws(Malformed) -> UInt8 { try take(1).first! }
        mutating func flag() throws(Malformed) -> Bool {
            switch try u8() {
            case 0: return false
            case 1: return true
            case let v: throw Malformed(why: "flag \(v)")
            }
        }
        mutating func raw32() throws(Malformed) -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        mutating func u32() throws(Malformed) -> Int { Int(try raw32()) }
        mutating func f64() throws(Malformed) -> Double {
            Double(bitPattern: try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) })
        }
        mutating func string() throws(Malformed) -> String {
            String(decoding: try take(try u32()), as: UTF8.self)
        }
        mutating func clip() throws(Malformed) -> AudioClip {
            let channels = try u32()
            let rate = try u32()
            let count = try u32()
            guard (1...ClipLimits.maxChannels).contains(channels),
                (ClipLimits.minSampleRate...ClipLimits.maxSampleRate).contains(rate), count % channels == 0,
                count / channels <= ClipLimits.maxFrames(rate: rate) + 1
            else { throw Malformed(why: "a clip of \(count) samples, \(channels) channels at \(rate) Hz") }
            let bytes = try take(count * 4)
            var samples = [Float](repeating: 0, count: count)
            #if _endian(little)
            samples.withUnsafeMutableBytes { out in bytes.withUnsafeBytes { out.copyMemory(from: $0) } }
            #else
            var at = bytes.startIndex
            for k in 0..<count {
                let x =
                    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
                    << 24
                samples[k] = Float(bitPattern: x)
                at += 4
            }
            #endif
            for k in samples.indices where !(samples[k].isFinite && abs(samples[k]) <= 1) {
                samples[k] = samples[k].isFinite ? max(-1, min(1, samples[k])) : 0
            }
            return AudioClip(samples: samples, channels: channels, sampleRate: rate)
        }
        mutating func problem(_ name: String) throws(Malformed) -> SoundProblem {
            let kind = try string()
            let text = try string()
            let seconds = try f64()
            let n = try u32()
            guard n <= b.count - i else { throw Malformed(why: "it ends early") }
            var searched: [String] = []
            for _ in 0..<n { searched.append(try string()) }
            switch kind {
            case "bad-name": return .badName(name, why: text)
            case "not-found": return .notFound(name, searched: searched)
            case "outside-directory": return .outsideDirectory(name, resolved: text)
            case "unreadable": return .unreadable(name, detail: text)
            case "empty": return .empty(name)
            case "too-long": return .tooLong(name, seconds: seconds)
            case "truncated": return .truncated(name, detail: text)
            case "corrupt": return .corrupt(name, detail: text)
            case "unsupported": return .unsupported(name, detail: text)
            default: throw Malformed(why: "problem kind '\(kind)'")
            }
        }
    }
}

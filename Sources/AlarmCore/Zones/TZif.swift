/// The contents of a TZif file (RFC 8536, versions 1 to 4), as read: the transitions, the local
/// time types and the footer's TZ string. `Zone` turns this into fast lookups.
///
/// Of a version 2+ file only the 64-bit block is used (the 32-bit one cannot hold instants past
/// 2038 and is there for old readers). Files with leap-second records (the `right/` zones) are
/// refused: their transition times do not count Unix seconds.
public struct TZif: Hashable, Sendable {
    /// One local time type: a UTC offset, whether it is daylight time, and its abbreviation.
    public struct LocalTimeType: Hashable, Sendable {
        public var offset: Int32
        public var isDaylight: Bool
        public var abbreviation: String
    }

    /// 1, 2, 3 or 4.
    public var version: Int
    /// Transition instants (Unix seconds), strictly ascending.
    public var times: [Int64]
    /// For each transition, the index into `types` of the type in force from it on.
    public var typeIndices: [UInt8]
    /// Type 0 is also the type in force before the first transition (RFC 8536 section 3.2).
    public var types: [LocalTimeType]
    /// The footer's TZ string: nil for version 1 files and for an empty footer, which both mean
    /// that the last transition's type stays in force for ever.
    public var footer: String?

    /// Parses `bytes`; the error says what is wrong and where.
    public init(_ bytes: [UInt8]) throws {
        var r = TZifReader(bytes: bytes)
        let v1 = try r.header()
        guard v1.version >= 2 else {
            self = try r.block(v1, timeSize: 4)
            return
        }
        // Skip the 32-bit block; the 64-bit header and block follow, then the footer.
        try r.skip(v1.blockSize(timeSize: 4), "the version 1 data block")
        let v2 = try r.header()
        var parsed = try r.block(v2, timeSize: 8)
        parsed.version = v2.version
        parsed.footer = try r.footer()
        self = parsed
    }

    init(version: Int, times: [Int64], typeIndices: [UInt8], types: [LocalTimeType], footer: String?) {
        self.version = version
        self.times = times
        self.typeIndices = typeIndices
        self.types = types
        self.footer = footer
    }
}

/// A TZif file that cannot be used, and why.
public struct TZifError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A cursor over the bytes with the reads the format needs; each failure names what was missing.
struct TZifReader {
    let bytes: [UInt8]
    var at = 0

    struct Header {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

        func blockSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    func fail(_ message: String) -> TZifError {
        TZifError(message: "not a usable TZif file: \(message) (byte \(at) of \(bytes.count))")
    }

    mutating func skip(_ n: Int, _ what: String) throws {
        guard n >= 0, at + n <= bytes.count else { throw fail("truncated in \(what)") }
        at += n
    }

    mutating func u32(_ what: String) throws -> UInt32 {
        guard at + 4 <= bytes.count else { throw fail("truncated in \(what)") }
        defer { at += 4 }
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
            | UInt32(bytes[at + 3])
    }

    mutating func i64(_ what: String) throws -> Int64 {
        let hi = try u32(what)
        let lo = try u32(what)
        return Int64(bitPattern: UInt64(hi) << 32 | UInt64(lo))
    }

    mutating func header() throws -> Header {
        guard at + 44 <= bytes.count else {
            throw fail(
                bytes.count - at < 4 ? "empty or truncated before the magic 'TZif'" : "truncated in the 44-byte header")
        }
        guard bytes[at..<at + 4].elementsEqual("TZif".utf8) else { throw fail("bad magic (expected 'TZif')") }
        let v = bytes[at + 4]
        let version: Int
        switch v {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(v - UInt8(ascii: "0"))
        default: throw fail("unknown version byte \(v)")
        }
        at += 20
        var counts: [Int] = []
        for name in ["isutcnt", "isstdcnt", "leapcnt", "timecnt", "typecnt", "charcnt"] {
            let c = try u32(name)
            guard c < 1 << 24 else { throw fail("bad count: \(name) is \(c)") }
            counts.append(Int(c))
        }
        let h = Header(
            version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2], timecnt: counts[3],
            typecnt: counts[4], charcnt: counts[5])
        guard h.typecnt >= 1, h.typecnt <= 256 else {
            throw fail("bad counts: typecnt is \(h.typecnt), must be 1...256")
        }
        guard h.charcnt >= 1 else { throw fail("bad counts: charcnt is 0") }
        guard h.isutcnt == 0 || h.isutcnt == h.typecnt else {
            throw fail("bad counts: isutcnt \(h.isutcnt) is neither 0 nor typecnt \(h.typecnt)")
        }
        guard h.isstdcnt == 0 || h.isstdcnt == h.typecnt else {
            throw fail("bad counts: isstdcnt \(h.isstdcnt) is neither 0 nor typecnt \(h.typecnt)")
        }
        return h
    }

    mutating func block(_ h: Header, timeSize: Int) throws -> TZif {
        guard at + h.blockSize(timeSize: timeSize) <= bytes.count else {
            throw fail("truncated: the counts need \(h.blockSize(timeSize: timeSize)) bytes of data")
        }
        guard h.leapcnt == 0 else {
            throw fail("it has \(h.leapcnt) leap-second records (a 'right/' zone); use the zone without them")
        }
        var times: [Int64] = []
        times.reserveCapacity(h.timecnt)
        for _ in 0..<h.timecnt {
            let t = timeSize == 8 ? try i64("transition times") : Int64(Int32(bitPattern: try u32("transition times")))
            if let last = times.last, t <= last { throw fail("transition times are not ascending") }
            times.append(t)
        }
        let indices = Array(bytes[at..<at + h.timecnt])
        at += h.timecnt
        if let bad = indices.first(where: { Int($0) >= h.typecnt }) {
            throw fail("transition type \(bad) is past typecnt \(h.typecnt)")
        }
        var raw: [(Int32, Bool, Int)] = []
        for _ in 0..<h.typecnt {
            let off = Int32(bitPattern: try u32("local time types"))
            guard off > -26 * 3600 && off < 26 * 3600 else { throw fail("UTC offset \(off) s is out of range") }
            let dst = bytes[at]
            let idx = Int(bytes[at + 1])
            at += 2
            guard dst <= 1 else { throw fail("isdst is \(dst), must be 0 or 1") }
            guard idx < h.charcnt else { throw fail("abbreviation index \(idx) is past charcnt \(h.charcnt)") }
            raw.append((off, dst == 1, idx))
        }
        let chars = Array(bytes[at..<at + h.charcnt])
        at += h.charcnt
        let types = raw.map { off, dst, idx in
            let end = chars[idx...].firstIndex(of: 0) ?? chars.count
            return TZif.LocalTimeType(
                offset: off, isDaylight: dst, abbreviation: String(decoding: chars[idx..<end], as: UTF8.self))
        }
        at += h.isstdcnt + h.isutcnt  // only meaningful for POSIX-style TZ defaults; not needed
        return TZif(version: h.version, times: times, typeIndices: indices, types: types, footer: nil)
    }

    /// `\n` TZ string `\n`; an empty string is allowed and means no rule.
    mutating func footer() throws -> String? {
        guard at < bytes.count, bytes[at] == 10 else { throw fail("the footer does not start with a newline") }
        guard let end = bytes[(at + 1)...].firstIndex(of: 10) else {
            throw fail("the footer does not end with a newline")
        }
        let text = String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
        at = end + 1
        return text.isEmpty ? nil : text
    }
}

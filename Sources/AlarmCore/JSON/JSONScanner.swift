/// A byte-level JSON reader (RFC 8259) over UTF-8 bytes, with the leniencies and strictness of
/// Foundation's `JSONDecoder`, so that a file is readable by both or by neither.
///
/// Like `JSONDecoder` it works in two steps. The structure is checked for the whole input first
/// (`skipValue`): brackets, braces, colons, commas (a trailing comma before `]` or `}` is
/// allowed), literals, at most `maxDepth` nested arrays and objects, nothing but whitespace
/// (space, tab, CR, LF) between tokens. Strings and numbers are only delimited at that step: a
/// value nobody reads may hold invalid UTF-8, control characters or bad escapes, as it may for
/// `JSONDecoder`. Only the values that are decoded (`string(_:)`, `double(_:)`, `int(_:)`) are
/// checked in full: escapes, surrogate pairs, UTF-8, unescaped control characters, number syntax
/// and range. Errors carry the byte offset; `location(of:)` makes a line and column of it.
struct JSONScanner {
    /// Nesting depth beyond which `JSONDecoder` refuses a document.
    static let maxDepth = 512

    let base: UnsafePointer<UInt8>
    let end: Int
    var i: Int
    var depth = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int = 0) {
        // An empty buffer may have no base address; any valid pointer does when nothing is read.
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
        i = start
    }

    /// The byte at the cursor, or 0 at the end (0 is never valid where a token is expected).
    @inline(__always) var peek: UInt8 { i < end ? base[i] : 0 }

    @inline(__always) mutating func skipWhitespace() {
        while i < end {
            let c = base[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(message: message, offset: offset ?? i)
    }

    /// What is at `offset`, for messages: "the end of the file", `'x'` or a byte in hex.
    func found(at offset: Int? = nil) -> String {
        let k = offset ?? i
        guard k < end else { return "the end of the file" }
        let c = base[k]
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16, uppercase: true)
    }

    /// Consumes `c` after optional whitespace, or fails saying what was expected.
    mutating func expect(_ c: UInt8, _ what: String) throws(JSONSyntaxError) {
        skipWhitespace()
        guard peek == c else { throw fail("expected \(what), found \(found())") }
        i += 1
    }

    // MARK: structure

    /// Consumes `[` or `{` (the cursor is on it), counting the level.
    mutating func enter() throws(JSONSyntaxError) {
        guard depth < Self.maxDepth else {
            throw fail("arrays and objects are nested more than \(Self.maxDepth) deep")
        }
        depth += 1
        i += 1
    }

    /// After an array element: true when another follows (`,` consumed), false at `]`
    /// (consumed; also after a trailing comma, which `JSONDecoder` allows).
    mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        try next(close: UInt8(ascii: "]"), "an array element")
    }

    /// After an object member: true when another follows, false at `}` (consumed).
    mutating func nextMember() throws(JSONSyntaxError) -> Bool {
        try next(close: UInt8(ascii: "}"), "an object member")
    }

    private mutating func next(close: UInt8, _ what: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        let c = peek
        if c == close {
            i += 1
            depth -= 1
            return false
        }
        guard c == UInt8(ascii: ",") else {
            throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))' after \(what), found \(found())")
        }
        i += 1
        skipWhitespace()
        if peek == close {
            i += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After `{` or `[` was entered: consumes the closing byte of an empty container.
    mutating func closesEmpty(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard peek == close else { return false }
        i += 1
        depth -= 1
        return true
    }

    /// A key and its colon; the key's content range and whether it is simple (see `delimitString`).
    mutating func key() throws(JSONSyntaxError) -> (range: Range<Int>, simple: Bool) {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw fail("expected a key in quotes, found \(found())") }
        let k = try delimitString()
        try expect(UInt8(ascii: ":"), "':' after a key")
        return k
    }

    /// Skips one value of any kind, checking its structure only.
    mutating func skipValue() throws(JSONSyntaxError) {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "\""): _ = try delimitString()
        case UInt8(ascii: "["):
            try enter()
            if closesEmpty(UInt8(ascii: "]")) { return }
            repeat { try skipValue() } while try nextElement()
        case UInt8(ascii: "{"):
            try enter()
            if closesEmpty(UInt8(ascii: "}")) { return }
            repeat {
                _ = try key()
                try skipValue()
            } while try nextMember()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = delimitNumber()
        default: throw fail("expected a value, found \(found())")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        var k = 0
        while k < n {
            guard i + k < end, base[i + k] == word.utf8Start[k] else {
                throw fail("unexpected \(found(at: i + k)) in what should be '\(word)'", at: i + k)
            }
            k += 1
        }
        i += n
    }

    /// The bytes of a number, delimited as `JSONDecoder` does: a digit or `-`, then any of
    /// `0-9 . + - e E`. Its syntax is checked when it is decoded.
    mutating func delimitNumber() -> Range<Int> {
        let start = i
        i += 1
        while i < end {
            let c = base[i]
            guard (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2B || c == 0x2D || c == 0x65 || c == 0x45 else {
                break
            }
            i += 1
        }
        return start..<i
    }

    /// The content range of a string (the cursor is on its opening quote, and ends after the
    /// closing one). `simple`: no escapes and no control characters, so the bytes are the string
    /// if they are UTF-8. Escapes are only delimited here: a backslash and the byte after it,
    /// four more bytes (none a quote) after `\u`.
    mutating func delimitString() throws(JSONSyntaxError) -> (range: Range<Int>, simple: Bool) {
        let open = i
        i += 1
        let start = i
        var simple = true
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return (start..<(i - 1), simple)
            }
            if c == UInt8(ascii: "\\") {
                simple = false
                i += 1
                guard i < end else { break }
                if base[i] == UInt8(ascii: "u") {
                    guard end - i > 4 else { break }
                    for k in 1...4 where base[i + k] == UInt8(ascii: "\"") {
                        throw fail("the escape \\u needs four hex digits", at: i - 1)
                    }
                    i += 4
                }
            } else if c < 0x20 {
                simple = false
            }
            i += 1
        }
        throw fail("a string is not closed: its quote is missing", at: open)
    }

    // MARK: decoding values

    /// Whether two ranges of the document hold the same bytes.
    func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where base[a.lowerBound + k] != base[b.lowerBound + k] { return false }
        return true
    }

    /// The string whose content `delimitString` returned, checked in full as `JSONDecoder`
    /// checks a string it decodes.
    func string(_ s: (range: Range<Int>, simple: Bool)) throws(JSONSyntaxError) -> String {
        let bytes = UnsafeBufferPointer(start: base + s.range.lowerBound, count: s.range.count)
        if s.simple {
            // ASCII (ids, expressions, zones, timestamps) is valid UTF-8 as it is: no validation
            // through the generic `String(validating:)`, which took more time than the rest.
            if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw notUTF8(s.range.lowerBound) }
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(s.range.count)
        var k = s.range.lowerBound
        let stop = s.range.upperBound
        while k < stop {
            let c = base[k]
            if c < 0x20 {
                throw fail(
                    "a string holds an unescaped control character (byte 0x\(String(c, radix: 16, uppercase: true))): write it as \\u00XX",
                    at: k)
            }
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                k += 1
                continue
            }
            let at = k
            let e = base[k + 1]
            k += 2
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: k, escape: at)
                k += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // A high surrogate must be followed by an escaped low one.
                    guard stop - k >= 6, base[k] == UInt8(ascii: "\\"), base[k + 1] == UInt8(ascii: "u"),
                        case let low = try hex4(at: k + 2, escape: k), low >= 0xDC00 && low < 0xE000
                    else {
                        throw fail(
                            "the escape \\u\(String(scalar, radix: 16, uppercase: true)) is half of a surrogate pair whose other half is missing",
                            at: at)
                    }
                    k += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw fail(
                        "the escape \\u\(String(scalar, radix: 16, uppercase: true)) is a lone low surrogate", at: at)
                }
                out.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!)
            default:
                throw fail("invalid escape sequence '\\\(found(at: at + 1))' in a string", at: at)
            }
        }
        // Escapes produce whole UTF-8 sequences, so checking the result checks every run between them.
        guard let text = String(validating: out, as: UTF8.self) else { throw notUTF8(s.range.lowerBound) }
        return text
    }

    private func notUTF8(_ offset: Int) -> JSONSyntaxError {
        fail("a string is not valid UTF-8", at: offset)
    }

    private func hex4(at k: Int, escape: Int) throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for j in k..<(k + 4) {
            let c = base[j]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail("the escape \\u needs four hex digits", at: escape)
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Checks a number's syntax: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    func checkNumber(_ r: Range<Int>) throws(JSONSyntaxError) {
        var k = r.lowerBound
        let stop = r.upperBound
        func digit(_ k: Int) -> Bool { k < stop && base[k] >= 0x30 && base[k] <= 0x39 }
        func bad() -> JSONSyntaxError { fail("'\(text(r))' is not a number", at: r.lowerBound) }
        if base[k] == UInt8(ascii: "-") { k += 1 }
        guard digit(k) else { throw bad() }
        if base[k] == 0x30 {
            k += 1
            if digit(k) { throw fail("the number '\(text(r))' starts with a 0 followed by digits", at: r.lowerBound) }
        } else {
            while digit(k) { k += 1 }
        }
        if k < stop && base[k] == UInt8(ascii: ".") {
            k += 1
            guard digit(k) else { throw bad() }
            while digit(k) { k += 1 }
        }
        if k < stop && (base[k] == UInt8(ascii: "e") || base[k] == UInt8(ascii: "E")) {
            k += 1
            if k < stop && (base[k] == UInt8(ascii: "+") || base[k] == UInt8(ascii: "-")) { k += 1 }
            guard digit(k) else { throw bad() }
            while digit(k) { k += 1 }
        }
        guard k == stop else { throw bad() }
    }

    /// The bytes of `r` as text (used for numbers, which are ASCII by construction).
    func text(_ r: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: base + r.lowerBound, count: r.count), as: UTF8.self)
    }

    /// A number decoded as `Double`, as `JSONDecoder` does: nil when it overflows to infinity or
    /// rounds to zero from non-zero digits.
    func double(_ r: Range<Int>) throws(JSONSyntaxError) -> Double? {
        try checkNumber(r)
        guard let v = Double(text(r)), v.isFinite else { return nil }
        if v == 0 && !isTrueZero(r) { return nil }
        return v
    }

    /// `JSONDecoder`'s test that a number that parsed as 0 has no non-zero digit before its
    /// exponent, reproduced with its quirk: it scans in blocks of four bytes and the last one to
    /// three bytes backwards, so the exponent's digits can count (`-0.0e+1` is refused, `0e1`
    /// is not). Only zeros spelled with an exponent are concerned.
    private func isTrueZero(_ r: Range<Int>) -> Bool {
        func check(_ k: Int) -> Bool? {
            switch base[k] {
            case 0x31...0x39: return false
            case UInt8(ascii: "e"), UInt8(ascii: "E"): return true
            default: return nil
            }
        }
        var k = r.lowerBound
        while r.upperBound - k >= 4 {
            for j in 0..<4 { if let res = check(k + j) { return res } }
            k += 4
        }
        var j = r.upperBound - 1
        while j >= k {
            if let res = check(j) { return res }
            j -= 1
        }
        return true
    }

    /// A number decoded as `Int`, as `JSONDecoder` does: plain integers directly, others
    /// (`50.0`, `1e2`) when they have an exact integer value. Nil when it does not fit.
    func int(_ r: Range<Int>) throws(JSONSyntaxError) -> Int? {
        try checkNumber(r)
        let t = text(r)
        if let v = Int(t) { return v }
        guard let d = Double(t), let v = Int(exactly: d) else { return nil }
        // Beyond 2^53 a Double is too coarse to stand for the integer; JSONDecoder reads those
        // exactly (as a Decimal), which this reader does not: it refuses them.
        return d.magnitude < 9_007_199_254_740_992 ? v : nil
    }

    // MARK: locations

    /// The 1-based line and column (in bytes) of `offset`.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for k in 0..<min(offset, end) where base[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        return (line, offset - lineStart + 1)
    }
}

/// Bytes that are not JSON: what is wrong and where (a byte offset into the input).
struct JSONSyntaxError: Error {
    var message: String
    var offset: Int
}

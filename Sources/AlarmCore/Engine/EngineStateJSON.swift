import FoundationEssentials

/// state.json's bytes: `JSONEncoder`/`JSONDecoder` for the whole state, except its `marks` (one
/// per alarm, 10,000 in a big store), which are read and written here directly. The generic
/// coders spend most of a start on them; the bytes are the same JSON either way (marks are
/// `Date`'s own Codable form, a Double, written in its shortest exact form so a round trip keeps
/// every mark exactly), and either side reads what the other wrote.
public enum EngineStateJSON {
    /// Decodes a state. A document the fast path does not take (malformed, or marks that are
    /// not all numbers) goes to `JSONDecoder` whole, so errors read as they always did.
    public static func decode(_ bytes: [UInt8]) throws -> EngineState {
        if let split = try? splitMarks(bytes) {
            var rest = Array(bytes[..<split.range.lowerBound])
            rest.append(contentsOf: "{}".utf8)
            rest.append(contentsOf: bytes[split.range.upperBound...])
            if var state = try? JSONDecoder().decode(EngineState.self, from: Data(rest)) {
                state.marks = split.marks
                return state
            }
        }
        return try JSONDecoder().decode(EngineState.self, from: Data(bytes))
    }

    /// Encodes a state (keys unsorted: sorting 10,000 marks would cost more than the rest).
    public static func encode(_ state: EngineState) throws -> [UInt8] {
        var bare = state
        bare.marks = [:]
        let head = Array(try JSONEncoder().encode(bare))
        guard let split = try? splitMarks(head), split.range.count == 2 else {
            return Array(try JSONEncoder().encode(state))
        }
        var out: [UInt8] = []
        out.reserveCapacity(head.count + state.marks.count * 32)
        out.append(contentsOf: head[..<split.range.lowerBound])
        out.append(UInt8(ascii: "{"))
        var first = true
        for (id, date) in state.marks {
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else { return Array(try JSONEncoder().encode(state)) }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            AlarmListWriter.quoted(id, into: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: number(seconds).utf8)
        }
        out.append(UInt8(ascii: "}"))
        out.append(contentsOf: head[split.range.upperBound...])
        return out
    }

    /// The shortest text that reads back as exactly `x` (what `JSONEncoder` writes: no `.0`).
    static func number(_ x: Double) -> String {
        var s = x.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// The top-level `marks` member's value (its byte range) and the marks it holds; throws when
    /// the document is not an object, has no `marks`, or a mark is not a number.
    static func splitMarks(_ bytes: [UInt8]) throws -> (range: Range<Int>, marks: [String: Date]) {
        struct NotTaken: Error {}
        return try bytes.withUnsafeBufferPointer { buf throws -> (range: Range<Int>, marks: [String: Date]) in
            var s = JSONScanner(buf)
            s.skipWhitespace()
            guard s.peek == UInt8(ascii: "{") else { throw NotTaken() }
            try s.enter()
            if s.closesEmpty(UInt8(ascii: "}")) { throw NotTaken() }
            repeat {
                let k = try s.key()
                s.skipWhitespace()
                guard try s.string(k) == "marks" else {
                    try s.skipValue()
                    continue
                }
                let start = s.i
                guard s.peek == UInt8(ascii: "{") else { throw NotTaken() }
                var marks: [String: Date] = [:]
                marks.reserveCapacity(buf.count / 32)
                try s.enter()
                if !s.closesEmpty(UInt8(ascii: "}")) {
                    repeat {
                        let id = try s.string(try s.key())
                        s.skipWhitespace()
                        let c = s.peek
                        guard c == UInt8(ascii: "-") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) else {
                            throw NotTaken()
                        }
                        let r = s.delimitNumber()
                        guard let v = try s.double(r) else { throw NotTaken() }
                        marks[id] = Date(timeIntervalSinceReferenceDate: v)
                    } while try s.nextMember()
                }
                let range = start..<s.i
                // The rest must be well formed too (JSONDecoder would refuse it otherwise).
                while try s.nextMember() {
                    _ = try s.key()
                    try s.skipValue()
                }
                s.skipWhitespace()
                guard s.i == s.end else { throw NotTaken() }
                return (range, marks)
            } while try s.nextMember()
            throw NotTaken()
        }
    }
}

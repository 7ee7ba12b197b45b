import Foundation
import Testing

@testable import AlarmCore

/// state.json's own coder (`EngineStateJSON`: the marks read and written directly, the rest by
/// the generic coders) against Foundation's `JSONEncoder`/`JSONDecoder`, which wrote and read
/// the file before: each reads what the other writes, to the exact mark, and what the fast path
/// does not take fails as it always did.
@Suite struct EngineStateJSONTests {
    let utc = zone("UTC")

    /// States the engine really persists: idle with many marks, snoozed, ringing with a journal.
    func states() throws -> [EngineState] {
        var out: [EngineState] = [EngineState()]
        var rig = Rig(
            [try alarm("wake", "07:00"), try alarm("gym", "Mon..Fri 06:00", once: true)],
            now: at("2026-05-04T05:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T06:00:00Z"))
        if let s = rig.persisted { out.append(s) }
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(300))
        if let s = rig.persisted { out.append(s) }
        var odd = out.last ?? EngineState()
        odd.journal = Journal(history: [], store: [])
        // Ids that need escaping, and marks whose shortest decimal form is long or has an exponent.
        let values: [Double] = [0, -1, 1e-7, 817_100_422.691_484_5, 1.0 / 3.0, 5e15, 123_456_789_012.5, -978_307_200]
        for (k, v) in values.enumerated() {
            odd.marks["id-\(k) \"quoted\" \\ é \u{1}"] = Date(timeIntervalSinceReferenceDate: v)
        }
        for k in 0..<500 {
            odd.marks["big\(k)"] = Date(timeIntervalSinceReferenceDate: Double(k) * 7_919.123_456_7 + 800_000_000.000_1)
        }
        out.append(odd)
        return out
    }

    @Test func eachReadsWhatTheOtherWritesExactly() throws {
        for s in try states() {
            let ours = try EngineStateJSON.encode(s)
            let theirs = Array(try JSONEncoder().encode(s))
            #expect(try JSONDecoder().decode(EngineState.self, from: Data(ours)) == s)
            #expect(try EngineStateJSON.decode(theirs) == s)
            #expect(try EngineStateJSON.decode(ours) == s)
            let pretty = JSONEncoder()
            pretty.outputFormatting = [.prettyPrinted, .sortedKeys]
            #expect(try EngineStateJSON.decode(Array(try pretty.encode(s))) == s)
        }
    }

    @Test func theFastPathTakesTheMarks() throws {
        let s = try states().last!
        let bytes = try EngineStateJSON.encode(s)
        let split = try EngineStateJSON.splitMarks(bytes)
        #expect(split.marks == s.marks)
        #expect(bytes[split.range.lowerBound] == UInt8(ascii: "{"))
        #expect(bytes[split.range.upperBound - 1] == UInt8(ascii: "}"))
    }

    @Test func whatTheFastPathRefusesFailsAsJSONDecoderDoes() throws {
        let good = String(decoding: try EngineStateJSON.encode(try states()[2]), as: UTF8.self)
        let bad = [
            String(good.dropLast(5)),  // truncated
            good + " x",  // garbage after the document
            // a mark that is not a number
            good.replacingOccurrences(of: "\"marks\":{", with: "\"marks\":{\"a\":\"soon\","),
            good.replacingOccurrences(of: "\"marks\":{", with: "\"marks\":{\"a\":01,"),  // not JSON's number syntax
            #"{"ring":{"state":"idle"},"marks":null}"#,
            #"{"ring":{"state":"idle"}}"#,
            "[]",
            "",
        ]
        for text in bad {
            let bytes = Array(text.utf8)
            #expect(throws: (any Error).self, "\(text.prefix(60))") {
                try JSONDecoder().decode(EngineState.self, from: Data(bytes))
            }
            #expect(throws: (any Error).self, "\(text.prefix(60))") { try EngineStateJSON.decode(bytes) }
        }
        // Marks written as integers are numbers too (JSONDecoder takes them).
        let ints = Array(#"{"ring":{"state":"idle"},"marks":{"a":5,"b":-2e3}}"#.utf8)
        #expect(
            try EngineStateJSON.decode(ints).marks == [
                "a": Date(timeIntervalSinceReferenceDate: 5), "b": Date(timeIntervalSinceReferenceDate: -2000),
            ])
        #expect(try EngineStateJSON.decode(ints) == (try JSONDecoder().decode(EngineState.self, from: Data(ints))))
    }
}

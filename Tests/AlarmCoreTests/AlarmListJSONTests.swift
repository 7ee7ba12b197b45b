import Foundation
import Testing

@testable import AlarmCore

/// Issue #9: the alarm list JSON is read by `AlarmListReader` and written by `AlarmListWriter`
/// instead of JSONDecoder / JSONEncoder. Both must be indistinguishable from Foundation's: the
/// writer byte for byte, the reader accepting and refusing the same documents with equal results.
@Suite struct AlarmListJSONTests {
    // MARK: generated alarms

    static let labelPieces = [
        "wake", "x", "", "\"quoted\"", "back\\slash", "a/b", "</script>", "tab\there", "new\nline", "\u{0}",
        "\u{1}\u{1f}",
        "\u{7f}", "é", "日本語", "😀", "👩‍👩‍👧", "\u{2028}\u{2029}", "\u{fffd}", "\u{ffff}", "\r\n", "\u{8}\u{c}", " ", "{}[],:",
    ]
    static let zoneNames = [
        "Europe/Berlin", "europe/berlin", "America/New_York", "UTC", "Asia/Kolkata", "Australia/Lord_Howe",
        "US/Eastern",
    ]
    static let expressions = [
        "07:00", "Mon..Fri 06:30", "Sat,Sun 09:00", "*-12-25 08:00", "Fri *-*-13 07:00", "*-*-01 00:00",
        "2027-02-28 23:59:59",
        "*-*-* *:0/15", "1,2,3,7:00", "Mon *-*-1..7 9:00", "2027..2029,2031-01-01 00:00", "*-02-29 07:00",
        "*-*~01 09:00", "Mon *-05~07/1", "monthly", "2027-12-24", "quarterly",
    ]
    static let doubles: [Double] = [
        300, 0.5, 1e-3, 1e-5, 1e20, 1e16, 1e15, 123.456, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 2.5e-7, 60, 0, -0.0,
        86400.25,
    ]

    static func randomAlarm(_ n: Int, _ rng: inout SeededRandom) -> Alarm {
        func maybe<T>(_ v: @autoclosure () -> T) -> T? { Bool.random(using: &rng) ? v() : nil }
        let trigger: AlarmTrigger
        if Int.random(in: 0..<4, using: &rng) == 0 {
            let ms = Double(Int.random(in: 0..<4_102_444_800_000, using: &rng)) / 1000
            trigger = .instant(Date(timeIntervalSince1970: ms.rounded(.down)))  // stored as whole seconds
        } else {
            var e = try! CalendarExpression(expressions.randomElement(using: &rng)!)
            if Bool.random(using: &rng) { e.zone = try! Zones.canonicalName(zoneNames.randomElement(using: &rng)!) }
            trigger = .calendar(e)
        }
        var label = ""
        for _ in 0..<Int.random(in: 0..<4, using: &rng) { label += labelPieces.randomElement(using: &rng)! }
        return Alarm(
            id: "a\(n)", trigger: trigger, label: maybe(label), sound: maybe("birds/" + label + ".wav"),
            once: Bool.random(using: &rng),
            snooze: maybe(doubles.randomElement(using: &rng)!), ring: maybe(Double.random(in: 0..<1e6, using: &rng)),
            volume: maybe(Int.random(in: -5...200, using: &rng)), fadeIn: maybe(doubles.randomElement(using: &rng)!),
            skipNext: Bool.random(using: &rng),
            created: maybe(
                Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_102_444_800_000, using: &rng)) / 1000)),
            every: maybe(randomEvery(trigger, &rng)), from: maybe(randomBound(&rng)), until: maybe(randomBound(&rng)),
            skipHolidays: Bool.random(using: &rng),
            pause: [nil, Pause.indefinitely, Pause.until(randomBound(&rng))].randomElement(using: &rng)!,
            volumeFrom: maybe(Int.random(in: 0...100, using: &rng)),
            maxSnoozes: [nil, SnoozeLimit.unlimited, .limited(Int.random(in: 0...20, using: &rng))].randomElement(
                using: &rng)!,
            whenIgnored: [nil, WhenIgnored.snooze, .silence].randomElement(using: &rng)!,
            preAlarm: [nil, try? PreAlarmLeads([1800, 600]), try? PreAlarmLeads([45])].randomElement(using: &rng)!,
            fallbackSound: maybe(label + "fallback.flac"))
    }

    /// Issue #12's rules, of the kind that fits the trigger.
    static func randomEvery(_ trigger: AlarmTrigger, _ rng: inout SeededRandom) -> RepeatInterval {
        if case .instant = trigger {
            return .seconds([1, 59, 60, 5400, 86400, 129_600, 604_800].randomElement(using: &rng)!)
        }
        return Bool.random(using: &rng)
            ? .days(Int.random(in: 1...30, using: &rng)) : .weeks(Int.random(in: 1...8, using: &rng))
    }

    static func randomBound(_ rng: inout SeededRandom) -> ScheduleBound {
        let c = CivilTime(localSeconds: Int64.random(in: 0..<7_000_000_000, using: &rng))
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return .day(CivilTime(year: c.year, month: c.month, day: c.day))
        case 1: return .local(c)
        default:
            return .instant(Date(timeIntervalSince1970: TimeInterval(Int64.random(in: 0..<7_000_000_000, using: &rng))))
        }
    }

    static func randomList(seed: UInt64, count: Int) -> [Alarm] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { randomAlarm($0, &rng) }
    }

    static func foundationEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return e
    }

    // MARK: writer

    @Test func theWriterMatchesJSONEncoderByteForByte() throws {
        for seed in 0..<200 as Range<UInt64> {
            let alarms = Self.randomList(seed: seed, count: Int(seed % 7))
            let fast = try AlarmListWriter.encode(alarms)
            let foundation = Array(try Self.foundationEncoder().encode(alarms))
            #expect(fast == foundation, "seed \(seed): \(String(decoding: fast, as: UTF8.self))")
        }
    }

    @Test func theWriterMatchesJSONEncoderWithNext() throws {
        struct Listed: Encodable {
            let alarm: Alarm
            let next: String?
            enum Keys: String, CodingKey {
                case next
                case volumeFrom = "volume_from"
                case maxSnoozes = "max_snoozes"
                case whenIgnored = "when_ignored"
                case preAlarm = "pre_alarm"
                case fallbackSound = "fallback_sound"
            }
            func encode(to encoder: Encoder) throws {
                try alarm.encode(to: encoder)
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(next, forKey: .next)
                // The list form has issue #13's keys always (null when unset); the store only when set.
                if alarm.volumeFrom == nil { try c.encodeNil(forKey: .volumeFrom) }
                if alarm.maxSnoozes == nil { try c.encodeNil(forKey: .maxSnoozes) }
                if alarm.whenIgnored == nil { try c.encodeNil(forKey: .whenIgnored) }
                if alarm.preAlarm == nil { try c.encodeNil(forKey: .preAlarm) }
                if alarm.fallbackSound == nil { try c.encodeNil(forKey: .fallbackSound) }
            }
        }
        let zones = try ["UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kolkata"].map { try Zones.zone(named: $0) }
        func next(_ a: Alarm) -> AlarmListWriter.Next? {
            guard !a.once else { return nil }
            return (Date(timeIntervalSince1970: 1_800_000_000 + 3671 * Double(a.id.count)), zones[a.id.count % 4])
        }
        for seed in 1000..<1100 as Range<UInt64> {
            let alarms = Self.randomList(seed: seed, count: Int(seed % 5))
            let fast = try AlarmListWriter.encode(alarms, next: next)
            let foundation = Array(
                try Self.foundationEncoder().encode(
                    alarms.map { a in Listed(alarm: a, next: next(a).map { RFC3339.format($0.date, in: $0.zone) }) }))
            #expect(fast == foundation, "seed \(seed)")
        }
    }

    @Test func aNonFiniteNumberIsRefusedAsJSONEncoderRefusesIt() {
        let a = Alarm(id: "inf", trigger: .instant(Date(timeIntervalSince1970: 0)), snooze: .infinity)
        #expect(throws: AlarmListWriter.NonFiniteNumber.self) { try AlarmListWriter.encode([a]) }
        #expect(throws: EncodingError.self) { try Self.foundationEncoder().encode([a]) }
    }

    /// Issue #29: `alarm list --json` writes the list in pieces as it is made; the pieces are
    /// the whole list's bytes, and an alarm JSON cannot hold stops it before any piece goes out.
    @Test func thePiecesOfAWrittenListAreTheWholeList() throws {
        for seed in 3000..<3040 as Range<UInt64> {
            let alarms = Self.randomList(seed: seed, count: Int(seed % 40))
            for chunk in [1, 100, 1 << 16] {
                var pieces: [[UInt8]] = []
                try AlarmListWriter.write(alarms, chunk: chunk) { pieces.append(Array($0)) }
                #expect(Array(pieces.joined()) == (try AlarmListWriter.encode(alarms)), "seed \(seed), chunk \(chunk)")
                #expect(pieces.count <= alarms.count + 1)
            }
        }
        let bad =
            Self.randomList(seed: 3, count: 5) + [
                Alarm(id: "nan", trigger: .instant(Date(timeIntervalSince1970: 0)), fadeIn: .nan)
            ]
        var handedOn = 0
        #expect(throws: AlarmListWriter.NonFiniteNumber.self) {
            try AlarmListWriter.write(bad, chunk: 1) { _ in handedOn += 1 }
        }
        #expect(handedOn == 0)
    }

    // MARK: reader

    enum Outcome: Equatable {
        case alarms([Alarm])
        case refused
    }

    static func fast(_ bytes: [UInt8]) -> Outcome {
        (try? AlarmListReader.decode(bytes)).map(Outcome.alarms) ?? .refused
    }

    static func foundation(_ bytes: [UInt8]) -> Outcome {
        (try? JSONDecoder().decode([Alarm].self, from: Data(bytes))).map(Outcome.alarms) ?? .refused
    }

    static func expectAgreement(
        _ bytes: [UInt8], _ note: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let f = fast(bytes)
        let j = foundation(bytes)
        #expect(
            f == j,
            "\(note()) \(String(decoding: bytes, as: UTF8.self).debugDescription): reader \(f), JSONDecoder \(j)",
            sourceLocation: sourceLocation)
    }

    /// `created` is whole milliseconds (`Alarm.stamp`) and must be written as exactly those: it
    /// was written 1 ms early when `t * 1000` came out just below a whole number.
    @Test func createdSurvivesTheStoreRoundTripExactly() throws {
        var rng = SeededRandom(seed: 77)
        for _ in 0..<20_000 {
            let ms = Double(Int.random(in: 0..<4_102_444_800_000, using: &rng)) / 1000
            let a = Alarm(
                id: "c", trigger: .instant(Date(timeIntervalSince1970: 0)), created: Date(timeIntervalSince1970: ms))
            let text = RFC3339.format(a.created!, in: .utc, milliseconds: true)
            #expect(
                RFC3339.parse(text).map(Alarm.stamp) == a.created,
                "\(ms) written as \(text), read as \(RFC3339.parse(text)!.timeIntervalSince1970) stamped \(a.created!.timeIntervalSince1970)"
            )
        }
    }

    /// RFC3339.format writes digits itself now: the same text as CivilTime's description and
    /// the offset, in zones east and west, with and without milliseconds.
    @Test func rfc3339FormatIsCivilTimeAndOffset() throws {
        var rng = SeededRandom(seed: 5)
        let zones = try ["UTC", "America/St_Johns", "Asia/Kolkata", "Pacific/Chatham", "America/New_York"].map {
            try Zones.zone(named: $0)
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        for _ in 0..<5000 {
            let t =
                Double(Int.random(in: -2_000_000_000..<8_000_000_000, using: &rng)) / 1000
                * Double.random(in: 0.5...1, using: &rng)
            let date = Date(timeIntervalSince1970: t)
            let zone = zones.randomElement(using: &rng)!
            let whole = Int64(t.rounded(.down))
            let offset = zone.offset(atUnix: whole)
            let sign = offset < 0 ? "-" : "+"
            let expected =
                CivilTime(localSeconds: whole + Int64(offset)).description + sign + two(abs(offset) / 3600) + ":"
                + two(abs(offset) % 3600 / 60)
            #expect(RFC3339.format(date, in: zone) == expected)
            let withMs = RFC3339.format(date, in: zone, milliseconds: true)
            #expect(withMs.count == expected.count + 4)
            #expect(RFC3339.parse(withMs).map { abs($0.timeIntervalSince1970 - t) < 0.001 } == true, "\(t) \(withMs)")
        }
    }

    @Test func theReaderReadsWhatTheWriterWrote() throws {
        for seed in 2000..<2300 as Range<UInt64> {
            let alarms = Self.randomList(seed: seed, count: Int(seed % 9))
            let back = try AlarmListReader.decode(try AlarmListWriter.encode(alarms))
            for (a, b) in zip(alarms, back) { #expect(a == b, "seed \(seed)") }
            #expect(back.count == alarms.count)
        }
    }

    /// The reader parses each expression text once per document and keeps the last `created`:
    /// alarms that share them still get their own zone, created and everything else.
    @Test func sharedExpressionsAndCreatedStayPerAlarm() throws {
        let doc = """
            [{"id":"a","expression":"Mon..Fri 06:30","mode":"floating","once":false,"skip_next":false,"created":"2026-01-01T10:00:00.000+00:00"},
             {"id":"b","expression":"Mon..Fri 06:30","zone":"Europe/Berlin","mode":"pinned","once":false,"skip_next":false,"created":"2026-01-01T10:00:00.000+00:00"},
             {"id":"c","expression":"Mon..Fri 06:30","zone":"America/New_York","mode":"pinned","once":false,"skip_next":true,"created":"2026-01-02T10:00:00.000+00:00"},
             {"id":"d","expression":"Mon..Fri 06:30","mode":"floating","once":true,"skip_next":false,"created":"2026-01-01T10:00:00.000+00:00"}]
            """
        let ours = try AlarmListReader.decode(Array(doc.utf8))
        let theirs = try JSONDecoder().decode([Alarm].self, from: Data(doc.utf8))
        #expect(ours == theirs)
        let zones = ours.map { a -> String? in
            if case .calendar(let e) = a.trigger { return e.zone }
            return "?"
        }
        #expect(zones == [nil, "Europe/Berlin", "America/New_York", nil])
        #expect(
            ours.map(\.created) == [
                at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00Z"), at("2026-01-02T10:00:00Z"),
                at("2026-01-01T10:00:00Z"),
            ])
    }

    /// Hand-made documents in random shapes: keys in any order, compact or spread out, escapes
    /// where plain text would do, nulls for absent values, unknown keys with nested values.
    @Test func theReaderAgreesWithJSONDecoderOnGeneratedDocuments() throws {
        for seed in 3000..<3400 as Range<UInt64> {
            var rng = SeededRandom(seed: seed)
            let alarms = (0..<Int(seed % 6)).map { Self.randomAlarm($0, &rng) }
            let doc = Self.scrambled(alarms, &rng)
            Self.expectAgreement(doc, "seed \(seed)")
            #expect(Self.fast(doc) == .alarms(alarms), "seed \(seed)")
        }
    }

    /// A JSON value as the generator writes it.
    enum Value {
        case string(String)
        case number(String)
        case bool(Bool)
        case null
    }

    /// The members of `a`'s Codable form, with numbers in varied but equal spellings.
    static func members(_ a: Alarm, _ rng: inout SeededRandom) -> [(String, Value)] {
        func str(_ s: String?) -> Value { s.map(Value.string) ?? .null }
        func num(_ d: Double?) -> Value {
            guard let d else { return .null }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .number("\(d)")
            case 1 where d == d.rounded() && abs(d) < 1e15: return .number("\(Int(d))")
            default: return .number("\(d)".replacing("e", with: "E"))
            }
        }
        var out: [(String, Value)] = [("id", .string(a.id)), ("mode", .string(a.mode.rawValue)), ("zone", str(a.zone))]
        switch a.trigger {
        case .instant(let t): out.append(("at", .string(RFC3339.format(t, in: .utc))))
        case .calendar(let e): out.append(("expression", .string(e.print(withZone: false))))
        }
        out += [
            ("label", str(a.label)), ("sound", str(a.sound)), ("once", .bool(a.once)), ("snooze", num(a.snooze)),
            ("ring", num(a.ring)), ("fade_in", num(a.fadeIn)), ("skip_next", .bool(a.skipNext)),
        ]
        if let v = a.volume {
            out.append(("volume", .number(Bool.random(using: &rng) ? "\(v)" : "\(v).0")))
        } else {
            out.append(("volume", .null))
        }
        if let c = a.created { out.append(("created", .string(RFC3339.format(c, in: .utc, milliseconds: true)))) }
        out += [
            ("every", str(a.every?.description)), ("from", str(a.from?.description)),
            ("until", str(a.until?.description)),
            ("skip_holidays", .bool(a.skipHolidays)), ("paused", .bool(a.pause != nil)),
            ("paused_until", str(a.pausedUntilBound?.description)),
            ("volume_from", a.volumeFrom.map { .number("\($0)") } ?? .null),
            ("when_ignored", str(a.whenIgnored?.rawValue)),
            ("pre_alarm", str(a.preAlarm?.description)),
            ("fallback_sound", str(a.fallbackSound)),
        ]
        switch a.maxSnoozes {
        case .limited(let n)?: out.append(("max_snoozes", .number("\(n)")))
        case .unlimited?: out.append(("max_snoozes", .string("unlimited")))
        case nil: out.append(("max_snoozes", .null))
        }
        return out
    }

    static func scrambled(_ alarms: [Alarm], _ rng: inout SeededRandom) -> [UInt8] {
        var out = "[" + (Bool.random(using: &rng) ? "\n" : "")
        for (n, a) in alarms.enumerated() {
            if n > 0 { out += Bool.random(using: &rng) ? "," : " ,\r\n\t" }
            var parts: [String] = []
            var labelWritten = false
            for (key, value) in members(a, &rng).shuffled(using: &rng) {
                if case .null = value, key != "id", Bool.random(using: &rng) { continue }  // absent instead of null
                parts.append(escapedKey(key, &rng) + (Bool.random(using: &rng) ? ":" : " : ") + json(value, &rng))
                if key == "label" { labelWritten = true }
            }
            if Bool.random(using: &rng) {
                parts.append("\"extra\": {\"nested\": [1, -2.5e3, true, null, \"\\u00e9\\/\\q\", {}], \"s\": \"\\x\"}")
            }
            if labelWritten, Bool.random(using: &rng) { parts.append("\"label\": \"second label loses\"") }
            out += "{" + parts.joined(separator: ",") + (Bool.random(using: &rng) ? "," : "") + "}"
        }
        out += !alarms.isEmpty && Bool.random(using: &rng) ? ",]" : "]\n"
        return Array(out.utf8)
    }

    static func escapedKey(_ key: String, _ rng: inout SeededRandom) -> String {
        guard Int.random(in: 0..<5, using: &rng) == 0 else { return "\"" + key + "\"" }
        return "\""
            + key.unicodeScalars.map {
                "\\u" + String(repeating: "0", count: 4 - String($0.value, radix: 16).count)
                    + String($0.value, radix: 16)
            }.joined() + "\""
    }

    static func json(_ value: Value, _ rng: inout SeededRandom) -> String {
        switch value {
        case .string(let s):
            var out = "\""
            for u in s.unicodeScalars {
                if u == "\"" || u == "\\" || u.value < 0x20 || (u.value >= 0x80 && Bool.random(using: &rng)) {
                    for unit in String(u).utf16 {
                        let h = String(unit, radix: 16, uppercase: Bool.random(using: &rng))
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    }
                } else if u == "/" && Bool.random(using: &rng) {
                    out += "\\/"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
            return out + "\""
        case .number(let text): return text
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }
}

/// Documents meant to break a reader: both readers must accept them with equal results or both
/// refuse them. Decided (as JSONDecoder does): duplicate keys, the first wins; trailing commas are
/// allowed; a value nobody reads (an unknown key's) is only delimited, so bad escapes, control
/// characters and invalid UTF-8 inside it pass, while the same in a decoded value or in a key of
/// an alarm object refuse the document.
@Suite struct AlarmListHostileTests {
    static let valid =
        #"{"id": "a", "expression": "Mon..Fri *-*-* 06:30:00", "zone": "Europe/Berlin", "label": "x", "snooze": 300, "volume": 50, "once": false, "created": "2026-01-02T03:04:05.678+00:00"}"#

    /// `valid` with `key`'s value replaced (or added) by `raw` JSON text.
    static func with(_ key: String, _ raw: String) -> String {
        "[{\"\(key)\": \(raw), " + valid.dropFirst() + "]"
    }

    static let documents: [String] = [
        "[" + valid + "]", "[" + valid + ",]", "[" + valid + "," + valid.replacing(#""a""#, with: #""b""#) + "]",
        "[]", "[ ]", " [] ", "[]x", "[],", "[,]", "[" + valid + ",,]", "{}", "null", "1", "\"x\"", "[1]", "[null]",
        "[[]]",
        "[{}]", "[{,}]", "[{\"id\": \"a\", \"expression\": \"07:00\",}]", "[{\"id\" \"a\"}]", "[{'id': 'a'}]",
        "[{\"id\": \"a\" \"expression\": \"07:00\"}]",
        // Truncations and wrong types.
        String(("[" + valid).prefix(40)), "[" + valid, "[" + valid + "]]",
        with("id", "null"), with("id", "5"), with("id", "[]"), "[{\"expression\": \"07:00\"}]",
        with("expression", "null"), with("expression", "7"), with("expression", "\"25:00\""),
        with("expression", "\"\""),
        with("at", "null"), with("at", "\"2026-01-02T03:04:05Z\""), with("at", "\"tomorrow\""), with("at", "12"),
        with("zone", "\"Mars/Olympus\""), with("zone", "\"europe/berlin\""), with("zone", "null"),
        with("zone", "\"../etc/passwd\""),
        with("created", "\"yesterday\""), with("created", "null"),
        with("created", "\"2026-01-02T03:04:05.1234567+05:30\""),
        with("once", "1"), with("once", "\"true\""), with("once", "null"), with("skip_next", "true"),
        with("label", "5"), with("label", "null"), with("sound", "{}"),
        with("volume", "50.0"), with("volume", "1e2"), with("volume", "50.5"), with("volume", "-0"),
        with("volume", "\"50\""),
        with("volume", "9223372036854775807"), with("volume", "9223372036854775808"), with("volume", "1e19"),
        with("volume", "15e-1"),
        with("snooze", "1e400"), with("snooze", "-1e400"), with("snooze", "1e-400"), with("snooze", "2e-324"),
        with("snooze", "3e-324"),
        with("snooze", "-0.0e+1"), with("snooze", "0.0e+1"), with("snooze", "-0e1"),
        with("snooze", "123456789012345678901234567890"),
        with("snooze", "01"), with("snooze", "1."), with("snooze", ".5"), with("snooze", "+1"), with("snooze", "-"),
        with("snooze", "1e"),
        with("snooze", "1.e5"), with("snooze", "1-2"), with("snooze", "1e5e5"), with("snooze", "--1"),
        with("snooze", "\"300\""),
        with("ring", "1E+2"), with("fade_in", "0.000"), with("fade_in", "truex"), with("fade_in", "nul"),
        // Escapes, surrogates, control characters, NUL, in decoded and in ignored values.
        with("label", #""\ud83d\ude00""#), with("label", #""\uD83D\uDE00""#), with("label", #""\ud83d""#),
        with("label", #""\ude00""#),
        with("label", #""\ud83dx""#), with("label", #""\ud83d\u0041""#), with("label", #""\x""#),
        with("label", #""\u12""#),
        with("label", #""\u12"}]"#), with("label", #""\u00e9\/\b\f\n\r\t\"\\""#), with("label", #""\u0000""#),
        with("label", "\"a\tb\""),
        with("label", "\"a\u{7f}b\""), with("label", "\"a\u{0}b\""), with("label", "\"\\"), with("label", "\"abc"),
        with("unknown", #""\x""#), with("unknown", "\"a\tb\u{0}\""), with("unknown", #""\ud83d""#),
        with("unknown", "01"),
        with("unknown", "1.e5"), with("unknown", "-"), with("unknown", "[1,{\"k\":[true,null,]},]"),
        with("unknown", "tru"),
        with("\\u0069d", "\"escaped-key\""), with("i\\u0064", "null"), with("\\q", "1"), with("ids", "\"x\""),
        "[" + valid + "]\u{0}", "\u{0}[" + valid + "]", "\u{FEFF}[" + valid + "]",
        // Duplicate keys: the first wins, the second is not even decoded.
        with("label", "\"first\"").replacing("\"label\": \"x\"", with: "\"label\": \"second\""),
        with("label", "null").replacing("\"label\": \"x\"", with: "\"label\": 5"),
        with("volume", "\"bad\""), with("volume", "20").replacing("\"volume\": 50", with: "\"volume\": \"bad\""),
        with("id", "\"b\""),
        with("expression", "\"bad\"").replacing("\"expression\": \"Mon", with: "\"expression\": \"Tue"),
        // Issue #12's keys.
        with("every", "\"2w\""), with("every", "\"3d\""), with("every", "\"90m\""), with("every", "\"2\""),
        with("every", "5"),
        with("every", "null"), with("every", "\"1.5d\""), with("from", "\"2026-11-23\""),
        with("from", "\"2026-13-01\""),
        with("from", "\"2026-11-23T06:30\""), with("from", "\"2026-11-23T06:30:00+01:00\""),
        with("until", "\"someday\""),
        with("until", "null"), with("until", "20261123"), with("skip_holidays", "true"), with("skip_holidays", "1"),
        with("skip_holidays", "null"), with("paused", "true"), with("paused", "\"yes\""),
        with("paused_until", "\"2026-12-01\""),
        with("paused_until", "\"soon\""), with("paused_until", "null"),
        "[{\"id\": \"i\", \"at\": \"2026-01-02T03:04:05Z\", \"every\": \"90m\"}]",
        "[{\"id\": \"i\", \"at\": \"2026-01-02T03:04:05Z\", \"every\": \"2w\"}]",
    ]

    @Test func hostileDocumentsAreAcceptedOrRefusedAsJSONDecoderDoes() {
        for doc in Self.documents { AlarmListJSONTests.expectAgreement(Array(doc.utf8)) }
    }

    @Test func nestingUpTo512LevelsIsAllowedAndNoDeeper() {
        for depth in [1, 100, 509, 510, 511, 600] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            AlarmListJSONTests.expectAgreement(
                Array(AlarmListHostileTests.with("unknown", nested).utf8), "depth \(depth)")
        }
    }

    @Test func invalidUTF8IsRefusedWhereItIsReadAndPassesWhereItIsNot() {
        let bad: [[UInt8]] = [
            [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
        ]
        for b in bad {
            for key in ["label", "unknown", "key"] {
                var doc = Array("[{\"id\": \"a\", \"expression\": \"07:00\", \"".utf8)
                if key == "key" {
                    doc += Array("k".utf8) + b + Array("\": 1}]".utf8)
                } else {
                    doc += Array("\(key)\": \"".utf8) + b + Array("\"}]".utf8)
                }
                AlarmListJSONTests.expectAgreement(doc, "\(b) in \(key)")
            }
        }
    }

    /// Every prefix of a document, and thousands of random byte edits of it.
    @Test func truncatedAndMutatedDocumentsAgree() throws {
        var rng = SeededRandom(seed: 9)
        let alarms = (0..<3).map { AlarmListJSONTests.randomAlarm($0, &rng) }
        let doc = try AlarmListWriter.encode(alarms)
        for n in 0..<doc.count { AlarmListJSONTests.expectAgreement(Array(doc.prefix(n)), "prefix \(n)") }
        let interesting = Array("[]{}\",:\\0123456789.eE+-tfnu \n\t".utf8) + [0, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for round in 0..<3000 {
            var m = doc
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let k = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: m.remove(at: k)
                case 1: m.insert(interesting.randomElement(using: &rng)!, at: k)
                default: m[k] = interesting.randomElement(using: &rng)!
                }
            }
            AlarmListJSONTests.expectAgreement(m, "round \(round)")
        }
    }

    @Test func problemsNameThePlace() {
        func problem(_ doc: String) -> String {
            do {
                _ = try AlarmListReader.decode(Array(doc.utf8))
                return "accepted"
            } catch { return "\(error)" }
        }
        let third = "[" + Self.valid + "," + Self.valid + "," + Self.valid.replacing("Mon..Fri", with: "Mon..Fry") + "]"
        #expect(problem(third).hasPrefix("at [2].expression: invalid calendar expression"))
        #expect(
            problem(Self.with("zone", "\"Mars/Olympus\"")).hasPrefix("at [0].zone: unknown time zone 'Mars/Olympus'"))
        #expect(problem(Self.with("volume", "\"50\"")) == "at [0].volume: expected a number, found a string")
        #expect(problem("[{\"expression\": \"07:00\"}]") == "at [0]: the key 'id' is missing")
        #expect(
            problem("[\n  {\"id\": \"a\",\n   \"expression\" \"07:00\"}]")
                == "malformed JSON at line 3, column 17: expected ':' after a key, found '\"'")
        #expect(
            problem(Self.with("label", #""\x""#)).hasPrefix("at [0].label (line 1, column 13): invalid escape sequence")
        )
        // A malformed document is reported as such even after a value that does not decode.
        #expect(
            problem("[" + Self.valid.replacing("Mon..Fri", with: "Mon..Fry") + ", {]").hasPrefix(
                "malformed JSON at line 1"))
    }
}

import FoundationEssentials

/// Why a list of alarms in JSON cannot be read: what is wrong and where, either as the path of
/// the value (`[3].expression`) or as a line and column when the bytes are not JSON at all.
public struct AlarmListProblem: Error, Equatable, CustomStringConvertible {
    public var message: String
    /// `[3]`, `[3].expression`; nil for the document as a whole.
    public var path: String?
    /// 1-based; the column counts bytes.
    public var line: Int?
    public var column: Int?

    public var description: String {
        let place = line.map { " (line \($0), column \(column ?? 0))" } ?? ""
        if let path { return "at \(path)\(place): \(message)" }
        return line == nil ? message : "malformed JSON at line \(line!), column \(column ?? 0): \(message)"
    }
}

/// Reads the alarm list JSON (the store, `alarm list --json`, `alarm export`) straight from its
/// bytes into `[Alarm]`, ten times faster than `JSONDecoder` through `Alarm.init(from:)` and with
/// the same outcome: the same keys, `null` taken as absent where Codable's `decodeIfPresent` takes
/// it so, unknown keys ignored, the first of duplicate keys winning, the same checks of
/// expressions, zones and timestamps, and the same documents refused (see `JSONScanner`). Where a
/// document has several problems, a malformed one anywhere is reported before a value that does
/// not decode, and values are checked in the order `Alarm.init(from:)` checks them.
///
/// Known differences from `JSONDecoder`, neither of which the store or the CLI ever writes:
/// UTF-16 and UTF-32 documents are refused (only UTF-8, with or without a byte-order mark), and
/// so are `volume` values of 2^53 or more written with a fraction or an exponent (`1e16`).
public enum AlarmListReader {
    /// Decodes a whole list.
    public static func decode(_ bytes: [UInt8]) throws(AlarmListProblem) -> [Alarm] {
        try decode(bytes, reuse: nil)
    }

    /// Decodes a whole list from memory the caller holds (a mapped file).
    public static func decode(buffer: UnsafeBufferPointer<UInt8>) throws(AlarmListProblem) -> [Alarm] {
        // No closures: `list` reads only the buffer (its `bytes` are for their slices).
        try read(buffer, bytes: [], reuse: nil, known: nil, decoded: nil).get()
    }

    /// Decodes a whole list; for each element, `reuse` is first offered its bytes (the object,
    /// braces included) and the alarm it returns is taken without decoding them. `decoded` is
    /// told each element's bytes and alarm, reused or not.
    ///
    /// `known`, when given, is offered first the rest of the document from each element's start;
    /// when it returns an alarm and a length, those bytes are taken as that element, unread. The
    /// caller vouches that they are identical to a whole object it saw decode before (an object
    /// ends where its bytes say, so reading them again would end at the same place).
    public static func decode(
        _ bytes: [UInt8], reuse: ((ArraySlice<UInt8>) -> Alarm?)?,
        known: ((ArraySlice<UInt8>) -> (alarm: Alarm, length: Int)?)? = nil,
        decoded: ((ArraySlice<UInt8>, Alarm) -> Void)? = nil
    ) throws(AlarmListProblem) -> [Alarm] {
        try bytes.withUnsafeBufferPointer { buffer in
            read(buffer, bytes: bytes, reuse: reuse, known: known, decoded: decoded)
        }.get()
    }

    /// The list in `buffer` (whose bytes `bytes` also holds when a closure is given), or its
    /// first problem: a malformed document at its line and column, else a value that does not decode.
    private static func read(
        _ buffer: UnsafeBufferPointer<UInt8>, bytes: [UInt8], reuse: ((ArraySlice<UInt8>) -> Alarm?)?,
        known: ((ArraySlice<UInt8>) -> (alarm: Alarm, length: Int)?)?, decoded: ((ArraySlice<UInt8>, Alarm) -> Void)?
    ) -> Result<[Alarm], AlarmListProblem> {
        var reader = Reader(JSONScanner(buffer))
        do throws(JSONSyntaxError) {
            let alarms = try reader.list(bytes: bytes, reuse: reuse, known: known, decoded: decoded)
            if let problem = reader.problem { return .failure(problem) }
            return .success(alarms)
        } catch {
            let (line, column) = reader.s.location(of: error.offset)
            return .failure(AlarmListProblem(message: error.message, path: nil, line: line, column: column))
        }
    }
}

/// One value of an alarm object as it was found, decoded only when `Alarm.init(from:)` would.
private enum Raw {
    case string(range: Range<Int>, simple: Bool)
    case number(Range<Int>)
    case bool(Bool)
    case null
    case array
    case object

    var kind: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// The bytes a calendar trigger was read from: its expression's and its zone's (both strings
/// without escapes), in the document being read, which outlives the key.
private struct TriggerBytes: Hashable {
    let base: UnsafePointer<UInt8>
    let expression: Range<Int>
    let zone: Range<Int>?
    /// FNV-1a of the bytes, so that hashing for the dictionary is one word.
    let bytesHash: UInt64

    init(_ base: UnsafePointer<UInt8>, expression: Range<Int>, zone: Range<Int>?) {
        self.base = base
        self.expression = expression
        self.zone = zone
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for k in expression { h = (h ^ UInt64(base[k])) &* 0x100_0000_01b3 }
        // A byte no string of the document holds unescaped: "ab" + "c" differs from "a" + "bc".
        h = (h ^ UInt64(UInt8(ascii: "\""))) &* 0x100_0000_01b3
        for k in zone ?? 0..<0 { h = (h ^ UInt64(base[k])) &* 0x100_0000_01b3 }
        bytesHash = zone == nil ? ~h : h
    }

    static func == (a: TriggerBytes, b: TriggerBytes) -> Bool {
        guard a.bytesHash == b.bytesHash, (a.zone == nil) == (b.zone == nil) else { return false }
        func same(_ x: Range<Int>, _ y: Range<Int>) -> Bool {
            guard x.count == y.count else { return false }
            for k in 0..<x.count where a.base[x.lowerBound + k] != b.base[y.lowerBound + k] { return false }
            return true
        }
        return same(a.expression, b.expression) && same(a.zone ?? 0..<0, b.zone ?? 0..<0)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytesHash) }
}

/// The keys of `Alarm`'s Codable form, in the order `init(from:)` reads them.
private enum Key: Int, CaseIterable {
    case id, at, expression, zone, label, sound, once, snooze, ring, volume, fadeIn, skipNext, created
    case every, from, until, skipHolidays, paused, pausedUntil, mode
    case volumeFrom, maxSnoozes, whenIgnored, preAlarm, fallbackSound

    var name: String {
        switch self {
        case .fadeIn: return "fade_in"
        case .skipNext: return "skip_next"
        case .skipHolidays: return "skip_holidays"
        case .pausedUntil: return "paused_until"
        case .volumeFrom: return "volume_from"
        case .maxSnoozes: return "max_snoozes"
        case .whenIgnored: return "when_ignored"
        case .preAlarm: return "pre_alarm"
        case .fallbackSound: return "fallback_sound"
        default: return "\(self)"
        }
    }

    static let byName: [String: Key] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The key spelled by these bytes, without making a String for the usual ones.
    static func match(_ p: UnsafePointer<UInt8>, _ n: Int) -> Key? {
        func eq(_ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == n else { return false }
            for k in 0..<n where p[k] != s.utf8Start[k] { return false }
            return true
        }
        switch (n, p[0]) {
        case (2, UInt8(ascii: "i")): return eq("id") ? .id : nil
        case (2, UInt8(ascii: "a")): return eq("at") ? .at : nil
        case (10, _): return eq("expression") ? .expression : nil
        case (4, UInt8(ascii: "z")): return eq("zone") ? .zone : nil
        case (4, UInt8(ascii: "o")): return eq("once") ? .once : nil
        case (4, UInt8(ascii: "r")): return eq("ring") ? .ring : nil
        case (4, UInt8(ascii: "m")): return eq("mode") ? .mode : nil
        case (4, UInt8(ascii: "f")): return eq("from") ? .from : nil
        case (5, UInt8(ascii: "e")): return eq("every") ? .every : nil
        case (5, UInt8(ascii: "u")): return eq("until") ? .until : nil
        case (6, UInt8(ascii: "p")): return eq("paused") ? .paused : nil
        case (12, UInt8(ascii: "p")): return eq("paused_until") ? .pausedUntil : nil
        case (13, _): return eq("skip_holidays") ? .skipHolidays : nil
        case (5, UInt8(ascii: "l")): return eq("label") ? .label : nil
        case (5, UInt8(ascii: "s")): return eq("sound") ? .sound : nil
        case (6, UInt8(ascii: "s")): return eq("snooze") ? .snooze : nil
        case (6, UInt8(ascii: "v")): return eq("volume") ? .volume : nil
        case (7, UInt8(ascii: "f")): return eq("fade_in") ? .fadeIn : nil
        case (7, UInt8(ascii: "c")): return eq("created") ? .created : nil
        case (9, UInt8(ascii: "s")): return eq("skip_next") ? .skipNext : nil
        case (11, UInt8(ascii: "v")): return eq("volume_from") ? .volumeFrom : nil
        case (11, UInt8(ascii: "m")): return eq("max_snoozes") ? .maxSnoozes : nil
        case (12, UInt8(ascii: "w")): return eq("when_ignored") ? .whenIgnored : nil
        case (9, UInt8(ascii: "p")): return eq("pre_alarm") ? .preAlarm : nil
        case (14, _): return eq("fallback_sound") ? .fallbackSound : nil
        default: return nil
        }
    }
}

private struct Reader {
    var s: JSONScanner
    /// The first value that does not decode; the scan goes on (structure only) so that a
    /// malformed document is reported as such, as `JSONDecoder` does.
    var problem: AlarmListProblem?
    /// Zone names as written → canonical spelling (each lookup may read the tz database).
    var zones: [String: String] = [:]
    /// The calendar triggers read so far, by the bytes of their expression and zone (a store
    /// repeats them: `Mon..Fri *-*-* 06:30:00` in many alarms). Alarms with the same ones share
    /// a trigger, so the parse and the memory are paid once: `.calendar` is an indirect case,
    /// each new one an allocation of the expression's size (issue #29).
    var triggers: [TriggerBytes: AlarmTrigger] = [:]
    /// Where the last `created` text is in the document, and its instant: alarms made together
    /// (an import) share it, and equal bytes are the same text, so no String is made for it.
    var lastCreated: (range: Range<Int>, date: Date)?
    /// The values of the alarm object being read, by `Key`; one buffer for the whole list.
    var slots = [Raw?](repeating: nil, count: Key.allCases.count)

    init(_ s: JSONScanner) { self.s = s }

    mutating func list(
        bytes: [UInt8], reuse: ((ArraySlice<UInt8>) -> Alarm?)?,
        known: ((ArraySlice<UInt8>) -> (alarm: Alarm, length: Int)?)?, decoded: ((ArraySlice<UInt8>, Alarm) -> Void)?
    ) throws(JSONSyntaxError) -> [Alarm] {
        // A UTF-8 byte-order mark is skipped, as JSONDecoder does.
        if s.end >= 3 && s.base[0] == 0xEF && s.base[1] == 0xBB && s.base[2] == 0xBF { s.i = 3 }
        if s.end >= 2 && (s.base[0] == 0 || s.base[1] == 0 || s.base[0] == 0xFE || s.base[0] == 0xFF) {
            throw s.fail("the file is not UTF-8 (UTF-16 and UTF-32 are not read)", at: 0)
        }
        s.skipWhitespace()
        var alarms: [Alarm] = []
        if s.peek != UInt8(ascii: "[") {
            let start = s.i
            try s.skipValue()
            let kind = s.base[start] == UInt8(ascii: "n") ? "null" : "something else"
            problem = AlarmListProblem(message: "expected a JSON array of alarms, found \(kind)")
        } else {
            try s.enter()
            if !s.closesEmpty(UInt8(ascii: "]")) {
                alarms.reserveCapacity(s.end / 300)
                // A few thousand distinct triggers in a store of 10,000: room for one per four
                // alarms, so that the table is not copied as it grows.
                triggers.reserveCapacity(s.end / 1200)
                repeat {
                    s.skipWhitespace()
                    let start = s.i
                    if problem != nil {
                        try s.skipValue()
                        continue
                    }
                    if let known, s.peek == UInt8(ascii: "{"), let hit = known(bytes[start...]) {
                        s.i = start + hit.length
                        alarms.append(hit.alarm)
                        decoded?(bytes[start..<s.i], hit.alarm)
                        continue
                    }
                    if let reuse {
                        try s.skipValue()
                        let slice = bytes[start..<s.i]
                        if let alarm = reuse(slice) {
                            alarms.append(alarm)
                            decoded?(slice, alarm)
                            continue
                        }
                        s.i = start
                    }
                    if let alarm = try element(alarms.count) {
                        alarms.append(alarm)
                        decoded?(bytes[start..<s.i], alarm)
                    }
                } while try s.nextElement()
            }
        }
        s.skipWhitespace()
        if s.i < s.end { throw s.fail("unexpected \(s.found()) after the list's closing ']'") }
        return alarms
    }

    // MARK: one alarm

    /// Reads the element at the cursor; nil (with `problem` set) when it does not decode.
    mutating func element(_ index: Int) throws(JSONSyntaxError) -> Alarm? {
        guard s.peek == UInt8(ascii: "{") else {
            let raw = try value()
            problem = AlarmListProblem(
                message: "expected an alarm (a JSON object), found \(raw.kind)", path: "[\(index)]")
            return nil
        }
        for k in slots.indices { slots[k] = nil }
        var keyProblem: AlarmListProblem? = nil
        try s.enter()
        if !s.closesEmpty(UInt8(ascii: "}")) {
            repeat {
                let k = try s.key()
                var key: Key? = nil
                if k.simple, k.range.count > 0, let known = Key.match(s.base + k.range.lowerBound, k.range.count) {
                    key = known
                } else if keyProblem == nil {
                    // Every key is decoded (JSONDecoder does, to build its container).
                    do throws(JSONSyntaxError) {
                        key = Key.byName[try s.string(k)]
                    } catch {
                        keyProblem = located(error, path: "[\(index)]")
                    }
                }
                let raw = try value()
                if let key, slots[key.rawValue] == nil { slots[key.rawValue] = raw }
            } while try s.nextMember()
        }
        if let keyProblem {
            problem = keyProblem
            return nil
        }
        do throws(AlarmListProblem) {
            return try alarm(index)
        } catch {
            problem = error
            return nil
        }
    }

    /// One value, delimited (strings, numbers) or skipped (arrays, objects).
    mutating func value() throws(JSONSyntaxError) -> Raw {
        s.skipWhitespace()
        switch s.peek {
        case UInt8(ascii: "\""):
            let d = try s.delimitString()
            return .string(range: d.range, simple: d.simple)
        case UInt8(ascii: "t"):
            try s.literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try s.literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try s.literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(s.delimitNumber())
        case UInt8(ascii: "["):
            try s.skipValue()
            return .array
        case UInt8(ascii: "{"):
            try s.skipValue()
            return .object
        default: throw s.fail("expected a value, found \(s.found())")
        }
    }

    func located(_ e: JSONSyntaxError, path: String) -> AlarmListProblem {
        let (line, column) = s.location(of: e.offset)
        return AlarmListProblem(message: e.message, path: path, line: line, column: column)
    }

    /// `Alarm.init(from:)` over the values found, in its order.
    mutating func alarm(_ index: Int) throws(AlarmListProblem) -> Alarm {
        func path(_ k: Key) -> String { "[\(index)].\(k.name)" }
        func fail(_ k: Key, _ message: String) -> AlarmListProblem { AlarmListProblem(message: message, path: path(k)) }
        /// decodeIfPresent: absent or null is nil.
        func optional(_ k: Key) -> Raw? {
            guard let raw = slots[k.rawValue] else { return nil }
            if case .null = raw { return nil }
            return raw
        }
        func mismatch(_ k: Key, _ type: String, _ raw: Raw) -> AlarmListProblem {
            fail(k, "expected \(type), found \(raw.kind)")
        }
        func string(_ k: Key, _ raw: Raw) throws(AlarmListProblem) -> String {
            guard case .string(let range, let simple) = raw else { throw mismatch(k, "a string", raw) }
            do throws(JSONSyntaxError) { return try s.string((range, simple)) } catch {
                throw located(error, path: path(k))
            }
        }
        func optionalString(_ k: Key) throws(AlarmListProblem) -> String? {
            guard let raw = optional(k) else { return nil }
            return try string(k, raw)
        }
        func required(_ k: Key) throws(AlarmListProblem) -> String {
            guard let raw = slots[k.rawValue] else {
                throw AlarmListProblem(message: "the key '\(k.name)' is missing", path: "[\(index)]")
            }
            if case .null = raw { throw fail(k, "expected a string, found null") }
            return try string(k, raw)
        }
        func bool(_ k: Key) throws(AlarmListProblem) -> Bool? {
            guard let raw = optional(k) else { return nil }
            guard case .bool(let b) = raw else { throw mismatch(k, "true or false", raw) }
            return b
        }
        func double(_ k: Key) throws(AlarmListProblem) -> Double? {
            guard let raw = optional(k) else { return nil }
            guard case .number(let r) = raw else { throw mismatch(k, "a number", raw) }
            let d: Double?
            do throws(JSONSyntaxError) { d = try s.double(r) } catch { throw located(error, path: path(k)) }
            guard let d else { throw fail(k, "the number \(s.text(r)) does not fit in a Double") }
            return d
        }
        func int(_ k: Key) throws(AlarmListProblem) -> Int? {
            guard let raw = optional(k) else { return nil }
            guard case .number(let r) = raw else { throw mismatch(k, "a number", raw) }
            let v: Int?
            do throws(JSONSyntaxError) { v = try s.int(r) } catch { throw located(error, path: path(k)) }
            guard let v else { throw fail(k, "the number \(s.text(r)) is not a whole number that fits in an Int") }
            return v
        }

        let id = try required(.id)
        let trigger: AlarmTrigger
        if let at = try optionalString(.at) {
            guard let date = RFC3339.parse(at) else { throw fail(.at, "'\(at)' is not an RFC 3339 timestamp") }
            trigger = .instant(date)
        } else {
            // The same expression and zone, byte for byte, as an alarm before: its trigger, with
            // no String made, looked up or parsed (a store of 10,000 alarms has a few thousand).
            var seen: TriggerBytes? = nil
            if case .string(let e, simple: true)? = slots[Key.expression.rawValue] {
                switch optional(.zone) {
                case nil: seen = TriggerBytes(s.base, expression: e, zone: nil)
                case .string(let z, simple: true)?: seen = TriggerBytes(s.base, expression: e, zone: z)
                default: break
                }
            }
            if let seen, let known = triggers[seen] {
                trigger = known
            } else {
                let text = try required(.expression)
                var expr: CalendarExpression
                do { expr = try CalendarExpression(text) } catch { throw fail(.expression, "\(error)") }
                if let zone = try optionalString(.zone) {
                    if let known = zones[zone] {
                        expr.zone = known
                    } else {
                        do { expr.zone = try Zones.canonicalName(zone) } catch { throw fail(.zone, "\(error)") }
                        zones[zone] = expr.zone
                    }
                }
                trigger = .calendar(expr)
                if let seen { triggers[seen] = trigger }
            }
        }
        let label = try optionalString(.label)
        let sound = try optionalString(.sound)
        let once = try bool(.once) ?? false
        let snooze = try double(.snooze)
        let ring = try double(.ring)
        let volume = try int(.volume)
        let fadeIn = try double(.fadeIn)
        let skipNext = try bool(.skipNext) ?? false
        var created: Date? = nil
        if case .string(let range, simple: true)? = optional(.created), let last = lastCreated,
            s.same(last.range, range)
        {
            created = last.date
        } else if let text = try optionalString(.created) {
            guard let date = RFC3339.parse(text) else {
                throw fail(.created, "'\(text)' is not an RFC 3339 timestamp")
            }
            created = date
            if case .string(let range, simple: true)? = optional(.created) { lastCreated = (range, date) }
        }
        func text<T>(_ k: Key, _ parse: (String) throws(AlarmError) -> T) throws(AlarmListProblem) -> T? {
            guard let t = try optionalString(k) else { return nil }
            do throws(AlarmError) { return try parse(t) } catch { throw fail(k, "\(error)") }
        }
        let every = try text(.every, RepeatInterval.parse)
        let from = try text(.from, ScheduleBound.parse)
        let until = try text(.until, ScheduleBound.parse)
        let skipHolidays = try bool(.skipHolidays) ?? false
        let paused = try bool(.paused) ?? false
        let pausedUntil = try text(.pausedUntil, ScheduleBound.parse)
        if let problem = Alarm.whyRulesDoNotFit(trigger: trigger, every: every) { throw fail(.every, problem) }
        let volumeFrom = try int(.volumeFrom)
        var maxSnoozes: SnoozeLimit? = nil
        if let raw = optional(.maxSnoozes) {
            if case .number = raw {
                maxSnoozes = try int(.maxSnoozes).map { .limited($0) }
            } else {
                maxSnoozes = try text(.maxSnoozes, SnoozeLimit.parse)
            }
        }
        let whenIgnored = try text(.whenIgnored, WhenIgnored.parse)
        let preAlarm = try text(.preAlarm, PreAlarmLeads.parse)
        let fallbackSound = try optionalString(.fallbackSound)
        return Alarm(
            id: id, trigger: trigger, label: label, sound: sound, once: once, snooze: snooze, ring: ring,
            volume: volume,
            fadeIn: fadeIn, skipNext: skipNext, created: created, every: every, from: from, until: until,
            skipHolidays: skipHolidays, pause: pausedUntil.map { .until($0) } ?? (paused ? .indefinitely : nil),
            volumeFrom: volumeFrom, maxSnoozes: maxSnoozes, whenIgnored: whenIgnored, preAlarm: preAlarm,
            fallbackSound: fallbackSound)
    }
}

import FoundationEssentials

/// A time zone's rules, from a TZif file (the system's tz database) or a POSIX TZ rule: which
/// UTC offset, abbreviation and daylight flag are in force at an instant, and when they change.
///
/// It replaces Foundation's zone type, whose rules come from ICU data compiled into the binary
/// (a zone file added under /usr/share/zoneinfo is unknown to it, tzdata upgrades are ignored).
/// Method names follow Foundation's where they mean the same, so code moves over by renaming.
///
/// Lookups are binary searches over the file's transitions; past the last one the footer's rule
/// is evaluated arithmetically for the year, so any year costs the same. Two zones are equal
/// when their identifiers *and* rules are: a zone file replaced with new rules compares unequal.
public struct Zone: Sendable, Hashable, CustomStringConvertible {
    /// The IANA name (`Europe/Berlin`), `UTC`, or what the creator chose (see the initialisers).
    public let identifier: String
    let rules: ZoneRules

    public var description: String { identifier }

    /// UTC, with no file needed.
    public static let utc = Zone(identifier: "UTC", rules: ZoneRules(fixed: 0, abbreviation: "UTC"))

    init(identifier: String, rules: ZoneRules) {
        self.identifier = identifier
        self.rules = rules
    }

    /// A zone from the bytes of a TZif file; throws `TZifError` or `PosixTZError` (bad footer).
    public init(identifier: String, tzif bytes: [UInt8]) throws {
        try self.init(identifier: identifier, tzif: TZif(bytes))
    }

    public init(identifier: String, tzif: TZif) throws {
        self.init(identifier: identifier, rules: ZoneRules(tzif, tail: try tzif.footer.map { try PosixTZRule($0) }))
    }

    /// A zone that follows one POSIX rule at all times (a `TZ` value such as `EST5EDT,M3.2.0,M11.1.0`).
    public init(identifier: String, rule: PosixTZRule) {
        let first = TZif.LocalTimeType(
            offset: Int32(rule.standard.offset), isDaylight: false, abbreviation: rule.standard.abbreviation)
        self.init(
            identifier: identifier,
            rules: ZoneRules(TZif(version: 3, times: [], typeIndices: [], types: [first], footer: nil), tail: rule))
    }

    /// A fixed offset, e.g. for a timestamp read back from RFC 3339 text. Named like Foundation's
    /// (`GMT+0200`, `GMT` for zero); the name is not in the database.
    public init(secondsFromGMT seconds: Int) {
        let a = abs(seconds)
        var name = "GMT"
        if seconds != 0 {
            name += (seconds < 0 ? "-" : "+") + Text.zeroPadded(a / 3600, 2) + Text.zeroPadded(a % 3600 / 60, 2)
            if a % 60 != 0 { name += Text.zeroPadded(a % 60, 2) }
        }
        self.init(identifier: name, rules: ZoneRules(fixed: Int32(seconds), abbreviation: name))
    }

    // MARK: Unix seconds

    /// The UTC offset in seconds (east positive) in force at `t`.
    public func offset(atUnix t: Int64) -> Int {
        rules.offset(atUnix: t)
    }

    /// The first instant after `t` at which the UTC offset changes, or nil if it never does again.
    /// Transitions that change only the abbreviation or the daylight flag are skipped.
    public func nextTransition(afterUnix t: Int64) -> Int64? {
        rules.nextTransition(afterUnix: t)
    }

    public func abbreviation(atUnix t: Int64) -> String {
        rules.type(atUnix: t).abbreviation
    }

    public func isDaylightSavingTime(atUnix t: Int64) -> Bool {
        rules.type(atUnix: t).isDaylight
    }

    // MARK: Foundation's names

    public func secondsFromGMT(for date: Date) -> Int {
        offset(atUnix: Self.unix(date))
    }

    /// The next instant after `date` at which the UTC offset changes (see `nextTransition`).
    public func nextDaylightSavingTimeTransition(after date: Date) -> Date? {
        let t = date.timeIntervalSince1970
        guard t.isFinite, abs(t) < 1e17 else { return nil }
        return nextTransition(afterUnix: Self.unix(date)).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    public func abbreviation(for date: Date) -> String? {
        abbreviation(atUnix: Self.unix(date))
    }

    /// As the file says: Europe/Dublin's winter (GMT) is its daylight time ("negative DST").
    public func isDaylightSavingTime(for date: Date) -> Bool {
        isDaylightSavingTime(atUnix: Self.unix(date))
    }

    /// Whole seconds, rounded down; non-finite or absurd dates clamp to ±10^17 s.
    static func unix(_ date: Date) -> Int64 {
        let t = date.timeIntervalSince1970
        guard t.isFinite else { return t > 0 ? 100_000_000_000_000_000 : -100_000_000_000_000_000 }
        return Int64(max(-1e17, min(1e17, t.rounded(.down))))
    }

    // MARK: equality

    public static func == (a: Zone, b: Zone) -> Bool {
        a.identifier == b.identifier && a.rules == b.rules
    }

    public func hash(into h: inout Hasher) {
        h.combine(identifier)
        h.combine(rules.times.count)
        h.combine(rules.times.last)
        h.combine(rules.tail)
    }
}

/// The lookup tables behind a `Zone`. Equality compares the source (transitions, types, rule);
/// the derived offset-change table follows from them.
/// A class: immutable, and shared by every copy of its zone (an alarm's zone is copied at each
/// occurrence computed; a struct of five arrays and a rule made each copy a dozen retains).
final class ZoneRules: Sendable, Equatable {
    /// Every transition of the file, and the type in force from it on.
    let times: [Int64]
    let typeIndices: [UInt8]
    let types: [TZif.LocalTimeType]
    /// The rule after the last transition (or at all times if there are none).
    let tail: PosixTZRule?

    /// Only the transitions that change the UTC offset, with the offset from each on: what
    /// `offset` and `nextTransition` search.
    let changeTimes: [Int64]
    let changeOffsets: [Int32]

    convenience init(fixed offset: Int32, abbreviation: String) {
        self.init(
            TZif(
                version: 3, times: [], typeIndices: [],
                types: [.init(offset: offset, isDaylight: false, abbreviation: abbreviation)], footer: nil), tail: nil)
    }

    init(_ tzif: TZif, tail: PosixTZRule?) {
        times = tzif.times
        typeIndices = tzif.typeIndices
        types = tzif.types
        self.tail = tail
        var ct: [Int64] = []
        var co: [Int32] = []
        var current = tzif.types[0].offset
        for (t, i) in zip(tzif.times, tzif.typeIndices) where tzif.types[Int(i)].offset != current {
            current = tzif.types[Int(i)].offset
            ct.append(t)
            co.append(current)
        }
        changeTimes = ct
        changeOffsets = co
    }

    static func == (a: ZoneRules, b: ZoneRules) -> Bool {
        a === b || a.times == b.times && a.typeIndices == b.typeIndices && a.types == b.types && a.tail == b.tail
    }

    func offset(atUnix t: Int64) -> Int {
        if let tail, times.isEmpty || t > times[times.count - 1] { return tail.period(atUnix: t).offset }
        if times.isEmpty { return Int(types[types.count - 1].offset) }
        let i = Self.countAtOrBefore(t, in: changeTimes)
        return i == 0 ? Int(types[0].offset) : Int(changeOffsets[i - 1])
    }

    func type(atUnix t: Int64) -> TZif.LocalTimeType {
        if let tail, times.isEmpty || t > times[times.count - 1] {
            let p = tail.period(atUnix: t)
            return .init(offset: Int32(p.offset), isDaylight: tail.isDaylight(atUnix: t), abbreviation: p.abbreviation)
        }
        if times.isEmpty { return types[types.count - 1] }
        let i = Self.countAtOrBefore(t, in: times)
        return i == 0 ? types[0] : types[Int(typeIndices[i - 1])]
    }

    func nextTransition(afterUnix t: Int64) -> Int64? {
        let i = Self.countAtOrBefore(t, in: changeTimes)
        if i < changeTimes.count { return changeTimes[i] }
        guard let tail else { return nil }
        var from = t
        if let end = times.last {
            // Where the table hands over to the rule, the offset may change too.
            if t <= end, offset(atUnix: end) != offset(atUnix: end + 1) { return end + 1 }
            from = max(t, end)
        }
        for _ in 0..<8 {
            guard let c = tail.nextChange(afterUnix: from) else { return nil }
            if offset(atUnix: c - 1) != offset(atUnix: c) { return c }
            from = c
        }
        return nil
    }

    /// How many of the ascending `values` are `<= t` (binary search).
    @inline(__always)
    static func countAtOrBefore(_ t: Int64, in values: [Int64]) -> Int {
        var lo = 0
        var hi = values.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if values[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

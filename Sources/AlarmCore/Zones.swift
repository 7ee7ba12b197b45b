import Foundation

/// Looking up IANA zones and mapping wall-clock times to instants in them.
///
/// The mapping is where alarms go wrong, so its rules are fixed here once:
/// - a wall time that happens once maps to that instant;
/// - a wall time that happens twice (a DST overlap) maps to its **first** occurrence;
/// - a wall time that does not happen (a DST gap, or Apia's skipped day) maps to the instant the
///   wall clock would show it had the offset in force before the gap continued: it is shifted
///   forward by the gap's length (02:30 on New York's spring-forward day is 03:30 EDT;
///   02:15 in Lord Howe's 30-minute gap is 02:45). A wake-up is never skipped.
public enum Zones {
    /// The zone named `name`: an IANA identifier, matched case-insensitively, or `UTC`.
    /// Throws `ZoneError.unknown` for anything Foundation's tz data does not know.
    public static func zone(named name: String) throws -> TimeZone {
        if let tz = cache.lookup(name) { return tz }
        throw ZoneError.unknown(name)
    }

    /// The canonical spelling of a zone name ("europe/berlin" -> "Europe/Berlin").
    public static func canonicalName(_ name: String) throws -> String {
        if let spelled = cache.canonical(name) { return spelled }
        throw ZoneError.unknown(name)
    }

    /// The instant at which the wall clock of `zone` shows `civil`, by the rules above.
    public static func instant(for civil: CivilTime, in zone: TimeZone) -> Date {
        Date(timeIntervalSince1970: TimeInterval(instantSeconds(forLocal: civil.localSeconds, in: zone)))
    }

    /// What the wall clock of `zone` shows at `date` (whole seconds, rounded down).
    public static func civil(at date: Date, in zone: TimeZone) -> CivilTime {
        let t = Int64(date.timeIntervalSince1970.rounded(.down))
        return CivilTime(localSeconds: t + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t)))))
    }

    static func instantSeconds(forLocal local: Int64, in zone: TimeZone) -> Int64 {
        // Offsets lie within -12 h ... +14 h, so the instant lies within this window.
        let segments = Zones.segments(in: zone, from: local - 15 * 3600, to: local + 13 * 3600)
        if segments.count == 1 { return local - segments[0].offset }
        for (i, seg) in segments.enumerated() {
            let t = local - seg.offset
            let end = i + 1 < segments.count ? segments[i + 1].start : Int64.max
            if t >= seg.start && t < end { return t }  // the earliest valid one: the first occurrence
        }
        // A gap: keep the offset in force before the jump the wall time fell into.
        for i in 1..<segments.count
        where local - segments[i - 1].offset >= segments[i].start && local - segments[i].offset < segments[i].start {
            return local - segments[i - 1].offset
        }
        return local - segments[0].offset
    }

    /// A stretch of constant UTC offset starting at `start` (Unix seconds).
    struct Segment: Equatable {
        var start: Int64
        var offset: Int64
    }

    /// The stretches of constant offset covering `[from, to]`, the first starting at `from`.
    static func segments(in zone: TimeZone, from: Int64, to: Int64) -> [Segment] {
        func offset(_ t: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t))))
        }
        var out = [Segment(start: from, offset: offset(from))]
        var cursor = Date(timeIntervalSince1970: TimeInterval(from))
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 <= TimeInterval(to) {
            let t = Int64(next.timeIntervalSince1970.rounded(.down))
            let o = offset(t)
            if o != out.last!.offset { out.append(Segment(start: t, offset: o)) }
            cursor = next
        }
        return out
    }

    private static let cache = ZoneCache()
}

public enum ZoneError: Error, Equatable, CustomStringConvertible {
    case unknown(String)

    public var description: String {
        switch self {
        case .unknown(let name):
            return "unknown time zone '\(name)': use an IANA name such as Europe/Berlin or America/New_York, or UTC"
        }
    }
}

/// Zone objects are costly to build and Foundation's lookup is case-sensitive; this keeps one of
/// each and a lower-cased index of the names tz data knows.
private final class ZoneCache: @unchecked Sendable {
    private let lock = NSLock()
    private var zones: [String: TimeZone] = [:]
    private lazy var index: [String: String] = {
        var map: [String: String] = [:]
        for id in TimeZone.knownTimeZoneIdentifiers { map[id.lowercased()] = id }
        for alias in ["UTC", "Etc/UTC", "GMT", "Etc/GMT", "Universal", "Zulu"] { map[alias.lowercased()] = alias }
        return map
    }()

    /// The spelling users should see: tz data's for IANA names, "UTC" for UTC (Foundation says "GMT").
    func canonical(_ raw: String) -> String? {
        guard lookup(raw) != nil else { return nil }
        let name = raw.trimmingCharacters(in: .whitespaces)
        lock.lock()
        defer { lock.unlock() }
        return index[name.lowercased()] ?? name
    }

    func lookup(_ raw: String) -> TimeZone? {
        let name = raw.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count < 64 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let tz = zones[name] { return tz }
        let spelled = index[name.lowercased()] ?? name
        // Foundation also accepts "GMT+5" style and abbreviations; an alarm names IANA zones only.
        guard spelled.uppercased() == "UTC" || spelled.contains("/") || index[spelled.lowercased()] != nil,
            let tz = spelled.uppercased() == "UTC" ? TimeZone(identifier: "UTC") : TimeZone(identifier: spelled)
        else { return nil }
        zones[name] = tz
        return tz
    }
}

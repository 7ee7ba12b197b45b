import FoundationEssentials
import Synchronization

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
    /// The system's tz database: `TZDIR`, else /usr/share/zoneinfo, read when first asked.
    public static let database = ZoneDatabase.system()

    /// The zone named `name`: an IANA identifier, matched case-insensitively, or `UTC`.
    /// Throws `ZoneError.unknown` for anything that is not a zone file of the database.
    public static func zone(named name: String) throws -> Zone {
        try database.zone(named: name)
    }

    /// The canonical spelling of a zone name ("europe/berlin" -> "Europe/Berlin").
    public static func canonicalName(_ name: String) throws -> String {
        try database.canonicalName(name)
    }

    /// Makes a zone that is not in the database (a copied /etc/localtime, a POSIX `TZ` rule)
    /// findable by `Zone(identifier:)` in this process, so that what the engine recorded by
    /// identifier (a ringing alarm's zone) resolves to its rules. The latest one adopted under an
    /// identifier wins. `zone(named:)` does not see these: users name database zones only.
    public static func adopt(_ zone: Zone) {
        adopted.set(zone)
    }

    /// The instant at which the wall clock of `zone` shows `civil`, by the rules above.
    public static func instant(for civil: CivilTime, in zone: Zone) -> Date {
        Date(timeIntervalSince1970: TimeInterval(instantSeconds(forLocal: civil.localSeconds, in: zone)))
    }

    /// What the wall clock of `zone` shows at `date` (whole seconds, rounded down).
    public static func civil(at date: Date, in zone: Zone) -> CivilTime {
        let t = Zone.unix(date)
        return CivilTime(localSeconds: t + Int64(zone.offset(atUnix: t)))
    }

    static func instantSeconds(forLocal local: Int64, in zone: Zone) -> Int64 {
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
    static func segments(in zone: Zone, from: Int64, to: Int64) -> [Segment] {
        var out = [Segment(start: from, offset: Int64(zone.offset(atUnix: from)))]
        var cursor = from
        while let next = zone.nextTransition(afterUnix: cursor), next <= to {
            let o = Int64(zone.offset(atUnix: next))
            if o != out.last!.offset { out.append(Segment(start: next, offset: o)) }
            cursor = next
        }
        return out
    }

    private static let adopted = AdoptedZones()
}

extension Zone {
    /// Foundation-style lookup by identifier: a database zone, or one adopted with
    /// `Zones.adopt` in this process; nil otherwise.
    public init?(identifier: String) {
        if let z = try? Zones.zone(named: identifier) {
            self = z
        } else if let z = Zones.adoptedZone(identifier) {
            self = z
        } else {
            return nil
        }
    }
}

extension Zones {
    static func adoptedZone(_ identifier: String) -> Zone? { adopted.get(identifier) }
}

public enum ZoneError: Error, Equatable, CustomStringConvertible {
    case unknown(String)
    /// The zone file exists but cannot be used (truncated, corrupt, a bad footer rule).
    case unusable(name: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .unknown(let name):
            return "unknown time zone '\(name)': use an IANA name such as Europe/Berlin or America/New_York, or UTC"
        case .unusable(let name, let path, let reason):
            return "time zone '\(name)' cannot be used: \(path) is damaged (\(reason)); reinstall tzdata"
        }
    }
}

/// The zones adopted by `Zones.adopt`, by identifier.
private final class AdoptedZones: Sendable {
    private let zones = Mutex<[String: Zone]>([:])

    func set(_ zone: Zone) {
        zones.withLock { $0[zone.identifier] = zone }
    }

    func get(_ identifier: String) -> Zone? {
        zones.withLock { $0[identifier] }
    }
}

import FoundationEssentials
import Synchronization

/// The system's tz database: a directory of TZif files (`/usr/share/zoneinfo`, or `TZDIR`).
///
/// Names are matched case-insensitively and answered in the spelling on disk
/// (`europe/berlin` → `Europe/Berlin`); `UTC` always resolves, with or without a file, and the
/// usual UTC aliases resolve even when the tree lacks them. Only names of TZif files inside the
/// directory are zones: paths with `..`, absolute paths, `posix/`, `right/`, `posixrules`,
/// `localtime` and data files such as `zone.tab` are refused as unknown.
///
/// Zones are cached once read. A zone file replaced on disk (a tzdata upgrade) is seen after
/// `invalidate()`; the daemon calls it when inotify reports the change. Thread-safe.
public final class ZoneDatabase: @unchecked Sendable {
    public static let defaultDirectory = "/usr/share/zoneinfo"
    /// Resolved without a file when the tree does not have them; `UTC` always is.
    static let utcAliases = ["UTC", "Etc/UTC", "GMT", "Etc/GMT", "Universal", "Zulu"]
    /// Top-level entries that are not zone names of their own.
    static let notZones: Set<String> = ["posix", "right", "posixrules", "localtime"]

    public let directory: String
    /// The zones read, by the name asked for, and the name index (lowercased → on disk).
    private let cache = Mutex(Cache())

    private struct Cache {
        var zones: [String: Zone] = [:]
        var lowercased: [String: String]? = nil
        /// The names asked for most, looked at before `zones`: a list of 10,000 alarms asks for
        /// its few zones by names that compare without hashing (short ones are held inline, the
        /// store's reader makes one copy of each longer one), 20,000 times.
        var recent: [(name: String, zone: Zone)] = []
    }

    public init(directory: String = ZoneDatabase.defaultDirectory) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The database `TZDIR` names, else the default directory.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> ZoneDatabase {
        ZoneDatabase(directory: environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultDirectory)
    }

    /// The zone `name` names. Throws `ZoneError.unknown` for a name that is not a zone here and
    /// `ZoneError.unusable` for a zone file that is corrupt.
    public func zone(named name: String) throws -> Zone {
        // The usual call (an alarm's canonical zone name): no trimmed copy needed.
        if let z = cached(name) { return z }
        let key = name.trimmingBlanks()
        if let z = cached(key) { return z }
        let spelled = try canonicalName(name)
        if let z = cached(spelled) { return remember(z, as: key) }
        let zone: Zone
        if spelled == "UTC" {
            zone = .utc
        } else {
            let path = directory + "/" + spelled
            switch ZoneFiles.contents(path) {
            case .failure:
                guard Self.utcAliases.contains(spelled) else { throw ZoneError.unknown(name) }
                zone = Zone(identifier: spelled, rules: Zone.utc.rules)
            case .success(let bytes):
                guard bytes.starts(with: "TZif".utf8) else { throw ZoneError.unknown(name) }
                do { zone = try Zone(identifier: spelled, tzif: bytes) } catch {
                    throw ZoneError.unusable(name: spelled, path: path, reason: "\(error)")
                }
            }
        }
        remember(zone, as: spelled)
        return remember(zone, as: key)
    }

    /// The spelling of `name` on disk (or of the UTC alias it is); throws `ZoneError.unknown`.
    public func canonicalName(_ name: String) throws -> String {
        let trimmed = name.trimmingBlanks()
        guard Self.acceptable(trimmed) else { throw ZoneError.unknown(name) }
        let lower = trimmed.lowercased()
        if lower == "utc" { return "UTC" }
        if ZoneFiles.isTZif(directory + "/" + trimmed) { return trimmed }
        if let spelled = index()[lower] { return spelled }
        if let alias = Self.utcAliases.first(where: { $0.lowercased() == lower }) { return alias }
        throw ZoneError.unknown(name)
    }

    /// The file of the zone `name` names: what to watch for changes. (`UTC` may have none.)
    public func path(for name: String) throws -> String {
        directory + "/" + (try canonicalName(name))
    }

    /// Every zone name in the tree, sorted: TZif files only, without `posix/`, `right/`,
    /// `posixrules` and `localtime`. Links (`US/Eastern`) are listed under their own names.
    public func identifiers() -> [String] {
        var out: [String] = []
        func walk(_ relative: String) {
            let dir = relative.isEmpty ? directory : directory + "/" + relative
            for entry in ZoneFiles.list(dir) where !entry.hasPrefix(".") {
                if relative.isEmpty && Self.notZones.contains(entry) { continue }
                let name = relative.isEmpty ? entry : relative + "/" + entry
                let path = directory + "/" + name
                if ZoneFiles.isRealDirectory(path) {
                    walk(name)
                } else if ZoneFiles.isTZif(path) {
                    out.append(name)
                }
            }
        }
        walk("")
        return out.sorted()
    }

    /// Forgets every zone read and the name index: the next lookups read the files again.
    public func invalidate() {
        cache.withLock { $0 = Cache() }
    }

    // MARK: private

    /// Names that could be a file inside the tree and are not one of the non-zones.
    static func acceptable(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count < 128, !name.hasPrefix("/") else { return false }
        let allowed = name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == 47 || c == 95 || c == 45 || c == 43
                || c == 46
        }
        guard allowed else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return false }
        return !notZones.contains(parts[0].lowercased())
    }

    private func cached(_ key: String) -> Zone? {
        cache.withLock { c in
            for r in c.recent where r.name == key { return r.zone }
            guard let zone = c.zones[key] else { return nil }
            if c.recent.count < 16 { c.recent.append((key, zone)) }
            return zone
        }
    }

    @discardableResult
    private func remember(_ zone: Zone, as key: String) -> Zone {
        cache.withLock { $0.zones[key] = zone }
        return zone
    }

    private func index() -> [String: String] {
        if let lowercased = cache.withLock({ $0.lowercased }) { return lowercased }
        var map: [String: String] = [:]
        for id in identifiers() { map[id.lowercased()] = id }
        cache.withLock { $0.lowercased = map }
        return map
    }
}

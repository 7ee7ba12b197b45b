import AlarmCore
import FoundationEssentials

/// The system's zone, read the way the daemon watches it: from the zone file (`/etc/localtime`,
/// or the `--localtime` / `ALARM_LOCALTIME` setting), a symlink into a zoneinfo tree as on
/// Debian, or a copy of a zone file.
///
/// Both programs use this, so `alarm next` and `alarmd` agree. Nothing is cached here: every call
/// reads the zone file again, so the daemon sees a change as soon as inotify reports it.
public enum SystemZone {
    /// The zone in force, in the order a Unix program looks:
    /// 1. `TZ`, when set and the setting was not given: a zone name (`Europe/Berlin`, with or
    ///    without glibc's leading `:`), a zone file's absolute path, or a POSIX rule
    ///    (`EST5EDT,M3.2.0,M11.1.0`);
    /// 2. the zone file as a symlink into a zoneinfo tree: the zone it names, from the database;
    /// 3. the zone file as a regular file (copied, not linked): its own rules, under the file's
    ///    name as identifier (`localtime`), adopted so that recorded identifiers resolve;
    /// 4. UTC, as glibc does without a zone file.
    public static func current(
        _ config: Configuration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Zone {
        resolve(config, environment: environment) ?? .utc
    }

    /// Steps 1 to 3 of `current`; nil when they find nothing usable, e.g. while a zone file is
    /// being rewritten (zic deletes, then creates and writes it): the daemon then keeps the zone
    /// it has rather than falling back to UTC for a moment.
    public static func resolve(
        _ config: Configuration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Zone? {
        if !config.localtimeIsExplicit, let tz = environment["TZ"], !tz.isEmpty, let zone = zone(tz: tz) {
            return zone
        }
        return zone(named: config.localtimePath) ?? copied(config.localtimePath)
    }

    /// The zone a zone file's symlink points at: `.../zoneinfo/Europe/Berlin` → Europe/Berlin.
    /// Follows a chain of links (at most 8) until one names a path inside a zoneinfo tree.
    public static func zone(named path: String) -> Zone? {
        var current = path
        for _ in 0..<8 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return nil }
            let absolute =
                target.hasPrefix("/")
                ? target : URL(fileURLWithPath: current).deletingLastPathComponent().path + "/" + target
            if let r = absolute.ranges(of: "zoneinfo/").last {
                var name = String(absolute[r.upperBound...])
                for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
                if let zone = try? Zones.zone(named: name) { return zone }
            }
            current = absolute
        }
        return nil
    }

    /// A zone file that is a regular file (or a link to one outside any zoneinfo tree): its own
    /// rules. Nil when it cannot be read or is not a TZif file.
    public static func copied(_ path: String) -> Zone? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let zone = try? Zone(identifier: name.isEmpty ? "localtime" : name, contentsOfFile: path) else {
            return nil
        }
        Zones.adopt(zone)
        return zone
    }

    /// What a `TZ` value names, read as glibc reads it; nil when it names nothing usable.
    public static func zone(tz value: String) -> Zone? {
        let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
        if let zone = try? Zones.zone(named: name) { return zone }
        if name.hasPrefix("/") {
            if let zone = zone(named: name) { return zone }
            guard let zone = try? Zone(identifier: name, contentsOfFile: name) else { return nil }
            Zones.adopt(zone)
            return zone
        }
        guard !value.hasPrefix(":"), let rule = try? PosixTZRule(value) else { return nil }
        let zone = Zone(identifier: value, rule: rule)
        Zones.adopt(zone)
        return zone
    }
}

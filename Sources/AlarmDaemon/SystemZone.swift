import AlarmCore
import Foundation

/// The system's zone, read the way the daemon watches it: from the zone file (`/etc/localtime`,
/// or the `--localtime` / `ALARM_LOCALTIME` setting), a symlink into a zoneinfo tree as on Debian.
///
/// Both programs use this, so `alarm next` and `alarmd` agree. Foundation's `TimeZone.current`
/// is cached for the life of the process, so the daemon cannot rely on it after a change.
public enum SystemZone {
    /// The zone named by the zone file. When the setting was not given and `TZ` is set, `TZ`
    /// wins (the usual rule for a Unix program). A zone file that names no known zone falls back
    /// to Foundation's idea of the system zone, re-read.
    public static func current(_ config: Configuration, environment: [String: String] = ProcessInfo.processInfo.environment) -> TimeZone {
        if !config.localtimeIsExplicit, let tz = environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = try? Zones.zone(named: name) { return zone }
        }
        if let zone = zone(named: config.localtimePath) { return zone }
        NSTimeZone.resetSystemTimeZone()
        return TimeZone.current
    }

    /// The zone a zone file's symlink points at: `.../zoneinfo/Europe/Berlin` → Europe/Berlin.
    /// Follows a chain of links (at most 8) until one names a path inside a zoneinfo tree.
    public static func zone(named path: String) -> TimeZone? {
        var current = path
        for _ in 0..<8 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return nil }
            let absolute = target.hasPrefix("/") ? target : (current as NSString).deletingLastPathComponent + "/" + target
            if let r = absolute.range(of: "zoneinfo/", options: .backwards) {
                var name = String(absolute[r.upperBound...])
                for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
                if let zone = try? Zones.zone(named: name) { return zone }
            }
            current = absolute
        }
        return nil
    }
}

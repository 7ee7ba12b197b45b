import AlarmState
import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The zone in force and the zones alarms are pinned to: their database files watched, so
/// that a zone change or a tzdata update recomputes the schedule (issue #9).
extension Daemon {
    /// Watches the database file of the zone in force (through a link, the file it names).
    /// Watches are per directory and stay after a zone change; events for files that are no
    /// longer the zone's are ignored.
    func watchZoneData() {
        guard let named = try? Zones.database.path(for: zone.identifier) else {
            // No such file (a copied zone file, watched as the zone file, or a `TZ` rule).
            watched.set(nil, for: .zoneData)
            return
        }
        let path = URL(fileURLWithPath: named).resolvingSymlinksInPath().path
        guard path != watched.path(for: .zoneData) else { return }
        do { try watch(path, as: .zoneData) } catch {
            logger.warning("not watching \(path) for tzdata updates: \(error)")
        }
    }

    /// Watches the database files of the zones `alarms` are pinned to, so that a tzdata update
    /// moves pinned alarms too. Watches are only added (at most one per zone in the database).
    func watchPinnedZones(_ alarms: [Alarm]) {
        for name in Set(alarms.compactMap(\.zone)) where watched.path(for: .pinnedZone(name)) == nil {
            guard let named = try? Zones.database.path(for: name) else { continue }
            let path = URL(fileURLWithPath: named).resolvingSymlinksInPath().path
            do { try watch(path, as: .pinnedZone(name)) } catch {
                logger.warning("not watching \(path) for tzdata updates of \(name): \(error)")
            }
        }
    }

    /// A pinned zone's file was replaced (dpkg renames the new one into place): read the rules
    /// again and recompute, as for a change of the system zone.
    func pinnedZoneFileChanged(_ names: Set<String>) {
        Zones.database.invalidate()
        logger.notice("the rules of \(names.sorted().joined(separator: ", ")) changed (tzdata updated): recomputing")
        zoneChangeReason = "the rules of \(names.sorted().joined(separator: ", ")) changed (tzdata updated)"
        handle(.zoneChanged)
    }

    func zoneFileChanged() {
        // The zone file may name the same zone with new rules (tzdata upgraded, a copied file
        // rewritten): read the files again and compare rules, not names.
        Zones.database.invalidate()
        guard let newZone = SystemZone.resolve(config) else {
            logger.warning("\(config.localtimePath) names no readable zone at the moment; keeping \(zone.identifier)")
            return
        }
        guard newZone != zone else { return }
        if newZone.identifier == zone.identifier {
            logger.notice("the rules of the system zone \(zone.identifier) changed (zone file or tzdata updated)")
            zoneChangeReason = "the rules of \(zone.identifier) changed (zone file or tzdata updated)"
        } else {
            logger.notice("the system zone changed from \(zone.identifier) to \(newZone.identifier)")
        }
        zone = newZone
        watchZoneData()
        handle(.zoneChanged)
    }
}

import AlarmSystem

/// The files alarmd watches with inotify, each with what a change to it means: one table, so a
/// new watched file is a `Role` and a `watch(_:as:)` call, and `watchedFilesChanged` (a switch
/// over the roles) says what its change sets off.
struct WatchedFiles {
    /// What a watched file is for. Changes are handled in this order, each kind once per read.
    enum Role: Hashable, Comparable {
        /// The zone file (`/etc/localtime` or the `localtime` setting): the system zone may change.
        case zoneFile
        /// The tz database file of the zone in force (through links): its rules may change.
        case zoneData
        /// The tz database file of a zone alarms are pinned to, by the zone's name.
        case pinnedZone(String)
        /// The alarm store (`alarms.json`).
        case store
        /// The holidays file.
        case holidays
    }

    /// The path watched for each role. A role has one path; one path may serve several roles
    /// (the system zone's file may be a pinned zone's too).
    private(set) var paths: [Role: String] = [:]

    /// The path watched for `role`, if any.
    func path(for role: Role) -> String? { paths[role] }

    /// Sets or (with nil) clears the path of `role`. Inotify's watch of a path no role names any
    /// more stays (watches are per directory); its events are then ignored here.
    mutating func set(_ path: String?, for role: Role) { paths[role] = path }

    /// The roles whose files `events` name, in `Role` order; an overflow (events lost) touches
    /// every role.
    func touched(by events: [Inotify.Event]) -> [Role] {
        var touched = Set<Role>()
        for event in events {
            if event.kinds.contains(.overflow) { touched.formUnion(paths.keys) }
            for (role, path) in paths where path == event.path { touched.insert(role) }
        }
        return touched.sorted()
    }
}

extension Daemon {
    /// Watches `path` (through its directory, so a file replaced by rename is seen) for `role`,
    /// in place of the role's previous path. Throws when inotify cannot watch it; the role then
    /// keeps no path.
    func watch(_ path: String, as role: WatchedFiles.Role) throws {
        do { try files.watch(file: path) } catch {
            watched.set(nil, for: role)
            throw error
        }
        watched.set(path, for: role)
    }

    /// The inotify descriptor is readable: what changed sets off its role's handling.
    func watchedFilesChanged() throws {
        var zone = false
        var store = false
        var holidays = false
        var pinned = Set<String>()
        for role in watched.touched(by: try files.readEvents()) {
            switch role {
            case .zoneFile, .zoneData: zone = true
            case .pinnedZone(let name): pinned.insert(name)
            case .store: store = true
            case .holidays: holidays = true
            }
        }
        if zone { zoneFileChanged() }
        if !pinned.isEmpty { pinnedZoneFileChanged(pinned) }
        if store { reload(reason: nil) }
        if holidays { holidaysFileChanged() }
    }
}

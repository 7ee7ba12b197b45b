import AlarmSystem
import AlarmCore
import FoundationEssentials

/// What every subcommand works with: the settings, the store, the system zone and "now".
package struct AlarmContext {
    package let config: Configuration
    package let store: AlarmStore
    package let zone: Zone
    package let now = Date()
    private let holidayCache = HolidayCache()

    package init(config: Configuration) {
        self.config = config
        store = AlarmStore(stateDir: config.stateDir)
        zone = SystemZone.current(config)
    }

    /// The stored alarms (`AlarmStore.read()`); when they are the backup's (alarms.json empty),
    /// a warning on stderr says so first.
    package func loadAlarms() throws -> [Alarm] {
        let contents: AlarmStore.Contents
        do { contents = try store.read() } catch { throw UserError(error) }
        if let note = contents.note { printError("warning: " + note) }
        return contents.alarms
    }

    /// The holidays of the config's `holidays` file, read when first needed; empty (with a
    /// warning on stderr, once) when there is none or it cannot be used: alarms keep ringing.
    package var holidays: HolidayCalendar { holidayCache.get(config.holidays) }

    /// The holidays an alarm skips: the file's for `--skip-holidays` alarms, else none.
    package func holidays(for alarm: Alarm) -> HolidayCalendar { alarm.skipHolidays ? holidays : .empty }

    /// Changes the alarms of `ids` (or every alarm with `all`) in one store update and returns
    /// them as changed; an id not in the store changes nothing ("no alarm with id 'x'; nothing
    /// was `done`"). `change` may throw a `UserError` to refuse, which also changes nothing.
    package func changeEach(
        ids: [String], all: Bool, done: String, _ change: (inout Alarm) throws -> Void
    ) throws -> [Alarm] {
        let result: (changed: [Alarm], missing: [String])
        do {
            result = try store.update { list in
                let missing = ids.filter { id in !list.contains { $0.id == id } }
                guard missing.isEmpty else { return ([], missing) }
                var changed: [Alarm] = []
                for i in list.indices where all || ids.contains(list[i].id) {
                    try change(&list[i])
                    changed.append(list[i])
                }
                return (changed, [])
            }
        } catch let error as UserError { throw error } catch { throw UserError(error) }
        if !result.missing.isEmpty {
            throw UserError(
                "no alarm with id \(result.missing.map { "'\($0)'" }.joined(separator: ", ")); nothing was \(done)")
        }
        return result.changed
    }

    /// The next ring an alarm will really sound, after `created` and now: pauses and holidays
    /// pass over occurrences, skip-next over one more.
    package func nextRing(_ alarm: Alarm, after: Date? = nil) -> Date? {
        let start = max(after ?? now, alarm.created ?? now)
        let h = holidays(for: alarm)
        guard let first = alarm.nextSounding(after: start, systemZone: zone, holidays: h) else { return nil }
        return alarm.skipNext ? alarm.nextSounding(after: first, systemZone: zone, holidays: h) : first
    }

    /// "until 2026-12-01 00:00" / "until alarm resume", for an alarm paused now; nil otherwise.
    package func pauseText(_ alarm: Alarm) -> String? {
        guard alarm.pause != nil, alarm.isPaused(at: now, systemZone: zone) else { return nil }
        guard let end = alarm.pauseEnd(systemZone: zone) else { return "until alarm resume" }
        return "until " + clock(end)
    }

    package func rfc3339(_ date: Date, for alarm: Alarm? = nil) -> String {
        RFC3339.format(date, in: alarm?.displayZone(systemZone: zone) ?? zone)
    }

    /// "Mon 06:30" within a week, else "2026-12-24 07:00", on the system's wall clock.
    package func short(_ date: Date) -> String {
        let c = Zones.civil(at: date, in: zone)
        return (date.timeIntervalSince(now) < 6 * 86400 ? c.weekdayName : c.date) + " " + c.hourMinute
    }

    package func clock(_ date: Date) -> String {
        let c = Zones.civil(at: date, in: zone)
        return abs(date.timeIntervalSince(now)) < 86400 ? c.hourMinute : c.date + " " + c.hourMinute
    }

}

/// The holidays file, read once per command.
private final class HolidayCache {
    private var loaded: HolidayCalendar?

    package func get(_ path: String?) -> HolidayCalendar {
        if let loaded { return loaded }
        var calendar = HolidayCalendar.empty
        if let path {
            do { calendar = try HolidaysFile.load(path) } catch {
                printError("warning: \(error); holidays are not skipped")
            }
        }
        loaded = calendar
        return calendar
    }
}

package func printError(_ text: String) {
    StandardError.write(text)
}

import AlarmSystem
import AlarmOptions
import AlarmCore
import AlarmDaemon
import FoundationEssentials

/// What every subcommand works with: the settings, the store, the system zone and "now".
struct Context {
    let config: Configuration
    let store: AlarmStore
    let zone: Zone
    let now = Date()

    init(_ options: SettingsOptions, lenient: Bool = false) throws {
        self.init(config: lenient ? options.lenientConfiguration() : try options.configuration())
    }

    init(config: Configuration) {
        self.config = config
        store = AlarmStore(stateDir: config.stateDir)
        zone = SystemZone.current(config)
    }

    func loadAlarms() throws -> [Alarm] {
        do { return try store.load() } catch { throw CLIError(error) }
    }

    /// The next ring an alarm will really sound: skip-next passes over one occurrence.
    func nextRing(_ alarm: Alarm) -> Date? {
        guard let first = alarm.firstRing(after: now, systemZone: zone) else { return nil }
        return alarm.skipNext ? alarm.nextRing(after: first, systemZone: zone) : first
    }

    func rfc3339(_ date: Date, for alarm: Alarm? = nil) -> String {
        RFC3339.format(date, in: alarm?.displayZone(systemZone: zone) ?? zone)
    }

    /// "Mon 06:30" within a week, else "2026-12-24 07:00", on the system's wall clock.
    func short(_ date: Date) -> String {
        let c = Zones.civil(at: date, in: zone)
        return (date.timeIntervalSince(now) < 6 * 86400 ? c.weekdayName : c.date) + " " + c.hourMinute
    }

    func clock(_ date: Date) -> String {
        let c = Zones.civil(at: date, in: zone)
        return abs(date.timeIntervalSince(now)) < 86400 ? c.hourMinute : c.date + " " + c.hourMinute
    }

}

func printError(_ text: String) {
    StandardError.write(text)
}

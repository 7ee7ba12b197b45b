import AlarmOptions
import AlarmCore
import AlarmDaemon
import Foundation

/// What every subcommand works with: the settings, the store, the system zone and "now".
struct Context {
    let config: Configuration
    let store: AlarmStore
    let zone: TimeZone
    let now = Date()

    init(_ options: SettingsOptions, lenient: Bool = false) throws {
        config = lenient ? options.lenientConfiguration() : try options.configuration()
        store = AlarmStore(stateDir: config.stateDir)
        zone = SystemZone.current(config)
    }

    func loadAlarms() throws -> [Alarm] {
        do { return try store.load() } catch { throw CLIError(error) }
    }

    /// The next ring an alarm will really sound: skip-next passes over one occurrence.
    func nextRing(_ alarm: Alarm) -> Date? {
        guard let first = alarm.nextRing(after: now, systemZone: zone) else { return nil }
        return alarm.skipNext ? alarm.nextRing(after: first, systemZone: zone) : first
    }

    func rfc3339(_ date: Date, for alarm: Alarm? = nil) -> String {
        RFC3339.format(date, in: alarm?.displayZone(systemZone: zone) ?? zone)
    }

    /// "Mon 06:30" within a week, else "2026-12-24 07:00", on the system's wall clock.
    func short(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = date.timeIntervalSince(now) < 6 * 86400 ? "EEE HH:mm" : "yyyy-MM-dd HH:mm"
        return f.string(from: date)
    }

    func clock(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = abs(date.timeIntervalSince(now)) < 86400 ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return f.string(from: date)
    }

    /// What `list --json` and `export` print: the store format, plus each alarm's next ring.
    func json(_ alarms: [Alarm]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var objects: [Any] = []
        for alarm in alarms {
            var object = try JSONSerialization.jsonObject(with: encoder.encode(alarm)) as! [String: Any]
            object["next"] = nextRing(alarm).map { rfc3339($0, for: alarm) } ?? NSNull()
            objects.append(object)
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

import AlarmState
import AlarmCore
import AlarmSystem
import FoundationEssentials
import Logging

/// The holidays file (`holidays = FILE`, issue #12): read at start, watched with inotify like the
/// store, read again when it changes (or SIGHUP names another). A file that cannot be used is
/// logged with its line and reason, and the calendar in force stays (none at start): alarms keep
/// ringing, a typo never silences a morning.
extension Daemon {
    /// The calendar at start: the file's, or empty (logged) when there is none or it is malformed.
    static func initialHolidays(_ path: String?, logger: Logger) -> HolidayCalendar {
        guard let path else { return .empty }
        do {
            let calendar = try HolidaysFile.load(path)
            logger.info("holidays: \(calendar.count) day(s) from \(path)")
            return calendar
        } catch {
            logger.error("\(error); no holidays are skipped until it is fixed")
            return .empty
        }
    }

    /// Watches the holidays file (its directory, so a file replaced by rename or created later is
    /// seen too), in place of the one watched before; none when there is no holidays setting.
    func watchHolidays() {
        guard let path = config.holidays else {
            watched.set(nil, for: .holidays)
            return
        }
        do { try watch(path, as: .holidays) } catch {
            logger.warning("not watching the holidays file \(path) for changes: \(error)")
        }
    }

    /// The holidays file changed: read it again; a good calendar replaces the one in force.
    func holidaysFileChanged() {
        guard let path = config.holidays else { return }
        let calendar: HolidayCalendar
        do { calendar = try HolidaysFile.load(path) } catch {
            logger.error("\(error); the holidays in force stay (\(engine.holidays.count) day(s))")
            return
        }
        guard calendar != engine.holidays else { return }
        logger.notice("holidays: \(calendar.count) day(s) from \(path)")
        handle(.holidaysChanged(calendar))
    }

    /// SIGHUP named another holidays file (now `config.holidays`), or none.
    func holidaysSettingChanged(from old: String?) {
        guard config.holidays != old else { return }
        guard config.holidays != nil else {
            logger.notice("no holidays file any more: no holidays are skipped")
            watched.set(nil, for: .holidays)
            if !engine.holidays.isEmpty { handle(.holidaysChanged(.empty)) }
            return
        }
        watchHolidays()
        holidaysFileChanged()
    }
}

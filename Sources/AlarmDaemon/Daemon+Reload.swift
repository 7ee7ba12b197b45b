import AlarmState
import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP and `reload`, and the store read again when it changes.
extension Daemon {
    /// SIGHUP and `reload`: the config file again (alarm defaults, device, sound directories; the
    /// directories, FIFO and zone file stay as they were), then the alarms.
    func reloadAll(reason: String) {
        logger.notice("reloading the configuration and the alarms (\(reason))")
        do {
            let fresh = try resolveConfiguration()
            let moved =
                fresh.stateDir != config.stateDir || fresh.runtimeDir != config.runtimeDir
                || fresh.localtimePath != config.localtimePath
                || fresh.fifoGroup != config.fifoGroup
            if moved {
                logger.warning("state_dir, runtime_dir, localtime and fifo_group take effect at the next start")
            }
            if Self.settings(fresh) != engine.settings { handle(.settingsChanged(Self.settings(fresh))) }
            sounds = fresh.soundLibrary
            if fresh.device != config.device {
                let log = logger
                let replacement = AlarmPlayer(
                    device: fresh.device, log: { line in log.warning("\(line)") }, environment: environment)
                if player.isRinging {
                    logger.notice("the new device \(fresh.device) is used from the next ring")
                }
                pendingPlayer = replacement
            }
            // Everything else of the file applies now (a key added later too); what alarmd set
            // up at start stays: its directories (the store, the FIFO, status.json), the FIFO's
            // group and the zone file it watches.
            var next = fresh
            next.stateDir = config.stateDir
            next.runtimeDir = config.runtimeDir
            next.localtimePath = config.localtimePath
            next.localtimeIsExplicit = config.localtimeIsExplicit
            next.fifoGroup = config.fifoGroup
            let oldHolidays = config.holidays
            config = next
            volumeFloor.floor = config.mixerFloor
            volumeFloor.control = config.mixerControl
            holidaysSettingChanged(from: oldHolidays)
            preflight.lastCheck = nil
        } catch {
            logger.error("the configuration was not reloaded, the old one stays in force: \(error)")
        }
        cancelPreroll()  // prepared with the old sounds and device
        reload(reason: nil)
        planPreroll()
        schedulePreflight()
    }

    static func settings(_ c: Configuration) -> EngineSettings {
        EngineSettings(
            snooze: c.snooze, ring: c.ring, volume: c.volume, fadeIn: c.fadeIn, grace: c.grace,
            volumeFrom: c.volumeFrom,
            maxSnoozes: c.maxSnoozes.count, whenIgnored: c.whenIgnored, preAlarm: c.preAlarm)
    }

    func reload(reason: String?) {
        if let reason { logger.info("reloading alarms (\(reason))") }
        guard let alarms = loadAlarms(), alarms != engine.alarms else { return }
        watchPinnedZones(alarms)
        handle(.alarmsChanged(alarms))
    }

    /// The stored alarms, or nil (logged) when the store cannot be read: the running alarms are
    /// kept rather than dropped, and the file is left for the user to fix. With nothing running
    /// yet (a corrupt or empty store at start), the previous list in `alarms.json.bak` rings
    /// instead, read only: a broken file must not make for a silent morning.
    func loadAlarms() -> [Alarm]? {
        do { return try reloadCache.load(store) } catch {
            logger.error("\(error)")
            guard engine.alarms.isEmpty,
                let backup = try? store.loadBackup(), !backup.isEmpty
            else { return nil }
            logger.warning("ringing the \(backup.count) alarm(s) of \(store.backupPath) until \(store.path) is fixed")
            return backup
        }
    }
}

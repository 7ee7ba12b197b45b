import AlarmState
import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A running fallback_command and its registration in the event loop.
struct FallbackChild {
    var process: ChildProcess
    var command: String
    var token: EventLoop.Token?
}

/// The last resort (issue #11): when the player reports that no ALSA device of the chain could
/// play while an alarm should ring, alarmd runs `fallback_command` (config) through `/bin/sh -c`
/// once per ring episode, with the alarm in `ALARM_ID`, `ALARM_LABEL`, `ALARM_SOUND`,
/// `ALARM_TIME` (RFC 3339) and `ALARM_REASON`. Its start and exit status go to the journal and
/// into the episode's history entry (`fallback`). The event loop waits for it through a pidfd.
extension Daemon {
    func runFallbackCommand(reason: String) {
        guard let command = config.fallbackCommand, case .ringing(let r) = engine.state.ring,
            !engine.fallbackRanInEpisode
        else { return }
        let environment = Self.fallbackEnvironment(r, reason: reason, base: self.environment, zone: zone)
        do {
            let child = try ChildProcess(shellCommand: command, environment: environment)
            logger.warning(
                "no ALSA device plays \(r.occurrence.alarm.map { "'\($0)'" } ?? "the manual ring"): running fallback_command '\(command)' (pid \(child.pid))"
            )
            var entry = FallbackChild(process: child, command: command, token: nil)
            if child.descriptor >= 0 {
                entry.token = try? loop.register(child.descriptor) { [unowned self] _ in fallbackChildEnded(child.pid) }
            }
            fallbackChildren[child.pid] = entry
            handle(.fallbackRan(note: "'\(command)' started (pid \(child.pid))"))
        } catch {
            logger.error("fallback_command '\(command)' could not be started: \(error)")
            handle(.fallbackRan(note: "'\(command)' could not be started: \(error)"))
        }
    }

    /// The environment of the command: alarmd's own without its `ALARM_*` settings, a `PATH`,
    /// and the alarm's `ALARM_*` variables.
    static func fallbackEnvironment(
        _ r: Ringing, reason: String, base: [String: String], zone: Zone
    ) -> [String: String] {
        var env = base.filter { !$0.key.hasPrefix("ALARM_") }
        if env["PATH"] == nil { env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" }
        let shown = (try? Zones.zone(named: r.zoneIdentifier)) ?? zone
        env["ALARM_ID"] = r.occurrence.alarm ?? ""
        env["ALARM_LABEL"] = r.label ?? ""
        env["ALARM_SOUND"] = r.sound ?? "default"
        env["ALARM_TIME"] = RFC3339.format(r.occurrence.scheduled, in: shown)
        env["ALARM_REASON"] = reason
        return env
    }

    /// The pidfd of a fallback_command became readable: it ended.
    func fallbackChildEnded(_ pid: Int32) {
        guard let entry = fallbackChildren[pid] else { return }
        let status: ExitStatus?
        do { status = try entry.process.reap() } catch {
            logger.error("waiting for fallback_command (pid \(pid)) failed: \(error)")
            forget(pid)
            return
        }
        guard let status else { return }
        forget(pid)
        if status == .exited(0) {
            logger.notice("fallback_command '\(entry.command)' \(status)")
        } else {
            logger.warning("fallback_command '\(entry.command)' \(status)")
        }
        handle(.fallbackRan(note: "'\(entry.command)' \(status)"))
    }

    /// Without pidfds (a kernel before 5.3) children are reaped whenever something happens.
    func reapFallbackChildren() {
        for (pid, entry) in fallbackChildren where entry.token == nil {
            if (try? entry.process.reap()) != nil { fallbackChildEnded(pid) }
        }
    }

    private func forget(_ pid: Int32) {
        if let token = fallbackChildren[pid]?.token { try? loop.unregister(token) }
        fallbackChildren[pid] = nil
    }
}

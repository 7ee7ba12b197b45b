import AlarmState
import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What the pre-flight knows between two checks.
struct PreflightState {
    /// The ring the checks are for (the next ring, as last published).
    var ring: EngineStatus.Next?
    /// When the last check for `ring` ran.
    var lastCheck: Date?
    /// Its problems, one line each ("device: ..."): status.json's `warnings`.
    var warnings: [String] = []
    /// When the timer is armed for (nil: disarmed), so an unchanged instant is not re-armed.
    var armedAt: Date?
    /// Issue #43: the stream being probed on a thread of its own, and the result of the last
    /// probe, taken by the check it was made for.
    var streamProbing: String?
    var streamProbed: (url: String, outcome: StreamProbe.Outcome)?
}

/// The pre-flight (issue #11): `preflight` (default 10 min) before each ring, alarmd runs the
/// checks of `alarm check` for that alarm, then again every `PreflightPlan.recheckInterval` until
/// it rings. Problems are logged as warnings when they appear and put in status.json's `warnings`;
/// they clear when a later check finds them gone, when the next ring changes, and when the ring
/// starts (from then on the ring reports its own failures).
extension Daemon {
    /// Re-arms the pre-flight timer for the ring to come. Called after every engine event: it
    /// reads the published status (the engine's next ring), so it costs no schedule search.
    func schedulePreflight(now: Date = Date()) {
        reapFallbackChildren()
        let next = lastStatus?.next
        let ringing = lastStatus?.state == .ringing
        if next != preflight.ring {
            preflight.ring = next
            preflight.lastCheck = nil
        }
        // Warnings of a ring that is no longer ahead (it rang, moved, was removed, or the
        // pre-flight was turned off) go.
        if !preflight.warnings.isEmpty,
            ringing || !PreflightPlan.inWindow(ring: next?.at, lead: config.preflight, now: now)
        {
            setPreflightWarnings([], for: nil)
        }
        let due = PreflightPlan.nextCheck(
            ring: next?.at, lead: config.preflight, lastCheck: preflight.lastCheck, ringing: ringing, now: now)
        guard due != preflight.armedAt else { return }
        do {
            if let due {
                // A clock change pending on this timer is cleared: the check's instant is the ring's
                // minus the lead, recomputed at every event anyway.
                try preflightTimer.armClearingClockChange(at: due)
            } else {
                try preflightTimer.disarm()
            }
            preflight.armedAt = due
        } catch {
            preflight.armedAt = nil
            logger.error("arming the pre-flight timer failed: \(error)")
        }
    }

    /// Runs the checks for the next ring now, publishes what changed, and schedules the next run.
    func runPreflight(now: Date = Date()) {
        preflight.armedAt = nil
        // Not while the ring is pre-rolled (seconds away, its device held open: a probe of a
        // `hw:` device would find it busy): the last check's findings stand.
        guard let next = lastStatus?.next, lastStatus?.state != .ringing, preroll?.player == nil,
            let alarm = engine.alarms.first(where: { $0.id == next.id })
        else {
            // Nothing to check now; counted as a check, so the timer cannot spin on it.
            preflight.lastCheck = now
            schedulePreflight(now: now)
            return
        }
        var probes = LivePreflightProbes(sounds: sounds, asDaemon: true)
        probes.streamSocket = config.streamSocket
        probes.streamTimeout = config.streamTimeout
        // A stream (issue #43) is probed on a thread of its own: a second of audio, or up to
        // stream_timeout without any, is too long to hold the loop (a stop, a snooze). The check
        // runs again with the result when it comes.
        if let url = (alarm.sound ?? config.sound).flatMap({ SoundSelection($0).streamURL }) {
            guard let probed = preflight.streamProbed, probed.url == url else {
                probeStream(url)
                return
            }
            preflight.streamProbed = nil
            probes.streamOutcome = { _ in probed.outcome }
        }
        let report = Preflight(config: config, probes: probes).report(
            .alarm(alarm, at: next.at), daemon: .running(lastStatus), system: systemZoneFacts(), now: now)
        preflight.ring = next
        preflight.lastCheck = now
        setPreflightWarnings(report.problems, for: next)
        schedulePreflight(now: now)
    }

    private func probeStream(_ url: String) {
        guard preflight.streamProbing != url else { return }
        preflight.streamProbing = url
        let (socket, timeout, inbox, wake) = (config.streamSocket, config.streamTimeout, inbox, wake)
        startThread(named: "alarm-preflight") {
            let outcome = StreamProbe.probe(url: url, socketPath: socket, timeout: timeout)
            // Not bound to a ring: taken whatever rang meanwhile (the loop checks again).
            inbox.post(.streamProbed(url: url, outcome: outcome), at: Date(), generation: -1)
            wake.signal()
        }
    }

    /// The probe of `url` ended: the check it was made for runs now.
    func streamProbed(_ url: String, _ outcome: StreamProbe.Outcome) {
        guard preflight.streamProbing == url else { return }
        preflight.streamProbing = nil
        preflight.streamProbed = (url, outcome)
        runPreflight()
    }

    /// Logs the problems that are new (and writes a `preflight-warning` event for each), says
    /// when all are gone, and rewrites status.json when the list changed.
    private func setPreflightWarnings(_ problems: [String], for ring: EngineStatus.Next?) {
        guard problems != preflight.warnings else { return }
        if let ring {
            let when = RFC3339.format(ring.at, in: zone)
            let fresh = problems.filter { !preflight.warnings.contains($0) }
            for p in fresh {
                logger.warning("pre-flight for '\(ring.id)' at \(when): \(p)")
            }
            recordPreflightWarnings(fresh, for: ring)
            if problems.isEmpty { logger.notice("pre-flight for '\(ring.id)' at \(when): all checks pass now") }
        }
        preflight.warnings = problems
        guard let status = lastStatus else { return }
        do { try publish(status) } catch { logger.error("writing status.json failed: \(error)") }
    }

    func systemZoneFacts() -> Preflight.SystemZoneFacts {
        let known = SystemZone.resolve(config, environment: environment) != nil
        var source = config.localtimePath
        if !config.localtimeIsExplicit, let tz = environment["TZ"], !tz.isEmpty, SystemZone.zone(tz: tz) != nil {
            source = "TZ=\(tz)"
        }
        return .init(zone: zone, known: known, source: source)
    }
}

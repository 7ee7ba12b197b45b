import AlarmCore
import AlarmState
import AlarmOptions
import ArgumentParser
import FoundationEssentials

/// `alarm check [ID] [--all] [--json]`: will it ring? For the next alarm (or the one named, or
/// every one): alarmd, the sound, the device chain, the mixer, the clock, the zones, the state
/// directory; each `ok`, `warning` or `fail` with what to do about it.
///
/// Exit status: 0 all ok; 1 warnings, it will ring; 2 it will not ring audibly as set (alarmd
/// not running, no device opens, the mixer muted with the floor off, no alarm set or no such
/// alarm). A user outside the group `alarm` gets what can be known (status.json, the devices
/// as far as they may open them).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Check that the next alarm (or ID, or --all) will ring: alarmd, sound, device, mixer, clock, zone, storage.",
        discussion: "Exit status: 0 all ok, 1 warnings (it will ring), 2 it will not ring audibly as set.")

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The alarm to check (default: the one that rings next).")
    var id: String?

    @Flag(help: "Check every alarm.")
    var all = false

    @Flag(
        help:
            "Print {\"alarm\", \"at\", \"verdict\", \"checks\": [{\"name\", \"status\", \"message\"}]}; with --all, an array of them."
    )
    var json = false

    func validate() throws {
        if id != nil && all { throw ValidationError("give an alarm id or --all, not both") }
    }

    func run() throws {
        let (config, configProblem) = Configuration.resolveLeniently(flags: options.flags)
        let ctx = AlarmContext(config: config)
        let (running, why) = daemonRunning(ctx)
        let status = readStatus(ctx)
        let daemon: CheckFacts.Daemon = running ? .running(status) : .notRunning(why: why ?? "alarmd is not running")
        var probes = LivePreflightProbes(sounds: config.soundLibrary.decodingSafely, asDaemon: false)
        probes.streamSocket = config.streamSocket
        probes.streamTimeout = config.streamTimeout
        let preflight = Preflight(config: config, probes: probes)
        let system = Preflight.SystemZoneFacts(
            zone: ctx.zone, known: SystemZone.resolve(config) != nil, source: zoneSource(config))

        var reports = targets(ctx, status: status).map {
            preflight.report($0, daemon: daemon, system: system, now: ctx.now)
        }
        if let configProblem {
            let check = Check(
                "config", .warning,
                "\(configProblem): the other settings were used here; alarmd does not start with it (nor reload it)")
            for i in reports.indices { reports[i].checks.insert(check, at: 0) }
        }
        // Issue #42: an empty alarms.json whose backup rings instead.
        if let note = (try? ctx.store.read())?.note {
            for i in reports.indices { reports[i].checks.insert(Check("store", .warning, note), at: 0) }
        }
        // Issue #12: a holidays file that cannot be used, for the alarms that skip holidays.
        if let path = config.holidays, (try? ctx.store.load())?.contains(where: \.skipHolidays) ?? false {
            do { _ = try HolidaysFile.load(path) } catch {
                let check = CheckRules.holidaysUnusable("\(error)")
                for i in reports.indices { reports[i].checks.insert(check, at: 0) }
            }
        }
        let verdict = CheckReport.verdict(reports.map(\.verdict))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = all ? try encoder.encode(reports) : try encoder.encode(reports[0])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(reports.map { describe($0, ctx) }.joined(separator: "\n"), terminator: "")
            if all && reports.count > 1 { print("overall: " + Self.meaning(verdict)) }
        }
        if verdict != .ok { throw ExitCode(verdict.exitCode) }
    }

    /// What to check: the alarm named, every alarm (by next ring), or the next one to ring.
    func targets(_ ctx: AlarmContext, status: EngineStatus?) -> [Preflight.Target] {
        let alarms: [Alarm]
        do { alarms = try ctx.store.load() } catch {
            // Outside the group the state directory is closed: only status.json tells what rings.
            return [.unreadable(why: "\(error)", next: status?.next, asked: id)]
        }
        if let id {
            guard let alarm = alarms.first(where: { $0.id == id }) else { return [.unknown(id)] }
            return [.alarm(alarm, at: ctx.nextRing(alarm))]
        }
        let rings = alarms.map { ($0, ctx.nextRing($0)) }
            .sorted { ($0.1 ?? .distantFuture) < ($1.1 ?? .distantFuture) }
        guard let first = rings.first else { return [.nothing] }
        if all { return rings.map { .alarm($0.0, at: $0.1) } }
        return [.alarm(first.0, at: first.1)]
    }

    func zoneSource(_ config: Configuration) -> String {
        if !config.localtimeIsExplicit, let tz = ProcessInfo.processInfo.environment["TZ"], !tz.isEmpty,
            SystemZone.zone(tz: tz) != nil
        {
            return "TZ=\(tz)"
        }
        return config.localtimePath
    }

    /// One block per alarm: a heading, one line per check, the verdict.
    func describe(_ report: CheckReport, _ ctx: AlarmContext) -> String {
        var heading = report.alarm.map { "alarm '\($0)'" } ?? "no alarm"
        if let at = report.at {
            heading +=
                " at \(RFC3339.format(at, in: report.zone)) (in \(Durations.spoken(at.timeIntervalSince(ctx.now))))"
        }
        var out = heading + "\n"
        let width = max(7, report.checks.map(\.name.count).max() ?? 0)
        for c in report.checks {
            out +=
                "  " + Text.padded(c.status.rawValue, 7) + "  " + Text.padded(c.name, width) + "  " + c.message + "\n"
        }
        return out + "verdict: " + Self.meaning(report.verdict) + "\n"
    }

    static func meaning(_ v: CheckStatus) -> String {
        switch v {
        case .ok: return "ok: it will ring as set"
        case .warning: return "warning: it will ring, but see the warnings"
        case .fail: return "fail: it will not ring audibly as set"
        }
    }
}

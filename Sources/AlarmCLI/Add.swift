import AlarmOptions
import AlarmAudio
import AlarmCore
import AlarmState
import ArgumentParser
import FoundationEssentials

/// `alarm add`: a calendar expression, or an instant (`--in`, `--at`). Adding an existing id
/// replaces that alarm (the seeds' identifier semantics).
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an alarm (or replace the one with the same id).",
        discussion: """
            Examples:
            alarm add 'Mon..Fri 06:30' --id work --sound chime.flac
            alarm add --in 20m --label tea
            alarm add --at 2026-12-24T07:00:00+01:00
            alarm add 'weekdays 06:30' --skip-holidays --until 2027-06-30
            alarm add 'Mon..Fri 06:30' --id work --pre-alarm 30m,10m
            alarm add 'Sat,Sun 08:30' --sound http://radio.example:8000/live.mp3 --fallback-sound chime.flac

            Every other Monday, every third day, and every 90 minutes from now:
            alarm add 'Mon 06:30' --every 2w --from 2026-11-23
            alarm add 06:00 --every 3d --from 2026-11-23
            alarm add --every 90m
            """)

    @OptionGroup var options: SettingsOptions

    @Argument(help: "A calendar expression, e.g. 'Mon..Fri 06:30' (quoted, or as separate words).")
    var expression: [String] = []

    @Option(
        name: .customLong("in"),
        help: ArgumentHelp("Ring once after this long (90s, 20m, 1h30m).", valueName: "duration"))
    var after: String?

    @Option(help: ArgumentHelp("Ring once at this RFC 3339 instant.", valueName: "time"))
    var at: String?

    @Option(help: "The alarm's id (default: alarm-N). An existing id is replaced.")
    var id: String?

    @Option(help: "A label shown in lists, status and history.")
    var label: String?

    @Option(
        help: ArgumentHelp(
            "A sound file name in the sound directories, a comma-separated list (one picked at random for each ring), '*' (any playable sound), or an http or https stream URL played through alarm-stream (default: the config's sound, else the built-in tone).",
            valueName: "name|url"))
    var sound: String?

    @Option(
        help: ArgumentHelp(
            "The sound file that plays when the stream gives no audio for stream_timeout, at the start or during a ring (default: the built-in tone).",
            valueName: "name"))
    var fallbackSound: String?

    @Flag(help: "Ring at the next match only, then remove the alarm.")
    var once = false

    @Option(
        help: ArgumentHelp(
            "Pin the expression to this IANA zone (default: floating, the system zone).", valueName: "zone"))
    var zone: String?

    @Option(help: ArgumentHelp("Snooze length for this alarm (default from the config: 9m).", valueName: "duration"))
    var snooze: String?

    @Option(help: ArgumentHelp("How long it rings before silencing itself (default 10m).", valueName: "duration"))
    var ring: String?

    @Option(help: ArgumentHelp("Volume in percent, 0-100.", valueName: "pct"))
    var volume: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds from --volume-from to --volume: 30, or a duration such as 1m.", valueName: "seconds"))
    var fadeIn: String?

    @Option(
        help: ArgumentHelp(
            "The volume in percent the fade-in starts at, 0-100 (default from the config: 0).", valueName: "pct"))
    var volumeFrom: Int?

    @Option(
        help: ArgumentHelp(
            "After this many snoozes 'alarm snooze' is refused and it keeps ringing; 'unlimited' (default from the config: unlimited).",
            valueName: "n"))
    var maxSnoozes: String?

    @Option(
        help: ArgumentHelp(
            "What a ring nobody answers does at its ring length: snooze (itself, up to max-snoozes or 3, then silenced as 'ignored') or silence (default from the config: snooze).",
            valueName: "snooze|silence"))
    var whenIgnored: String?

    @Option(
        help: ArgumentHelp(
            "Write a pre-alarm event this long before each ring that will happen, once per lead (a sunrise light): 30m, or 30m,10m; each at most 24h (default from the config's pre_alarm: none).",
            valueName: "duration[,duration...]"))
    var preAlarm: String?

    @OptionGroup var schedule: ScheduleOptions

    func validate() throws {
        let given = [!expression.isEmpty, after != nil, at != nil].filter { $0 }.count
        guard given == 1 || (given == 0 && schedule.every != nil) else {
            throw ValidationError("give exactly one of: an expression, --in DURATION, --at TIME")
        }
        if zone != nil && expression.isEmpty {
            throw ValidationError("--zone applies to an expression; --in and --at are instants")
        }
        if let volume, !(0...100).contains(volume) { throw ValidationError("--volume must be 0-100") }
        if let volumeFrom, !(0...100).contains(volumeFrom) { throw ValidationError("--volume-from must be 0-100") }
        if let maxSnoozes { do { _ = try SnoozeLimit.parse(maxSnoozes) } catch { throw ValidationError("--\(error)") } }
        if let whenIgnored {
            do { _ = try WhenIgnored.parse(whenIgnored) } catch { throw ValidationError("--\(error)") }
        }
        if let preAlarm { do { _ = try PreAlarmLeads.parse(preAlarm) } catch { throw ValidationError("--\(error)") } }
        if let id { do { try Alarm.validate(id: id) } catch { throw ValidationError("\(error)") } }
    }

    func run() throws {
        let ctx = try AlarmContext(options)
        let (trigger, rules) = try schedule.apply(to: try makeTrigger(ctx), zone: ctx.zone, now: ctx.now)
        func duration(_ text: String?, _ flag: String) throws -> TimeInterval? {
            guard let text else { return nil }
            do { return try Durations.parse(text) } catch { throw UserError("\(flag): \(error)") }
        }
        var alarm = Alarm(
            id: id ?? "", trigger: trigger, label: label, sound: sound, once: once,
            snooze: try duration(snooze, "--snooze"), ring: try duration(ring, "--ring"), volume: volume,
            fadeIn: try fadeInSeconds(), every: rules.every, from: rules.from, until: rules.until,
            skipHolidays: schedule.skipHolidays, volumeFrom: volumeFrom,
            maxSnoozes: try maxSnoozes.map { text in try SnoozeLimit.parse(text) },
            whenIgnored: try whenIgnored.map { text in try WhenIgnored.parse(text) },
            preAlarm: try preAlarm.map { text in try PreAlarmLeads.parse(text) }, fallbackSound: fallbackSound)
        if let problem = Alarm.whyRulesDoNotFit(trigger: alarm.trigger, every: alarm.every) { throw UserError(problem) }
        if let sound, let problem = SoundSpec.problem(sound) { throw UserError("--sound: \(problem)") }
        if let fallbackSound, let problem = SoundSpec.fallbackProblem(fallbackSound) {
            throw UserError("--fallback-sound: \(problem)")
        }
        let (stored, next, replaced) = try ctx.commitAdd(alarm)
        alarm = stored
        print(
            "\(replaced ? "replaced" : "added") \(alarm.id): next ring \(ctx.rfc3339(next, for: alarm)) (in \(Durations.spoken(next.timeIntervalSince(ctx.now))))"
        )
        if let sound {
            let library = ctx.config.soundLibrary.decodingSafely
            switch SoundSelection(sound) {
            case .one(let name):
                if let problem = library.inspect(name).problem {
                    printError("warning: \(problem); the default tone will ring instead")
                }
            case .list(let names):
                let problems = names.compactMap { library.inspect($0).problem }
                for problem in problems {
                    printError(
                        "warning: \(problem); "
                            + (problems.count == names.count
                                ? "the default tone will ring instead" : "the others are picked from"))
                }
            case .any:
                if !library.names().contains(where: { library.inspect($0).problem == nil }) {
                    printError(
                        "warning: no sound of \(library.directories.joined(separator: ", ")) plays; the default tone will ring instead"
                    )
                }
            case .stream:
                break  // alarm check connects to it; here it would hold the command for seconds
            }
        }
        if let fallbackSound, let problem = ctx.config.soundLibrary.decodingSafely.inspect(fallbackSound).problem {
            printError("warning: fallback sound: \(problem); the default tone will play instead")
        }
    }

    /// `--fade-in` is seconds ("30", as `alarm play --fade-in` takes it) or a duration ("30s", "1m").
    private func fadeInSeconds() throws -> TimeInterval? {
        guard let fadeIn else { return nil }
        if let seconds = Double(fadeIn), seconds >= 0, seconds <= 600 { return seconds }
        do { return try Durations.parse(fadeIn) } catch { throw UserError("--fade-in: \(error)") }
    }

    /// The expression or instant typed; nil when neither (`--every` alone).
    private func makeTrigger(_ ctx: AlarmContext) throws -> AlarmTrigger? {
        // The store keeps an instant in whole seconds: the one checked against `created` and
        // printed here must be the one stored, or an alarm acknowledged "in 1 s" whose `created`
        // fell in the fraction cut off would be kept and never ring. `--in` rounds up (never
        // sooner than asked), `--at` as the store does.
        if let after {
            let d: TimeInterval
            do { d = try Durations.parse(after) } catch { throw UserError("--in: \(error)") }
            return .instant(
                Date(timeIntervalSince1970: ctx.now.addingTimeInterval(d).timeIntervalSince1970.rounded(.up)))
        }
        if let at {
            guard let date = RFC3339.parse(at) else {
                throw UserError("--at '\(at)' is not an RFC 3339 timestamp such as 2026-12-24T07:00:00+01:00")
            }
            return .instant(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
        }
        if expression.isEmpty { return nil }
        var expr: CalendarExpression
        do { expr = try CalendarExpression(expression.joined(separator: " ")) } catch { throw UserError(error) }
        if let zone {
            let name: String
            do { name = try Zones.canonicalName(zone) } catch { throw UserError(error) }
            if let pinned = expr.zone, pinned != name {
                throw UserError("the expression names zone \(pinned) but --zone says \(name)")
            }
            expr.zone = name
        }
        return .calendar(expr)
    }
}

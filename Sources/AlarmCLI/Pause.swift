import AlarmState
import AlarmCore
import AlarmOptions
import ArgumentParser
import FoundationEssentials

/// `alarm pause [ID...|--all] [--until DATE|--for DURATION]`: a vacation (issue #12). The pause
/// is kept with each alarm in the store (`paused`, `paused_until`), written under the store's
/// lock like every edit; alarmd records each occurrence it covers as `paused` and rings none.
/// `--all` pauses the alarms there are now; alarms added later are not paused.
struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause alarms (a vacation): their occurrences are recorded as paused, not rung.",
        discussion: """
            Examples: work rings again from 2026-12-01 00:00 in its zone; every alarm for two weeks; \
            gym until alarm resume:
            alarm pause work --until 2026-12-01
            alarm pause --all --for 2w
            alarm pause gym
            """)

    @OptionGroup var options: SettingsOptions

    @Argument(help: "The ids to pause.")
    var ids: [String] = []

    @Flag(help: "Pause every alarm.")
    var all = false

    @Option(
        help: ArgumentHelp(
            "The pause ends at this date (its midnight; YYYY-MM-DD or YYYY-MM-DDTHH:MM in the alarm's zone, or RFC 3339).",
            valueName: "date"))
    var until: String?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("The pause ends after this long (3d, 2w, 12h).", valueName: "duration"))
    var length: String?

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give the ids to pause, or --all") }
        if until != nil && length != nil { throw ValidationError("give --until or --for, not both") }
    }

    func run() throws {
        let ctx = try AlarmContext(options)
        var pause = AlarmCore.Pause.indefinitely
        if let until {
            do { pause = .until(try ScheduleBound.parse(until)) } catch { throw UserError("--until: \(error)") }
        } else if let length {
            let seconds: Int64
            do {
                switch try RepeatInterval.parse(length) {
                case .days(let n): seconds = Int64(n) * 86400
                case .weeks(let n): seconds = Int64(n) * 604_800
                case .seconds(let s): seconds = s
                }
            } catch { throw UserError("--for: \(error)") }
            pause = .until(
                .instant(Date(timeIntervalSince1970: (ctx.now.timeIntervalSince1970 + Double(seconds)).rounded(.up))))
        }
        let changed = try ctx.changeEach(ids: ids, all: all, done: "paused") { a in
            a.pause = pause
            if case .until = pause, let end = a.pauseEnd(systemZone: ctx.zone), end <= ctx.now {
                throw UserError(
                    "--until \(until ?? ""): the pause would already be over for '\(a.id)' (\(ctx.rfc3339(end, for: a)))"
                )
            }
        }
        if changed.isEmpty { print("no alarms to pause") }
        for a in changed {
            let until =
                a.pauseEnd(systemZone: ctx.zone).map { "until " + ctx.rfc3339($0, for: a) } ?? "until alarm resume"
            let next = ctx.nextRing(a).map { "; next ring " + ctx.rfc3339($0, for: a) } ?? ""
            print("paused \(a.id) \(until)\(next)")
        }
    }
}

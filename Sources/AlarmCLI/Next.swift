import AlarmState
import AlarmOptions
import AlarmCore
import ArgumentParser
import FoundationEssentials

/// `alarm next`: when the next alarm rings, for people ("in 7 h 12 min").
struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next", abstract: "Say which alarm rings next, and in how long.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print {\"id\": ..., \"at\": ..., \"in\": seconds} or null.")
    var json = false

    func run() throws {
        let ctx = try AlarmContext(options)
        let alarms = try ctx.loadAlarms()
        let upcoming = alarms.compactMap { a in ctx.nextRing(a).map { (a, $0) } }.min { $0.1 < $1.1 }
        // Paused alarms are passed over above; say so, so that a vacation is never a surprise.
        let paused = alarms.compactMap { a in ctx.pauseText(a).map { "\(a.id) (\($0))" } }
        defer { if !json && !paused.isEmpty { print("paused: " + paused.joined(separator: ", ")) } }
        guard let (alarm, at) = upcoming else {
            print(json ? "null" : "no alarm scheduled")
            return
        }
        if json {
            print(try ctx.nextJSON(alarm, at: at))
        } else {
            print(
                "\(alarm.id) in \(Durations.spoken(at.timeIntervalSince(ctx.now))) (\(ctx.short(at)), \(ctx.rfc3339(at, for: alarm)))"
            )
        }
    }
}

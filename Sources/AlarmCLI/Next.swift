import AlarmOptions
import AlarmCore
import ArgumentParser
import Foundation

/// `alarm next`: when the next alarm rings, for people ("in 7 h 12 min").
struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Say which alarm rings next, and in how long.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print {\"id\": ..., \"at\": ..., \"in\": seconds} or null.")
    var json = false

    func run() throws {
        let ctx = try Context(options)
        let upcoming = try ctx.loadAlarms().compactMap { a in ctx.nextRing(a).map { (a, $0) } }.min { $0.1 < $1.1 }
        guard let (alarm, at) = upcoming else {
            print(json ? "null" : "no alarm scheduled")
            return
        }
        if json {
            let object: [String: Any] = ["id": alarm.id, "at": ctx.rfc3339(at, for: alarm), "in": Int(at.timeIntervalSince(ctx.now).rounded(.up))]
            print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
        } else {
            print("\(alarm.id) in \(Durations.spoken(at.timeIntervalSince(ctx.now))) (\(ctx.short(at)), \(ctx.rfc3339(at, for: alarm)))")
        }
    }
}

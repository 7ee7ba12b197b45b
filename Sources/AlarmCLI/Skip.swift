import AlarmState
import AlarmOptions
import AlarmCore
import ArgumentParser

/// `alarm skip ID`: the next occurrence does not ring; the ones after it do.
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip the next occurrence of an alarm.")
    @OptionGroup var options: SettingsOptions
    @Argument(help: "The alarm's id.") var id: String

    func run() throws { try setSkip(options, id: id, true) }
}

/// `alarm unskip ID`: undo `skip`.
struct Unskip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unskip", abstract: "Undo skip: the next occurrence rings again.")
    @OptionGroup var options: SettingsOptions
    @Argument(help: "The alarm's id.") var id: String

    func run() throws { try setSkip(options, id: id, false) }
}

private func setSkip(_ options: SettingsOptions, id: String, _ skip: Bool) throws {
    let ctx = try AlarmContext(options)
    let updated: Alarm?
    do { updated = try ctx.store.setSkipNext(id: id, skip) } catch { throw UserError(error) }
    guard let alarm = updated else { throw UserError("no alarm with id '\(id)'") }
    // The next occurrence that would ring (pauses and holidays pass over theirs).
    var plain = alarm
    plain.skipNext = false
    guard let first = ctx.nextRing(plain) else {
        print("\(id) never rings again")
        return
    }
    if skip {
        let then = ctx.nextRing(alarm)
        print(
            "\(id): skipping \(ctx.rfc3339(first, for: alarm)); next ring \(then.map { ctx.rfc3339($0, for: alarm) } ?? "never")"
        )
    } else {
        print("\(id): next ring \(ctx.rfc3339(first, for: alarm))")
    }
}

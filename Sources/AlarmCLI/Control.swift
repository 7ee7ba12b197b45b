import Glibc
import AlarmOptions
import AlarmCore
import AlarmSystem
import ArgumentParser
import FoundationEssentials

extension ExitCode {
    /// alarmd is not running (or cannot be reached at all).
    static let notRunning = ExitCode(3)
    /// alarmd runs, but this user may not tell it anything (not in the FIFO's group).
    static let notAllowed = ExitCode(4)
}

/// Writes one line to alarmd's FIFO, then waits up to 2 s for status.json to show the effect.
/// Never blocks on the FIFO: with no daemon it fails at once.
struct ControlRequest {
    let ctx: Context
    let line: String

    func send(confirmed: (_ before: EngineStatus?, _ after: EngineStatus) -> Bool) throws -> EngineStatus? {
        let before = readStatus(ctx)
        let stamp = statusStamp()
        do { try ControlFIFO.send(line: line, to: ctx.config.fifoPath) } catch {
            printError("\(error)")
            if case ControlFIFOError.permissionDenied = error { throw ExitCode.notAllowed }
            throw ExitCode.notRunning
        }
        // alarmd rewrites status.json (atomically: a new inode) after every command it handles.
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            if statusStamp() != stamp, let after = readStatus(ctx), confirmed(before, after) { return after }
            usleep(20_000)
        }
        return nil
    }

    /// Identifies one write of status.json: its inode and modification time.
    private func statusStamp() -> [String]? {
        guard let a = try? FileManager.default.attributesOfItem(atPath: ctx.config.statusPath) else { return nil }
        return ["\(a[.systemFileNumber] ?? "")", "\((a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"]
    }
}

struct Snooze: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Snooze the ringing alarm (default length from the alarm or config).")
    @OptionGroup var options: SettingsOptions
    @Argument(help: "How long: 90s, 5m, 1h30m.") var duration: String?

    func validate() throws {
        if let duration { do { _ = try Durations.parse(duration) } catch { throw ValidationError("\(error)") } }
    }

    func run() throws {
        let ctx = try Context(options, lenient: true)
        let request = ControlRequest(ctx: ctx, line: "snooze" + (duration.map { " " + $0 } ?? ""))
        // alarmd refuses a snooze past the alarm's limit (and logs it); status.json then shows it
        // still ringing (or snoozed) with its snoozes used up.
        let after = try request.send(confirmed: { _, after in after.state == .snoozed || Self.limitReached(after) })
        if let after, let refusal = Self.refusal(after) {
            printError(refusal)
            throw ExitCode(1)
        }
        if let after, let until = after.snoozedUntil {
            print("snoozed until \(ctx.clock(until))")
            return
        }
        if let now = readStatus(ctx), let refusal = Self.refusal(now) {
            printError(refusal)
            throw ExitCode(1)
        }
        printError("nothing was snoozed: \(readStatus(ctx).map { describe($0, ctx) } ?? "no status from alarmd")")
        throw ExitCode(1)
    }
}

extension Snooze {
    static func limitReached(_ s: EngineStatus) -> Bool {
        guard s.state != .idle, let max = s.maxSnoozes else { return false }
        return (s.snoozes ?? 0) >= max
    }

    /// The message for a snooze alarmd refused; nil when it was not refused. A ring just snoozed
    /// for the last time allowed is not a refusal: it shows as snoozed.
    static func refusal(_ s: EngineStatus) -> String? {
        guard s.state == .ringing, limitReached(s), let max = s.maxSnoozes else { return nil }
        let who = s.label.map { "'\($0)'" } ?? s.alarm.map { "'\($0)'" } ?? "the alarm"
        let n = s.snoozes ?? 0
        return "snooze refused: \(who) has been snoozed \(n == 1 ? "once" : "\(n) times"), its limit (max-snoozes \(max)); the alarm keeps ringing"
    }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop the ringing (or snoozed) alarm.")
    @OptionGroup var options: SettingsOptions

    func run() throws {
        let ctx = try Context(options, lenient: true)
        if let before = readStatus(ctx), before.state == .idle {
            // Still tell the daemon (its status may lag a ring that just began), then report.
            _ = try ControlRequest(ctx: ctx, line: "stop").send { _, after in after.state == .idle }
            printError("nothing to stop: \(describe(readStatus(ctx) ?? before, ctx))")
            throw ExitCode(1)
        }
        if try ControlRequest(ctx: ctx, line: "stop").send(confirmed: { _, after in after.state == .idle }) != nil {
            print("stopped")
            return
        }
        printError("alarmd did not confirm the stop: \(readStatus(ctx).map { describe($0, ctx) } ?? "no status")")
        throw ExitCode(1)
    }
}

struct Ring: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ring now (to test the speaker or wake someone).")
    @OptionGroup var options: SettingsOptions
    @Option(help: "The sound file name (default: the built-in tone).") var sound: String?

    func validate() throws {
        if let sound, sound.contains("\n") || sound.isEmpty { throw ValidationError("--sound must be a file name") }
    }

    func run() throws {
        let ctx = try Context(options, lenient: true)
        let request = ControlRequest(ctx: ctx, line: "ring" + (sound.map { " " + $0 } ?? ""))
        if let after = try request.send(confirmed: { _, after in after.state == .ringing }) {
            print(describe(after, ctx))
            return
        }
        printError("alarmd did not confirm ringing: \(readStatus(ctx).map { describe($0, ctx) } ?? "no status")")
        throw ExitCode(1)
    }
}

import AlarmOptions
import AlarmCore
import AlarmSystem
import ArgumentParser
import FoundationEssentials

/// `alarm status`: what alarmd is doing, from its status.json, and whether it is running.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show whether alarmd runs, and what it is doing.")

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Print status.json, with \"running\" added.")
    var json = false

    func run() throws {
        let ctx = try Context(options, lenient: true)
        let (running, why) = daemonRunning(ctx)
        if json {
            print(try statusJSON(ctx, running: running))
        } else if !running {
            print(why ?? "alarmd is not running")
        } else if let status = readStatus(ctx) {
            print(describe(status, ctx))
            // The alarms `alarm pause` holds: their occurrences are recorded, never rung.
            if !status.paused.isEmpty {
                print("paused: " + status.paused.map { p in
                    "\(p.id) (" + (p.until.map { "until " + ctx.clock($0) } ?? "until alarm resume") + ")"
                }.joined(separator: ", "))
            }
            // What alarmd's pre-flight found wrong before the next ring (alarm check says more).
            for warning in status.warnings { print("warning: \(warning)") }
        } else {
            print("alarmd is running (no status yet)")
        }
        if !running { throw ExitCode.notRunning }
    }
}

/// Whether alarmd runs, as any user can tell: through the FIFO for its group, through the lock
/// it holds while it lives for everyone else. `why` says why not.
func daemonRunning(_ ctx: Context) -> (running: Bool, why: String?) {
    do { try ControlFIFO.probe(ctx.config.fifoPath) } catch ControlFIFOError.permissionDenied {
        // Not in the FIFO's group: this user may not command alarmd, but may still see it.
        // The FIFO stays after a crash, so whether alarmd runs is its lock, held while it lives.
        if FileLock.isHeld(ctx.config.daemonLockPath) == false {
            return (false, "alarmd is not running (nobody holds \(ctx.config.daemonLockPath))")
        }
    } catch {
        return (false, "\(error)")
    }
    return (true, nil)
}

/// What `alarm status --json` prints: status.json as alarmd wrote it, with `running` added.
func statusJSON(_ ctx: Context, running: Bool) throws -> String {
    let raw = try? Data(contentsOf: URL(fileURLWithPath: ctx.config.statusPath))
    var object: [String: JSONValue] = [:]
    if let raw, case .object(let o)? = try? JSONDecoder().decode(JSONValue.self, from: raw) { object = o }
    object["running"] = .bool(running)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(object), as: UTF8.self)
}

func readStatus(_ ctx: Context) -> EngineStatus? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: ctx.config.statusPath)) else { return nil }
    return try? JSONDecoder().decode(EngineStatus.self, from: data)
}

func describe(_ status: EngineStatus, _ ctx: Context) -> String {
    let sound = status.sound.map { $0 == "default" ? "the default tone" : $0 } ?? "the default tone"
    switch status.state {
    case .ringing:
        var line = "ringing: \(status.alarm ?? "ring") with \(sound)"
        if let reason = status.reason { line += " (\(reason))" }
        return line
    case .snoozed:
        return "snoozed until \(status.snoozedUntil.map { ctx.clock($0) } ?? "?") (\(status.alarm ?? "ring"))"
    case .idle:
        guard let next = status.next else { return "idle: no alarm scheduled" }
        return "idle: next \(next.id) at \(ctx.short(next.at)) (in \(Durations.spoken(next.at.timeIntervalSince(ctx.now))))"
    }
}

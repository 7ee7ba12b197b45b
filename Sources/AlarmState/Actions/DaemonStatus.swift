import AlarmCore
import AlarmSystem
import FoundationEssentials

/// Whether alarmd runs, as any user can tell: through the FIFO for its group, through the lock
/// it holds while it lives for everyone else. `why` says why not.
package func daemonRunning(_ ctx: AlarmContext) -> (running: Bool, why: String?) { daemonRunning(ctx.config) }

/// `daemonRunning` for a caller without a context (alarm-web's status: no zone needed).
package func daemonRunning(_ config: Configuration) -> (running: Bool, why: String?) {
    do { try ControlFIFO.probe(config.fifoPath) } catch ControlFIFOError.permissionDenied {
        // Not in the FIFO's group: this user may not command alarmd, but may still see it.
        // The FIFO stays after a crash, so whether alarmd runs is its lock, held while it lives.
        if FileLock.isHeld(config.daemonLockPath) == false {
            return (false, "alarmd is not running (nobody holds \(config.daemonLockPath))")
        }
    } catch {
        return (false, "\(error)")
    }
    return (true, nil)
}

/// What `alarm status --json` prints: status.json as alarmd wrote it, with `running` added.
package func statusJSON(_ ctx: AlarmContext, running: Bool) throws -> String {
    try statusJSON(ctx.config, running: running)
}

package func statusJSON(_ config: Configuration, running: Bool) throws -> String {
    try statusJSON(raw: try? Data(contentsOf: URL(fileURLWithPath: config.statusPath)), running: running)
}

/// `statusJSON` of status.json's bytes as read.
package func statusJSON(raw: Data?, running: Bool) throws -> String {
    var object: [String: JSONValue] = [:]
    if let raw, case .object(let o)? = try? JSONDecoder().decode(JSONValue.self, from: raw) { object = o }
    object["running"] = .bool(running)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(object), as: UTF8.self)
}

package func readStatus(_ ctx: AlarmContext) -> EngineStatus? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: ctx.config.statusPath)) else { return nil }
    return try? JSONDecoder().decode(EngineStatus.self, from: data)
}

package func describe(_ status: EngineStatus, _ ctx: AlarmContext) -> String {
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
        return
            "idle: next \(next.id) at \(ctx.short(next.at)) (in \(Durations.spoken(next.at.timeIntervalSince(ctx.now))))"
    }
}

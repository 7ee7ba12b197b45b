import AlarmCore
import AlarmSystem
import FoundationEssentials
import Glibc

/// Writes one line to alarmd's FIFO, then waits for status.json to show the effect. Never
/// blocks on the FIFO: with no daemon it fails at once.
///
/// Slow is not failed: alarmd on a loaded machine (a Pi Zero during an upgrade, a flood of
/// lines on its FIFO) may take seconds to get to the line. So the wait is `patience` (10 s) for
/// alarmd to answer at all (status.json's `commands` count moves), then `settle` (2 s) after
/// that answer for the effect (a refusal, such as a snooze with nothing ringing, is known then);
/// after `noticeAfter` the CLI says that it is still waiting.
package struct ControlRequest {
    package let ctx: AlarmContext
    package let line: String

    package static let patience: TimeInterval = 10
    package static let settle: TimeInterval = 2
    package static let noticeAfter: TimeInterval = 2
    /// Where "still waiting" goes: the CLI's stderr (set by `ControlOutcome.report`); nil for
    /// alarm-web.
    package nonisolated(unsafe) static var notice: ((String) -> Void)?

    /// Sends the line; the status that confirmed it, or nil when none did. A FIFO that cannot be
    /// written (no daemon, not in the group) throws its `ControlFIFOError`.
    package func deliver(confirmed: (_ before: EngineStatus?, _ after: EngineStatus) -> Bool) throws -> EngineStatus? {
        let before = readStatus(ctx)
        let stamp = statusStamp()
        try ControlFIFO.send(line: line, to: ctx.config.fifoPath)
        // alarmd rewrites status.json (atomically: a new inode) after every command it handles.
        let start = Date()
        var deadline = start.addingTimeInterval(Self.patience)
        var answered = false
        var noticed = false
        while Date() < deadline {
            if statusStamp() != stamp {
                let after = readStatus(ctx)
                if let after, confirmed(before, after) { return after }
                // alarmd also rewrites status.json on its own (a ring's sound starting, its
                // pre-flight checks): only a moved command count says a line was handled. A
                // status without the count (an older alarmd) answers by being rewritten.
                if !answered, after?.commands == nil || after?.commands != before?.commands {
                    answered = true
                    deadline = min(deadline, Date().addingTimeInterval(Self.settle))
                }
            }
            if !noticed, !answered, Date().timeIntervalSince(start) >= Self.noticeAfter {
                noticed = true
                Self.notice?(
                    "waiting for alarmd to confirm '\(line)' (it is slow to answer; up to \(Int(Self.patience)) s)")
            }
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

/// What `alarm snooze`, `stop` and `ring` came to, for the CLI and for alarm-web: done or not,
/// the line the CLI prints (on stdout when done, on stderr when not), and alarmd's status after.
package struct ControlOutcome {
    package var done: Bool
    package var message: String
    package var status: EngineStatus?

    /// `alarm snooze [DURATION]`.
    package static func snooze(_ ctx: AlarmContext, duration: String?) throws -> ControlOutcome {
        let request = ControlRequest(ctx: ctx, line: "snooze" + (duration.map { " " + $0 } ?? ""))
        // alarmd refuses a snooze past the alarm's limit (and logs it); status.json then shows it
        // still ringing with its snoozes used up.
        let after = try request.deliver(confirmed: { _, after in
            after.state == .snoozed || SnoozeRefusal.limitReached(after)
        })
        if let after, let refusal = SnoozeRefusal.refusal(after) {
            return ControlOutcome(done: false, message: refusal, status: after)
        }
        if let after, let until = after.snoozedUntil {
            return ControlOutcome(done: true, message: "snoozed until \(ctx.clock(until))", status: after)
        }
        let now = readStatus(ctx)
        if let now, let refusal = SnoozeRefusal.refusal(now) {
            return ControlOutcome(done: false, message: refusal, status: now)
        }
        return ControlOutcome(
            done: false, message: "nothing was snoozed: \(now.map { describe($0, ctx) } ?? "no status from alarmd")",
            status: now)
    }

    /// `alarm stop`.
    package static func stop(_ ctx: AlarmContext) throws -> ControlOutcome {
        if let before = readStatus(ctx), before.state == .idle {
            // Still tell the daemon (its status may lag a ring that just began), then report.
            _ = try ControlRequest(ctx: ctx, line: "stop").deliver { _, after in after.state == .idle }
            let now = readStatus(ctx) ?? before
            return ControlOutcome(done: false, message: "nothing to stop: \(describe(now, ctx))", status: now)
        }
        let request = ControlRequest(ctx: ctx, line: "stop")
        if let after = try request.deliver(confirmed: { _, after in after.state == .idle }) {
            return ControlOutcome(done: true, message: "stopped", status: after)
        }
        let now = readStatus(ctx)
        return ControlOutcome(
            done: false, message: "alarmd did not confirm the stop: \(now.map { describe($0, ctx) } ?? "no status")",
            status: now)
    }

    /// `alarm ring [--sound NAME]`.
    package static func ring(_ ctx: AlarmContext, sound: String?) throws -> ControlOutcome {
        let request = ControlRequest(ctx: ctx, line: "ring" + (sound.map { " " + $0 } ?? ""))
        if let after = try request.deliver(confirmed: { _, after in after.state == .ringing }) {
            return ControlOutcome(done: true, message: describe(after, ctx), status: after)
        }
        let now = readStatus(ctx)
        return ControlOutcome(
            done: false, message: "alarmd did not confirm ringing: \(now.map { describe($0, ctx) } ?? "no status")",
            status: now)
    }
}

/// Whether alarmd refused a snooze (the alarm's snooze limit), from its status.
package enum SnoozeRefusal {
    package static func limitReached(_ s: EngineStatus) -> Bool {
        s.state != .idle && refusal(who: "", s) != nil
    }

    /// The message for a snooze alarmd refused (alarmd's own text); nil when it was not refused.
    /// A ring just snoozed for the last time allowed is not a refusal: it shows as snoozed.
    package static func refusal(_ s: EngineStatus) -> String? {
        guard s.state == .ringing else { return nil }
        return refusal(who: s.label.map { "'\($0)'" } ?? s.alarm.map { "'\($0)'" } ?? "the alarm", s)
    }

    private static func refusal(who: String, _ s: EngineStatus) -> String? {
        SnoozeLimit.refusal(who: who, snoozes: s.snoozes ?? 0, max: s.maxSnoozes)
    }
}

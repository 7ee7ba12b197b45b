import AlarmCore
import AlarmState
import AlarmOptions
import AlarmSystem
import ArgumentParser
import FoundationEssentials
import Glibc

/// `alarm watch [--json]`: follows what alarmd does, one line (or JSON object) per event, until
/// interrupted, as `journalctl -f` follows the journal (issue #13). It reads alarmd's event log
/// (`<runtime-dir>/events.jsonl`) and waits for it to grow with inotify: no polling, and an event
/// written while it starts is not lost (see `EventFollower`).
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow what alarmd does, one line per event, until interrupted.",
        discussion: """
            Events: ringing, snoozed, stopped, silenced, ignored, missed, failed, skipped, paused, \
            preflight-warning, zone-changed, clock-changed, alarms-changed, pre-alarm (and any alarmd adds \
            later). \
            --json prints each as alarmd wrote it: one JSON object per line with seq, event, at, alarm, \
            label, scheduled, sound (null where they do not apply), and late, reason, until, zone, from, \
            count, lead (a pre-alarm's lead in seconds) where they say something. Members of the group alarm may watch.
            """)

    @OptionGroup var options: SettingsOptions

    @Flag(help: "One JSON object per line, as alarmd writes them to <runtime-dir>/events.jsonl.")
    var json = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Show the last N events first.", valueName: "n"))
    var lines = 0

    @Option(
        help: ArgumentHelp(
            "Start after the event with this seq (those still kept), e.g. where a script stopped.", valueName: "seq"))
    var after: Int?

    func validate() throws {
        if lines < 0 { throw ValidationError("--lines must be 0 or more") }
        if after != nil && lines != 0 { throw ValidationError("--after and --lines cannot be used together") }
    }

    func run() throws {
        let ctx = try AlarmContext(options, lenient: true)
        let path = ctx.config.eventsPath
        // A reader that left (`alarm watch | head -3`) ends this with EPIPE, not a signal.
        try SignalFD.ignore(.pipe)
        let follower: EventFollower
        do {
            follower = try EventFollower(
                path: path, from: after.map { .after(seq: $0) } ?? (lines > 0 ? .last(lines) : .end))
        } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
            let group = Accounts.groupName(ofFile: path)
            printError(
                group.map {
                    "permission denied: you are not in group '\($0)', whose members may read \(path) (alarm watch); ask an "
                        + "administrator for `sudo usermod -aG \($0) \(Accounts.currentUserName())` (then log in again), or use sudo"
                } ?? "permission denied: not allowed to read \(path); join the group that owns it, or use sudo")
            throw ExitCode.notAllowed
        } catch {
            throw UserError("cannot follow \(path): \(error)")
        }
        if !daemonRunning(ctx).running { printError("alarmd is not running; waiting for its events") }
        let loop = try EventLoop()
        let show = json
        func emit(_ batch: [EventLine]) throws {
            for line in batch {
                // A line that is not an event (torn by a crash mid-write) is left out.
                guard let event = line.event else { continue }
                if !StandardOutput.write(show ? line.text : event.text) { throw ExitCode.success }
            }
        }
        try emit(try follower.read())
        // The loop would report an error and go on; here it ends the watch (the reader left,
        // or the log cannot be read), as before the loop starts.
        var ended: (any Error)?
        try loop.register(follower.descriptor, name: path) { _ in
            do { try emit(try follower.read()) } catch {
                ended = error
                loop.stop()
            }
        }
        try loop.run()
        if let ended { throw ended }
    }
}

import AlarmCore
import AlarmState
import AlarmSystem
import FoundationEssentials
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `alarm-hooks` (issue #13): follows alarmd's event log and runs every hook (`HookDirectory`)
/// for each event, with the event's JSON line on stdin and `ALARM_EVENT`, `ALARM_ID`,
/// `ALARM_LABEL`, `ALARM_SCHEDULED` (and more) in the environment.
///
/// It is a process of its own, run by `alarm-hooks.service`, never by alarmd: alarmd's sandbox
/// keeps no network, and no hook can delay a ring.
///
/// What it promises:
/// - Each hook sees the events in order, one at a time: an event waits for the same hook's run
///   for the event before. Hooks do not wait for each other: a slow one holds up only itself.
/// - Each run is bounded by `hook_timeout` (default 10 s): then the hook and whatever it started
///   (its process group) are killed with SIGKILL. A hook that exits non-zero, is killed, or
///   cannot be started is logged with the event it was for; the next event runs it again.
/// - At most `maxQueued` events wait per hook; beyond that the oldest is dropped and logged.
/// - Events written before it started are not run (it starts at the end of the log); one
///   written while it starts is.
/// - One thread, sleeping in `epoll_wait`: the log through inotify, the hooks' ends through
///   pidfds, the time limits through one monotonic timerfd. No polling.
final class HooksRunner {
    struct Settings: Sendable {
        var eventsPath: String
        var hooksDir: String
        var timeout: TimeInterval
        /// alarmd's runtime directory, given to hooks as `ALARM_RUNTIME_DIR`.
        var runtimeDir: String
        /// The hooks' environment, before the event's variables are added.
        var environment: [String: String]
        var maxQueued = 100
    }

    struct Job {
        var line: EventLine
        var event: AlarmEvent
        var name: String {
            "\(event.event)\(event.alarm.map { " of '\($0)'" } ?? "") (seq \(line.seq.map(String.init) ?? "?"))"
        }
    }

    struct Run {
        var child: ChildProcess
        var token: EventLoop.Token?
        var job: Job
        var deadline: ContinuousClock.Instant
        var killed = false
    }

    let settings: Settings
    let logger: Logger
    let directory: HookDirectory
    /// The event loop with its signals and sd_notify (AlarmSystem's `ServiceLoop`).
    let service: ServiceLoop
    var loop: EventLoop { service.loop }
    let follower: EventFollower
    let timer: TimerFD
    let clock = ContinuousClock()
    /// Per hook (by path): the events waiting, and the run under way.
    var queues: [String: [Job]] = [:]
    var running: [String: Run] = [:]
    /// Files already reported as not executable.
    var reported = Set<String>()

    /// Call `SignalFD.block([.terminate, .interrupt])` before this. Throws when the event log
    /// cannot be followed (its directory's parent is missing, it may not be read).
    init(settings: Settings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        directory = HookDirectory(path: settings.hooksDir)
        service = try ServiceLoop(
            signals: [.terminate, .interrupt], environment: settings.environment,
            reportFailure: { failure in logger.error("\(failure)") })
        timer = try TimerFD(clock: .monotonic)
        follower = try EventFollower(path: settings.eventsPath, from: .end)
    }

    /// Runs until SIGTERM or SIGINT.
    func run() throws {
        try loop.register(follower.descriptor, name: settings.eventsPath) { [unowned self] _ in
            dispatch(try follower.read())
        }
        try loop.register(timer.descriptor, name: "the hooks' time-limit timer") { [unowned self] _ in
            _ = try timer.read()
            enforceTimeouts()
        }
        let (hooks, _) = directory.hooks()
        let start =
            "alarm-hooks starting: \(hooks.count) hook(s) in \(settings.hooksDir), time limit "
            + "\(Durations.format(settings.timeout)), following \(settings.eventsPath)"
        logger.notice("\(start)")
        dispatch(try follower.read())
        defer { logger.notice("alarm-hooks stopped") }
        try service.run(ready: "running \(hooks.count) hook(s) from \(settings.hooksDir)") { [unowned self] received in
            logger.notice("\(received.signal) received: stopping")
            for run in running.values { try? run.child.signal(SIGTERM) }
            return true
        }
    }

    /// Queues each event for every hook there is now, and starts the hooks that are idle.
    func dispatch(_ lines: [EventLine]) {
        guard !lines.isEmpty else { return }
        let (hooks, skipped) = directory.hooks()
        for path in skipped where reported.insert(path).inserted {
            logger.warning("\(path) is not an executable file: not run as a hook (chmod +x it to run it)")
        }
        for line in lines {
            guard let event = line.event else {
                logger.warning("a line of \(settings.eventsPath) is not an event: skipped")
                continue
            }
            for hook in hooks {
                var queue = queues[hook, default: []]
                if queue.count >= settings.maxQueued {
                    let dropped = queue.removeFirst()
                    logger.warning("hook \(hook) is \(queue.count) events behind: \(dropped.name) dropped for it")
                }
                queue.append(Job(line: line, event: event))
                queues[hook] = queue
            }
        }
        for hook in hooks { startNext(hook) }
    }

    /// Starts the hook's next event, unless it runs one already.
    func startNext(_ hook: String) {
        while running[hook] == nil, var queue = queues[hook], !queue.isEmpty {
            let job = queue.removeFirst()
            queues[hook] = queue.isEmpty ? nil : queue
            let env = HookDirectory.environment(
                for: job.event, seq: job.line.seq, base: settings.environment, runtimeDir: settings.runtimeDir)
            do {
                let child = try ChildProcess(
                    executable: hook, environment: env, standardInput: job.line.bytes + [UInt8(ascii: "\n")],
                    ownProcessGroup: true)
                var run = Run(
                    child: child, token: nil, job: job,
                    deadline: clock.now + .milliseconds(Int64(settings.timeout * 1000)))
                if child.descriptor >= 0 {
                    run.token = try? loop.register(child.descriptor) { [unowned self] _ in ended(hook) }
                }
                running[hook] = run
                logger.debug("hook \(hook) started for \(job.name) (pid \(child.pid))")
            } catch {
                logger.error("hook \(hook) could not be started for \(job.name): \(error)")
            }
        }
        armTimer()
    }

    /// The hook's pidfd became readable (or its time is up, without pidfds): reap and log.
    func ended(_ hook: String) {
        guard let run = running[hook] else { return }
        let status: ExitStatus?
        do { status = try run.child.reap() } catch {
            logger.error("waiting for hook \(hook) (pid \(run.child.pid)) failed: \(error)")
            status = .signaled(0)
        }
        guard let status else { return }
        if let token = run.token { try? loop.unregister(token) }
        running[hook] = nil
        if run.killed {
            logger.warning(
                "hook \(hook) for \(run.job.name) was killed after \(Durations.format(settings.timeout)) (hook_timeout)"
            )
        } else if status != .exited(0) {
            logger.warning("hook \(hook) for \(run.job.name) \(status)")
        } else {
            logger.info("hook \(hook) for \(run.job.name) done")
        }
        startNext(hook)
    }

    /// Kills the hooks whose time is up (with their process groups).
    func enforceTimeouts() {
        let now = clock.now
        for (hook, var run) in running {
            if run.token == nil, (try? run.child.reap()) ?? nil != nil {
                ended(hook)
                continue
            }
            guard !run.killed, run.deadline <= now else { continue }
            do { try run.child.signal(SIGKILL) } catch {
                logger.error("killing hook \(hook) (pid \(run.child.pid)) failed: \(error)")
            }
            run.killed = true
            running[hook] = run
            if run.token == nil { ended(hook) }
        }
        armTimer()
    }

    /// The timer for the next time limit (or, without pidfds, the next look at a run).
    func armTimer() {
        let next = running.values.filter { !$0.killed || $0.token == nil }.map(\.deadline).min()
        do {
            if let next { try timer.arm(after: max(next - clock.now, .milliseconds(1))) } else { try timer.disarm() }
        } catch {
            logger.error("arming the time-limit timer failed: \(error)")
        }
    }
}

import AlarmState
import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The event loop: it turns what happens (timer, clock set, zone file replaced, store changed,
/// FIFO lines, signals, the player's first frame) into engine events, and carries out the
/// actions the engine returns. All decisions are the engine's; this file only wires.
///
/// One thread runs the loop and sleeps in `epoll_wait` while nothing is due; the player runs
/// on its own thread only while ringing and reports back through an `EventFD`.
public final class Daemon {
    public internal(set) var config: Configuration
    var logger: Logger
    var engine: Engine
    var zone: Zone

    let store: AlarmStore
    /// Reloads decode only the alarms whose JSON changed (issue #9).
    let reloadCache = ReloadCache()
    let stateFile: StateFile
    let history: HistoryLog
    var sounds: SoundLibrary
    var player: AlarmPlayer
    /// Raises the card's mixer for a ring and puts it back (issue #11).
    let volumeFloor: VolumeFloor
    /// Resolves the settings again (same flags and environment) for SIGHUP / `reload`.
    let resolveConfiguration: () throws -> Configuration
    let environment: [String: String]
    /// The event loop with its signals and sd_notify (AlarmSystem's `ServiceLoop`).
    let service: ServiceLoop
    var loop: EventLoop { service.loop }
    var notify: SDNotify { service.notify }
    let timer: TimerFD
    let files: Inotify
    let fifo: ControlFIFO
    let wake: EventFD
    let instanceLock: FileLock
    let inbox = Inbox()
    var ringGeneration = 0
    /// A player for a device changed by reload, swapped in at the next ring.
    var pendingPlayer: AlarmPlayer?
    var lastStatus: EngineStatus?
    /// Control lines handled since start (status.json `commands`).
    var commandsHandled = 0
    /// The files watched with inotify and what each is for (WatchedFiles.swift).
    var watched = WatchedFiles()
    /// The next ring, prepared a little before its instant (see `Preroll`).
    var preroll: Preroll?
    let prerollTimer: TimerFD
    /// The pre-flight checks before each ring (Daemon+Preflight.swift).
    let preflightTimer: TimerFD
    var preflight = PreflightState()
    /// fallback_command processes still running, by pid (Daemon+Fallback.swift).
    var fallbackChildren: [Int32: FallbackChild] = [:]
    /// What alarmd did, for `alarm watch` and hooks (Daemon+Events.swift).
    let eventLog: EventLog
    var eventTracker = EventTracker()
    /// The sound the last `startRinging` started (`default`: the default tone), for its event.
    var startedSound: String?
    /// Why the zone changes, for the `zone-changed` event of the next `.zoneChanged`.
    var zoneChangeReason: String?

    /// Sets everything up; throws with a message a user can act on (a directory that cannot be
    /// created, a FIFO path taken by something else, another alarmd running).
    /// Call `SignalFD.block` before this, before any thread exists.
    public init(
        config: Configuration, logger: Logger, environment: [String: String] = ProcessInfo.processInfo.environment,
        resolveConfiguration: (() throws -> Configuration)? = nil
    ) throws {
        self.config = config
        self.environment = environment
        self.resolveConfiguration = resolveConfiguration ?? { config }
        self.logger = logger
        try Directories.create(config.stateDir, mode: 0o770)
        try Directories.create(config.runtimeDir, mode: 0o750)
        do {
            instanceLock = try FileLock(path: config.daemonLockPath, timeout: 0)
        } catch is LockTimeout {
            throw DaemonError("another alarmd is already running with runtime directory \(config.runtimeDir)")
        }
        zone = SystemZone.current(config, environment: environment)
        engine = Engine(
            settings: Self.settings(config), holidays: Self.initialHolidays(config.holidays, logger: logger))
        store = AlarmStore(stateDir: config.stateDir)
        stateFile = StateFile(stateDir: config.stateDir)
        history = HistoryLog(stateDir: config.stateDir)
        sounds = config.soundLibrary
        let log = logger
        player = AlarmPlayer(device: config.device, log: { line in log.warning("\(line)") }, environment: environment)
        volumeFloor = VolumeFloor(
            stateDir: config.stateDir, floor: config.mixerFloor, control: config.mixerControl, logger: logger)
        eventLog = EventLog(path: config.eventsPath)

        // A handler's error is logged with what it was handling, and the loop goes on.
        service = try ServiceLoop(
            signals: [.terminate, .interrupt, .hangup], environment: environment,
            reportFailure: { failure in logger.error("\(failure)") })
        timer = try TimerFD()
        prerollTimer = try TimerFD()
        preflightTimer = try TimerFD()
        files = try Inotify()
        wake = try EventFD()
        let gid = try config.fifoGroup.map { name -> UInt32 in
            guard let gid = try Accounts.groupID(named: name) else {
                throw DaemonError("fifo_group '\(name)' is not a group on this system")
            }
            return gid
        }
        fifo = try ControlFIFO(path: config.fifoPath, mode: 0o620, group: gid)
        try watch(config.localtimePath, as: .zoneFile)
        try watch(store.path, as: .store)
        watchZoneData()
        watchHolidays()
    }

    /// Runs until SIGTERM or SIGINT. Returns after the sound is stopped and the state saved.
    /// Throws only when the event loop cannot go on (`epoll_wait` failed, a handler keeps
    /// failing): it shuts down as for SIGTERM first, so the next start resumes.
    public func run() throws {
        try register()
        let alarms = loadAlarms() ?? []
        watchPinnedZones(alarms)
        var saved: EngineState? = nil
        do { saved = try stateFile.load() } catch {
            logger.error("\(error); starting without the saved ring state")
            if let aside = try? stateFile.setAside() { logger.notice("the unreadable state was moved to \(aside)") }
        }
        logger.notice("alarmd starting: \(alarms.count) alarm(s), zone \(zone.identifier), device \(config.device)")
        volumeFloor.restoreAfterCrash()
        handle(.start(alarms: alarms, state: saved))
        do { try service.run(ready: notifyStatus(), onSignal: { [unowned self] in signalled($0) }) } catch {
            logger.critical("the event loop cannot go on: \(error); shutting down")
            handle(.shutdown)
            cleanUp()
            throw error
        }
        cleanUp()
    }

    /// What every way out of `run()` does (after `ServiceLoop.run` told systemd STOPPING): sound
    /// off, mixer back, FIFO gone.
    private func cleanUp() {
        cancelPreroll()
        player.stop()
        volumeFloor.restore()
        try? fifo.remove()
        logger.notice("alarmd stopped")
    }

    // MARK: sources

    private func register() throws {
        _ = try loop.register(timer.descriptor, name: "the alarm timer") { [unowned self] _ in
            switch try timer.read() {
            case .expired?: handle(.timerFired)
            case .clockChanged?:
                logger.notice("the system clock was set; recomputing")
                handle(.clockChanged)
            case nil: break
            }
        }
        _ = try loop.register(prerollTimer.descriptor, name: "the pre-roll timer") { [unowned self] _ in
            _ = try prerollTimer.read()
            planPreroll()
        }
        _ = try loop.register(files.descriptor, name: "inotify (watched files)") { [unowned self] _ in
            try watchedFilesChanged()
        }
        _ = try loop.register(fifo.descriptor, name: "the control FIFO \(fifo.path)") { [unowned self] _ in
            for command in try fifo.readCommands() { control(command) }
        }
        _ = try loop.register(wake.descriptor, name: "the player's wake-up") { [unowned self] _ in
            try wake.drain()
            for posted in inbox.take() {
                if case .streamProbed(let url, let outcome) = posted.item {
                    streamProbed(url, outcome)
                    continue
                }
                guard posted.generation == ringGeneration else { continue }
                switch posted.item {
                case .event(let kind):
                    handle(kind, now: posted.at)
                    if case .playbackFailed(let reason) = kind { runFallbackCommand(reason: reason) }
                case .firstFrame(let device, let card):
                    if let note = volumeFloor.raise(pcm: device, card: card) { handle(.mixerRaised(note)) }
                case .streamFallback(let sound, let reason): streamFellBack(sound: sound, reason: reason)
                case .streamProbed: break
                }
            }
        }
        _ = try loop.register(preflightTimer.descriptor, name: "the pre-flight timer") { [unowned self] _ in
            switch try preflightTimer.read() {
            case .expired?: runPreflight()
            case .clockChanged?:
                preflight.armedAt = nil
                schedulePreflight()
            case nil: break
            }
        }
    }

    /// SIGHUP reloads; SIGTERM and SIGINT shut down (returns true: the loop stops).
    private func signalled(_ received: SignalFD.Received) -> Bool {
        if received.signal == .hangup {
            reloadAll(reason: "SIGHUP")
            return false
        }
        logger.notice("\(received.signal) received: stopping")
        handle(.shutdown)
        return true
    }

    private func control(_ command: ControlCommand) {
        if case .invalid(let reason) = command {
            logger.warning("ignored control line: \(reason)")
            return
        }
        // A snooze whose length does not parse is garbage too (the CLI checks lengths first).
        var length: TimeInterval? = nil
        if case .snooze(let text?) = command {
            do { length = try Durations.parse(text) } catch {
                logger.warning("ignored control line 'snooze \(text)': \(error)")
                return
            }
        }
        // Rewrite status.json after every command, changed or not, with the count of commands
        // handled: the CLI waits for the count to move to know its line was handled (a second
        // `ring` leaves the rest of the status as it was).
        commandsHandled += 1
        defer {
            do { try publish(engine.status(now: Date(), zone: zone)) } catch {
                logger.error("writing status.json failed: \(error)")
            }
        }
        switch command {
        case .snooze: handle(.snooze(length))
        case .stop: handle(.stop)
        case .ring(let sound): handle(.ringNow(sound: sound))
        case .reload: reloadAll(reason: "reload command")
        case .skip: skipNext()
        case .invalid: break
        }
    }

    // MARK: the engine

    func handle(_ kind: EngineEvent.Kind, now: Date = Date()) {
        let before = engine.state.ring
        let alarmsBefore = engine.alarms
        let zoneBefore = engine.zone
        startedSound = nil
        let actions = engine.handle(kind, now: now, zone: zone)
        perform(actions)
        // After the actions: the sound has started, status.json is written.
        recordEvents(
            kind, actions: actions, before: before, alarmsBefore: alarmsBefore, zoneBefore: zoneBefore, now: now)
        planPreroll()
        schedulePreflight()
    }

    private func perform(_ actions: [EngineAction]) {
        // The state is saved with a journal of the history and store changes that follow it;
        // once they are carried out it is saved again without, so only a crash in between
        // leaves a journal for the next start to replay (see EngineState.journal).
        var journaled: EngineState? = nil
        defer {
            if var state = journaled {
                state.journal = nil
                do { try stateFile.save(state) } catch { logger.error("saving the ring state failed: \(error)") }
            }
        }
        for action in actions {
            do {
                switch action {
                case .armTimer(let at):
                    if try timer.armClearingClockChange(at: at) {
                        // The clock was set after the timer was last read and before this arm;
                        // the kernel reports it here, not to the next read. Handle it as a read
                        // would have: recompute, which arms the timer again.
                        logger.notice("the system clock was set; recomputing")
                        inbox.post(.clockChanged, at: Date(), generation: ringGeneration)
                        wake.signal()
                    }
                case .startRinging(let request): startRinging(request)
                case .stopAudio:
                    ringGeneration += 1
                    player.stop()
                    volumeFloor.restore()
                case .persistState(let state):
                    try stateFile.save(state)
                    if state.journal != nil { journaled = state }
                case .clearSkipNext, .removeAlarm, .clearPause: _ = try store.apply(action)
                case .recordHistory(let entry): try history.append(entry)
                case .preAlarm: break  // written to events.jsonl with the other events (EventTracker)
                case .publishStatus(let status): try publish(status)
                case .log(let level, let message): logger.log(level: Self.level(level), "\(message)")
                }
            } catch {
                logger.error("\(action.name) failed: \(error)")
            }
        }
    }

    private func startRinging(_ request: RingRequest) {
        if adoptPreroll(request) { return }
        if let next = pendingPlayer {
            player.stop()
            player = next
            pendingPlayer = nil
        }
        ringGeneration += 1
        if let url = streamURL(of: request) {
            startStream(request, url: url)
            return
        }
        // A list or `*`: picked here, once for this ring; what plays is what history records.
        let choice = sounds.choose(request.sound ?? config.sound, random: UInt64.random(in: .min ... .max))
        let reason = choice.problem?.description
        if let reason { logger.warning("\(request.alarm ?? "ring"): \(reason); playing the default tone") }
        let relay = PlaybackRelay(inbox: inbox, wake: wake, sound: choice.name, reason: reason)
        relay.attach(generation: ringGeneration)
        startedSound = choice.name ?? "default"
        logger.notice(
            "ringing \(request.alarm ?? "(ring now)") with \(choice.name ?? "the default tone")\(request.late ? " (late)" : "")"
        )
        player.start(
            choice.clip, loudness: request.loudness, onFirstFrame: { relay.started($0) },
            onFailure: { relay.failed($0) })
    }

    /// Writes status.json: the engine's status with the pre-flight's warnings.
    func publish(_ engineStatus: EngineStatus) throws {
        var status = engineStatus
        status.warnings = preflight.warnings
        status.commands = commandsHandled
        lastStatus = status
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try AtomicFile.write(
            Array(try encoder.encode(status)) + [10], to: config.statusPath, permissions: 0o644, ignoringUmask: true)
        try? notify.status(notifyStatus())
    }

    /// The one line systemd shows: "next: wake at Mon 06:30", "ringing: wake", "snoozed until 07:09".
    func notifyStatus() -> String {
        let status = lastStatus ?? engine.status(now: Date(), zone: zone)
        func clock(_ d: Date, weekday: Bool) -> String {
            let c = Zones.civil(at: d, in: zone)
            return weekday ? "\(c.weekdayName) \(c.hourMinute)" : c.hourMinute
        }
        switch status.state {
        case .ringing: return "ringing: \(status.alarm ?? "ring")"
        case .snoozed: return "snoozed until \(status.snoozedUntil.map { clock($0, weekday: false) } ?? "?")"
        case .idle:
            guard let next = status.next else { return "idle: no alarm scheduled" }
            return "next: \(next.id) at \(clock(next.at, weekday: true))"
        }
    }

    static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .error: return .error
        case .warning: return .warning
        case .notice: return .notice
        case .info: return .info
        case .debug: return .debug
        }
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension RingRequest {
    /// The ramp: from `volumeFrom` to `volume` over `fadeIn`.
    var loudness: Loudness {
        Loudness(volumePercent: Double(volume), fadeIn: fadeIn, fromPercent: Double(volumeFrom))
    }
}

extension EngineAction {
    var name: String {
        switch self {
        case .armTimer: return "arming the timer"
        case .startRinging: return "starting the sound"
        case .stopAudio: return "stopping the sound"
        case .persistState: return "saving the ring state"
        case .clearSkipNext: return "clearing skip-next"
        case .removeAlarm: return "removing a rung or ended alarm"
        case .clearPause: return "clearing an ended pause"
        case .recordHistory: return "writing history"
        case .preAlarm: return "writing a pre-alarm"
        case .publishStatus: return "writing status.json"
        case .log: return "logging"
        }
    }
}

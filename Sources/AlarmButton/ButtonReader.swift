import AlarmCore
import AlarmState
import AlarmSystem
import FoundationEssentials
import Glibc
import Logging

/// `alarm-button` (issue #30): reads one input device (evdev) and tells alarmd, through its FIFO
/// as `alarm snooze` and `alarm stop` do, what the button means (`ButtonPresses`): a short press
/// snoozes the ringing alarm, a press held `button_hold` stops it (a snoozed one too).
///
/// What it promises:
/// - One command per press, timed by the kernel's event stamps (`CLOCK_MONOTONIC`), whatever the
///   contacts bounce. A press while nothing rings does nothing (logged at debug level).
/// - It holds the device for itself (`EVIOCGRAB`): the key reaches neither the console nor
///   systemd-logind, which powers the machine off on `KEY_POWER` (the `gpio-key` overlay's
///   default code). It warns when the device can send `KEY_POWER`.
/// - A device that is absent at start, or unplugged later, is waited for: inotify on
///   `/dev/input` (and a look every `retry` seconds, for a `by-path` link made after the node),
///   with a journal line when it appears and when it goes. It never exits for that.
/// - One thread, sleeping in `epoll_wait`.
final class ButtonReader {
    struct Settings: Sendable {
        var device: String?
        var keys: Set<Int>
        var hold: TimeInterval
        var environment: [String: String]
        var retry: TimeInterval = 5
    }

    let settings: Settings
    let ctx: AlarmContext
    let logger: Logger
    let service: ServiceLoop
    var loop: EventLoop { service.loop }
    /// Fires at `presses.deadline` (monotonic, as the events' stamps).
    let pressTimer: TimerFD
    /// While no device is open: looks for it again every `retry`.
    let retryTimer: TimerFD
    let inotify: Inotify
    var presses: ButtonPresses
    var device: InputDevice?
    var deviceToken: EventLoop.Token?
    /// What was last said about the device being absent, so that it is said once.
    var lastAbsence: String?
    /// The passed-over devices already said (each once).
    var saidPassedOver: Set<String> = []
    /// Since when the device has been there but not readable (EACCES): udev gives a new node its
    /// group a moment after the kernel makes it, so that is said only when it lasts.
    var deniedSince: Double?

    init(settings: Settings, ctx: AlarmContext, logger: Logger) throws {
        self.settings = settings
        self.ctx = ctx
        self.logger = logger
        presses = ButtonPresses(keys: settings.keys, hold: settings.hold)
        service = try ServiceLoop(
            signals: [.terminate, .interrupt], environment: settings.environment,
            reportFailure: { failure in logger.error("\(failure)") })
        pressTimer = try TimerFD(clock: .monotonic)
        retryTimer = try TimerFD(clock: .monotonic)
        inotify = try Inotify()
    }

    /// Runs until SIGTERM or SIGINT.
    func run() throws {
        do {
            _ = try inotify.watch(directory: "/dev/input", for: [.create, .attrib, .delete, .movedTo])
        } catch {
            logger.warning("cannot watch /dev/input (\(error)): looking for the device every \(Int(settings.retry)) s")
        }
        watchLinkDirectory()
        try loop.register(inotify.descriptor, name: "inotify on /dev/input") { [unowned self] _ in
            _ = try inotify.readEvents()
            if device == nil {
                watchLinkDirectory()
                openDevice()
            }
        }
        try loop.register(retryTimer.descriptor, name: "the device retry timer") { [unowned self] _ in
            _ = try retryTimer.read()
            if device == nil { openDevice() }
        }
        try loop.register(pressTimer.descriptor, name: "the button's hold timer") { [unowned self] _ in
            _ = try pressTimer.read()
            if let action = presses.tick(MonotonicClock.now) { perform(action) }
            armPressTimer()
        }
        let keys = settings.keys.isEmpty ? "any key" : settings.keys.sorted().map(KeyCodes.name).joined(separator: ", ")
        let start =
            "alarm-button starting: \(settings.device ?? "the gpio-keys device (not a power button)"), \(keys); a press snoozes, "
            + "held \(Durations.format(settings.hold)) it stops"
        logger.notice("\(start)")
        openDevice()
        defer { logger.notice("alarm-button stopped") }
        try service.run(ready: device.map { "reading \($0.path)" } ?? "waiting for the button") {
            [unowned self] received in
            logger.notice("\(received.signal) received: stopping")
            return true
        }
    }

    /// Opens and grabs the device when it is there; otherwise says so (once) and waits.
    func openDevice() {
        let choice = InputDevices.choose(settings.device, keys: settings.keys, among: InputDevices.list())
        for p in choice.passedOver where !saidPassedOver.contains(p.path) {
            logger.notice("passed over \(p.text)")
            saidPassedOver.insert(p.path)
        }
        guard let path = choice.path else {
            absent(absenceMessage)
            return
        }
        // A path named in button_device that is not there (unplugged): the same words as a name
        // not found, so that an unplug is said once ("is gone"), not twice.
        if settings.device?.hasPrefix("/") == true, access(path, F_OK) != 0 {
            watchLinkDirectory()
            absent(absenceMessage)
            return
        }
        let opened: InputDevice
        do {
            opened = try InputDevice(path: path)
            try opened.grab()
        } catch let error as SystemError where error.errno == EACCES {
            let now = MonotonicClock.now
            let since = deniedSince ?? now
            deniedSince = since
            if now - since < Self.udevGrace {
                logger.debug(
                    "\(path) is not readable yet (\(error)): udev may not have given it its group; trying again")
                try? retryTimer.arm(after: .milliseconds(250))
                return
            }
            absent("\(path) cannot be used: \(error) (is alarm-button in the group input?)")
            return
        } catch {
            absent("\(path) cannot be used: \(error)")
            return
        }
        deniedSince = nil
        do {
            deviceToken = try loop.register(opened.descriptor, name: path) { [unowned self] _ in readDevice() }
        } catch {
            absent("\(path) cannot be watched: \(error)")
            return
        }
        device = opened
        lastAbsence = nil
        try? retryTimer.disarm()
        presses = ButtonPresses(keys: settings.keys, hold: settings.hold)
        let counted = settings.keys.isEmpty ? opened.keys : opened.keys.intersection(settings.keys)
        let sorted = counted.sorted().map(KeyCodes.name)
        let names =
            sorted.isEmpty
            ? "none of its keys (see button_keys)"
            : sorted.count > 8
                ? "\(sorted.count) keys (\(sorted.prefix(6).joined(separator: ", ")), ...)"
                : sorted.joined(separator: ", ")
        let using =
            "using \(path) (\"\(opened.name)\"\(opened.phys.isEmpty ? "" : ", \(opened.phys)")), held for alarm-button alone; "
            + "keys that count: \(names)"
        logger.notice("\(using)")
        if counted.contains(KeyCodes.power) {
            logger.warning(
                "\(path) sends KEY_POWER, which systemd-logind powers the machine off on whenever alarm-button does not hold the device (at boot, while it restarts): give the button another code (the gpio-key overlay's keycode=256, BTN_0)"
            )
        }
    }

    /// What is said when no device matches `button_device`.
    var absenceMessage: String {
        guard let device = settings.device else {
            return settings.keys.isEmpty
                ? "no gpio-keys input device but a power button, which is left alone (set button_device in alarm.conf to use another)"
                : "no gpio-keys input device that sends one of button_keys (set button_device in alarm.conf to use another)"
        }
        return device.hasPrefix("/") ? "no input device at \(device)" : "no input device named '\(device)'"
    }

    /// A path-named device's directory (`/dev/input/by-id`, `by-path`) is watched too, so that
    /// its link, which udev makes after the node, is seen at once rather than at the next retry
    /// (about 7 s after a replug, against 2 s by name). The directory may not exist while
    /// nothing is plugged in: it is watched from when it appears (inotify on /dev/input).
    func watchLinkDirectory() {
        // inotify_add_watch on a directory already watched changes nothing, and one that was
        // removed and made again (udev's by-id when the last USB device goes) is watched anew.
        guard let device = settings.device, device.hasPrefix("/") else { return }
        let dir = String(device[..<(device.lastIndex(of: "/") ?? device.startIndex)])
        guard !dir.isEmpty, dir != "/dev/input" else { return }
        _ = try? inotify.watch(directory: dir, for: [.create, .attrib, .delete, .movedTo])
    }

    /// How long a new node may stay unreadable before that is worth a warning.
    static let udevGrace = 3.0

    /// The device is not there (or not usable): logged once, looked for again later.
    func absent(_ why: String) {
        if lastAbsence != why {
            logger.warning("\(why); waiting for it")
            lastAbsence = why
        }
        deniedSince = nil
        try? retryTimer.arm(after: .milliseconds(Int64(settings.retry * 1000)))
    }

    func readDevice() {
        guard let device else { return }
        let read: (events: [InputEvent], gone: Bool)
        do { read = try device.read() } catch {
            logger.error("reading \(device.path) failed: \(error); closing it")
            read = ([], true)
        }
        for e in read.events where e.type == InputEvent.key {
            let counted = presses.counts(e.code)
            if e.value == 1 {
                logger.debug("\(KeyCodes.name(of: e.code)) down\(counted ? "" : " (not a button key)")")
            }
            if let action = presses.handle(.init(code: e.code, value: e.value, time: e.time)) { perform(action) }
        }
        armPressTimer()
        if read.gone { lost(device) }
    }

    /// The device went away (unplugged): closed, and waited for again.
    func lost(_ gone: InputDevice) {
        if let token = deviceToken { try? loop.unregister(token) }
        deviceToken = nil
        device = nil
        try? pressTimer.disarm()
        logger.warning("\(gone.path) (\"\(gone.name)\") is gone; waiting for it to come back")
        // Said: its absence is not said again until something else is wrong.
        lastAbsence = absenceMessage
        openDevice()
    }

    func armPressTimer() {
        do {
            if let deadline = presses.deadline {
                let delay = max(deadline - MonotonicClock.now, 0.001)
                try pressTimer.arm(after: .milliseconds(Int64((delay * 1000).rounded(.up))))
            } else {
                try pressTimer.disarm()
            }
        } catch {
            logger.error("arming the hold timer failed: \(error)")
        }
    }

    /// Tells alarmd, when something rings (or, for a stop, is snoozed).
    func perform(_ action: ButtonPresses.Action) {
        let state = readStatus(ctx)?.state
        let wanted: Set<EngineStatus.State> = action == .snooze ? [.ringing] : [.ringing, .snoozed]
        guard let state, wanted.contains(state) else {
            let now = state.map { "alarmd is \($0.rawValue)" } ?? "alarmd does not run"
            logger.debug("\(action == .snooze ? "a press" : "a held press") while \(now): nothing to do")
            return
        }
        let outcome: ControlOutcome
        do {
            outcome = try action == .snooze ? ControlOutcome.snooze(ctx, duration: nil) : ControlOutcome.stop(ctx)
        } catch {
            logger.error("the button's \(action) could not reach alarmd: \(error)")
            return
        }
        let what = action == .snooze ? "press: snooze" : "held \(Durations.format(settings.hold)): stop"
        if outcome.done {
            logger.notice("\(what): \(outcome.message)")
        } else {
            logger.warning("\(what): \(outcome.message)")
        }
    }
}

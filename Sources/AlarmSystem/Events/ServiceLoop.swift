import FoundationEssentials

/// What a systemd service needs around its own event sources: the `EventLoop`, the signals that
/// stop (or reload) it, and `sd_notify` (READY, the watchdog, STOPPING). alarmd and alarm-hooks
/// each run one, so the shutdown path is written once.
///
/// Call `SignalFD.block(_:)` with the same signals first thing in `main`, before any thread exists
/// (see `SignalFD`).
public final class ServiceLoop {
    /// Register the service's own descriptors here.
    public let loop: EventLoop
    /// For STATUS= updates while running; `run` sends READY and STOPPING.
    public let notify: SDNotify
    let signals: SignalFD
    let watchdogTimer: TimerFD

    /// `reportFailure` gets every handler error (`EventLoop.HandlerFailure`: name, descriptor,
    /// error); the loop goes on after it.
    public init(
        signals: Set<Signal>, environment: [String: String], reportFailure: @escaping (EventLoop.HandlerFailure) -> Void
    ) throws {
        loop = try EventLoop(reportFailure: reportFailure)
        self.signals = try SignalFD(signals)
        watchdogTimer = try TimerFD(clock: .monotonic)
        notify = SDNotify(environment: environment)
    }

    /// Registers the signals and, when systemd asks for one (`WATCHDOG_USEC`), the watchdog
    /// ping; tells systemd READY with `status`; runs the loop until `stop()` or until it cannot
    /// go on (then it throws, see `EventLoop.run`). STOPPING is sent on either way out.
    ///
    /// `onSignal` runs on the loop's thread for each signal received; when it returns true the
    /// loop stops after the current turn.
    public func run(ready status: String, onSignal: @escaping (SignalFD.Received) -> Bool) throws {
        try loop.register(signals.descriptor, name: "signals") { [unowned self] _ in
            for received in try signals.read() where onSignal(received) { loop.stop() }
        }
        if let interval = notify.watchdogInterval {
            try watchdogTimer.arm(after: interval, repeating: interval)
            try loop.register(watchdogTimer.descriptor, name: "the watchdog timer") { [unowned self] _ in
                _ = try watchdogTimer.read()
                try notify.watchdog()
            }
        }
        defer { try? notify.stopping() }
        try notify.ready(status: status)
        try loop.run()
    }

    /// Ends `run` after the current turn.
    public func stop() { loop.stop() }
}

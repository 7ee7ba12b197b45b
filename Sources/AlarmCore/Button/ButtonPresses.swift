/// What a bedside button means (issue #30): a short press snoozes, a press held `hold` stops, one
/// command per press whatever the contacts do. A state machine fed the kernel's key events (their
/// own timestamps, on one monotonic clock) and the ticks of a timer the caller arms where
/// `deadline` says; it returns what to do and does nothing itself, so tests feed recorded event
/// streams with no device and no clock.
///
/// - A press is a key going down (`EV_KEY` value 1) of a key that counts (`keys`, or any key).
/// - It is **short** when the key comes up before `hold`: the snooze is sent once the key has
///   stayed up for `settle`, so a contact that bounces (up and down again within `settle`) makes
///   one press, not several.
/// - It is **held** when it is still down `hold` after it went down: the stop is sent then, while
///   the finger is still on it (as a phone's "hold to dismiss" does), and nothing more for that
///   press however long it lasts. The kernel's autorepeat events (value 2) of a held key say only
///   that it is still down.
/// - While one key is down, another counted key changes nothing: one press at a time.
public struct ButtonPresses: Sendable {
    /// What to do.
    public enum Action: Equatable, Sendable {
        case snooze
        case stop
    }

    /// A key event as the kernel reports it: `EV_KEY` `code`, `value` 0 (up), 1 (down) or
    /// 2 (autorepeat), at `time` seconds on the device's clock.
    public struct KeyEvent: Equatable, Sendable {
        public var code: Int
        public var value: Int
        public var time: Double
        public init(code: Int, value: Int, time: Double) {
            self.code = code
            self.value = value
            self.time = time
        }
    }

    private enum State: Equatable, Sendable {
        case up
        /// `code` went down at `since` (the press's start, bounces merged).
        case down(code: Int, since: Double)
        /// `code` came up at `at` after going down at `since`; a short press unless it goes down
        /// again within `settle`.
        case settling(code: Int, since: Double, at: Double)
        /// Held long enough: the stop has been sent; waiting for the key to come up (and settle).
        case held(code: Int)
        case heldSettling(code: Int, at: Double)
    }

    /// Key codes that count; empty: any key.
    public let keys: Set<Int>
    /// How long a press must last to stop (`button_hold`).
    public let hold: Double
    /// How long a key must stay up before a short press counts (contact bounce).
    public let settle: Double
    private var state = State.up

    public init(keys: Set<Int> = [], hold: Double = 2, settle: Double = 0.05) {
        self.keys = keys
        self.hold = hold
        self.settle = settle
    }

    /// Whether `code` counts as the button.
    public func counts(_ code: Int) -> Bool { keys.isEmpty || keys.contains(code) }

    /// When the caller should call `tick` next (on the events' clock), or nil for no timer.
    public var deadline: Double? {
        switch state {
        case .up, .held: return nil
        case .down(_, let since): return since + hold
        case .settling(_, _, let at), .heldSettling(_, let at): return at + settle
        }
    }

    /// Feeds one key event; returns what to do now, if anything. Events of keys that do not
    /// count are ignored.
    public mutating func handle(_ e: KeyEvent) -> Action? {
        guard counts(e.code) else { return nil }
        // Time first: a deadline passed before this event acts before it.
        var action = tick(e.time)
        switch (state, e.value) {
        case (.up, 1):
            state = .down(code: e.code, since: e.time)
        case (.down(let code, let since), 0) where code == e.code:
            state = .settling(code: code, since: since, at: e.time)
        case (.settling(let code, let since, _), 1) where code == e.code:
            state = .down(code: code, since: since)  // a bounce: the same press
            // Down again past `hold` from the start: held.
            if let held = tick(e.time) { action = action ?? held }
        case (.held(let code), 0) where code == e.code:
            state = .heldSettling(code: code, at: e.time)
        case (.heldSettling(let code, _), 1) where code == e.code:
            state = .held(code: code)
        default:
            break  // autorepeat, another key while one is down, an up without a down
        }
        return action
    }

    /// The time is now `now` (on the events' clock): a held press stops, a settled one snoozes.
    public mutating func tick(_ now: Double) -> Action? {
        switch state {
        case .down(let code, let since) where now >= since + hold:
            state = .held(code: code)
            return .stop
        case .settling(_, let since, let at) where now >= at + settle:
            state = .up
            // Up for good before `hold`: short. (`handle` ticks before each event, so a press
            // that lasted `hold` was already held, unless the caller ticked late: a stop still.)
            return at - since >= hold ? .stop : .snooze
        case .heldSettling(_, let at) where now >= at + settle:
            state = .up
            return nil
        default:
            return nil
        }
    }
}

import Foundation
import Testing

@testable import AlarmCore

/// An RFC 3339 instant, for tests.
func at(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Date {
    guard let d = RFC3339.parse(text) else {
        Issue.record("bad timestamp \(text)", sourceLocation: sourceLocation)
        return Date(timeIntervalSince1970: 0)
    }
    return d
}

func zone(_ name: String) -> Zone { Zone(identifier: name)! }

func alarm(
    _ id: String, _ expr: String, once: Bool = false, skipNext: Bool = false, snooze: TimeInterval? = nil,
    ring: TimeInterval? = nil, sound: String? = nil, volume: Int? = nil, created: Date? = nil
) throws -> Alarm {
    Alarm(
        id: id, trigger: .calendar(try CalendarExpression(expr)), sound: sound, once: once, snooze: snooze, ring: ring,
        volume: volume, skipNext: skipNext, created: created)
}

func instantAlarm(_ id: String, _ when: Date, created: Date? = nil) -> Alarm {
    Alarm(id: id, trigger: .instant(when), created: created)
}

/// The engine in a simulated world: a fake clock, a store that applies the engine's store
/// actions, a speaker, a timer, and the history and state files.
struct Rig {
    var engine: Engine
    var now: Date
    var zone: Zone
    var store: [Alarm]
    var history: [HistoryEntry] = []
    /// Every `startRinging`, in order.
    var rings: [RingRequest] = []
    /// When each `startRinging` was asked for.
    var ringTimes: [Date] = []
    var playing: RingRequest?
    var timer: Date?
    var persisted: EngineState?
    var status: EngineStatus?
    var logs: [(LogLevel, String)] = []
    /// Every `preAlarm` (issue #43), in order, with when it was asked for.
    var preAlarms: [PreAlarmNotice] = []
    var preAlarmTimes: [Date] = []
    var last: [EngineAction] = []
    /// The latest `now` the engine has been told (events only: time passing unseen does not count).
    var latestEvent = Date.distantPast

    /// The rig's settings: the defaults but `when_ignored = silence`, the behaviour the tests
    /// before issue #13 were written for (a ring silenced at its ring length); tests of the
    /// self-snooze ask for `.snooze`.
    static let settings = EngineSettings(whenIgnored: .silence)

    init(
        _ alarms: [Alarm], now: Date, zone: Zone, settings: EngineSettings = Rig.settings, saved: EngineState? = nil,
        holidays: HolidayCalendar = .empty
    ) {
        engine = Engine(settings: settings, holidays: holidays)
        self.now = now
        self.zone = zone
        store = alarms
        persisted = saved
        send(.start(alarms: alarms, state: saved))
    }

    /// Restarts the daemon: a new engine from the persisted state (a crash loses nothing
    /// persisted; the speaker goes quiet).
    mutating func restart(at time: Date) {
        now = time
        playing = nil
        timer = nil
        engine = Engine(settings: engine.settings, holidays: engine.holidays)
        send(.start(alarms: store, state: persisted))
    }

    /// Visit every alarm at every event, as the engine did before `Engine.dueHint` (a reference
    /// for the incremental path).
    var visitAll = false

    @discardableResult
    mutating func send(_ kind: EngineEvent.Kind) -> [EngineAction] {
        if visitAll { engine.dueHint = nil }
        let actions = engine.handle(kind, now: now, zone: zone)
        latestEvent = max(latestEvent, now)
        last = actions
        for a in actions {
            switch a {
            case .armTimer(let t): timer = t
            case .startRinging(let r):
                rings.append(r)
                ringTimes.append(now)
                playing = r
            case .stopAudio: playing = nil
            case .persistState(let s): persisted = s
            case .clearSkipNext(let a):
                if let i = store.firstIndex(where: { $0.id == a.id && $0.sameSchedule(as: a) }) {
                    store[i].skipNext = false
                }
            case .clearPause(let a):
                if let i = store.firstIndex(where: { $0.id == a.id && $0.sameSchedule(as: a) && $0.pause == a.pause }) {
                    store[i].pause = nil
                }
            case .removeAlarm(let a): store.removeAll { $0.id == a.id && $0.sameSchedule(as: a) }
            case .recordHistory(let e): history.append(e)
            case .publishStatus(let s): status = s
            case .preAlarm(let n):
                preAlarms.append(n)
                preAlarmTimes.append(now)
            case .log(let l, let m): logs.append((l, m))
            }
        }
        // As alarmd does: once the effects are carried out, the state is saved again without
        // its journal (only a crash in between leaves one for the next start to replay).
        persisted?.journal = nil
        #expect(
            actions.last.map { if case .armTimer = $0 { true } else { false } } == true,
            "every event ends with armTimer")
        return actions
    }

    /// `kind` at `time`: the clock has moved on to it unseen (no timer fired on the way).
    @discardableResult
    mutating func send(_ kind: EngineEvent.Kind, at time: Date) -> [EngineAction] {
        now = time
        return send(kind)
    }

    /// Lets time pass up to `time`, firing the timer whenever it is due (the daemon's loop).
    mutating func run(until time: Date) {
        while let t = timer, t <= time {
            now = max(now, t)
            send(.timerFired)
            if timer == t { break }  // no progress: avoid spinning (an engine bug shows in assertions)
        }
        now = time
    }

    mutating func run(for seconds: TimeInterval) { run(until: now.addingTimeInterval(seconds)) }

    /// The store is changed to `alarms` (at `time`, when given) and the engine told, as alarmd
    /// tells it when the store's file changes.
    @discardableResult
    mutating func change(to alarms: [Alarm], at time: Date? = nil) -> [EngineAction] {
        if let time { now = time }
        store = alarms
        return send(.alarmsChanged(alarms))
    }

    /// Whether `other` came to the same rings, history, status, timer and store (the incremental
    /// path against `visitAll`).
    func agrees(with other: Rig) -> Bool {
        rings == other.rings && history == other.history && status == other.status && timer == other.timer
            && store == other.store
    }

    /// The clock is set to `time` (no timers fire over a jump).
    mutating func jump(to time: Date) {
        now = time
        send(.clockChanged)
    }

    mutating func changeZone(_ z: Zone) {
        zone = z
        send(.zoneChanged)
    }

    /// The speaker reports its first frame now.
    mutating func played(sound: String? = nil, reason: String? = nil) {
        send(.playbackStarted(sound: sound ?? playing?.sound, reason: reason))
    }

    var ringingState: EngineStatus.State { status?.state ?? .idle }

    func logged(_ level: LogLevel, containing text: String) -> Bool {
        logs.contains { $0.0 == level && $0.1.contains(text) }
    }
}

extension EngineAction {
    var isStartRinging: Bool { if case .startRinging = self { true } else { false } }
    var isStopAudio: Bool { if case .stopAudio = self { true } else { false } }
}

import FoundationEssentials

/// Actions collected during one event, emitted in a fixed order: stop the sound first (stop
/// latency), persist before anything that could be lost in a crash, then history and store
/// changes, then pre-alarms (after the state that marks them written), then start the sound, then logs. Status and the timer are appended by the engine.
struct Effects {
    private var stop = false
    private var start: RingRequest?
    private var history: [HistoryEntry] = []
    private var store: [EngineAction] = []
    private var logs: [EngineAction] = []
    private var preAlarms: [PreAlarmNotice] = []

    mutating func stopAudio() {
        stop = true
        start = nil
    }

    mutating func startRinging(_ r: RingRequest) { start = r }
    /// History entries or store changes were asked for (they travel with a saved state).
    var hasRecords: Bool { !history.isEmpty || !store.isEmpty }
    mutating func record(_ e: HistoryEntry) { history.append(e) }
    mutating func clearSkipNext(_ a: Alarm) { store.append(.clearSkipNext(a)) }
    mutating func remove(_ a: Alarm) { store.append(.removeAlarm(a)) }
    mutating func clearPause(_ a: Alarm) { store.append(.clearPause(a)) }
    mutating func preAlarm(_ n: PreAlarmNotice) { preAlarms.append(n) }
    mutating func log(_ level: LogLevel, _ message: String) { logs.append(.log(level, message)) }
    mutating func replay(_ j: Journal) {
        history += j.history
        store += j.store.map(\.action)
    }

    func actions(persist: EngineState?) -> [EngineAction] {
        var out: [EngineAction] = []
        if stop { out.append(.stopAudio) }
        if var persist {
            // The effects that follow travel with the state, so a crash between the two is mended
            // at the next start (see EngineState.journal).
            let journal = Journal(history: history, store: store.compactMap(StoreEffect.init))
            persist.journal = journal.isEmpty ? nil : journal
            out.append(.persistState(persist))
        }
        out += history.map { .recordHistory($0) }
        out += store
        out += preAlarms.map { .preAlarm($0) }
        if let start { out.append(.startRinging(start)) }
        out += logs
        return out
    }
}

import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
import Synchronization

/// Why an action of `AlarmActions` did not happen, with the CLI's message for it.
public struct ActionError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The input cannot be used (HTTP 400).
        case badInput
        /// No alarm with that id (404).
        case notFound
        /// alarmd is not running (503).
        case notRunning
        /// Not allowed to write alarmd's FIFO or the alarms (503: the service is set up wrong).
        case notAllowed
        /// alarmd did not do it: nothing rings to snooze or stop (409).
        case notDone
        /// Anything else: a store that cannot be read or written (500).
        case failed
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// The CLI's commands as values, for alarm-web: the same store, the same checks and messages,
/// the same JSON as `list --json`, `status --json`, `next --json`, `history --json` and
/// `preview --json`, and alarmd reached only through its FIFO and status.json. Each call works
/// on a fresh view (the settings given, the system zone and the clock now).
public struct AlarmActions: Sendable {
    public let config: Configuration

    public init(config: Configuration) { self.config = config }

    private var ctx: AlarmContext { AlarmContext(config: config) }

    // MARK: Reading

    /// `alarm status --json`, through `cache`: status.json is read every time, and turned into
    /// the answer again only when its bytes or alarmd's liveness changed (the phone's page asks
    /// twice a second; alarmd rewrites the file when something happens). No context: the status
    /// needs no zone (resolving it read the environment and the zone link on every request, a
    /// sixth of alarm-web's time).
    public func status(cache: StatusCache) throws -> String {
        let running = daemonRunning(config).running
        let raw = try? Data(contentsOf: URL(fileURLWithPath: config.statusPath))
        return try cache.answer(raw: raw, running: running) { try statusJSON(raw: raw, running: running) }
    }

    /// `alarm list --json`.
    public func alarms() throws -> String {
        let ctx = self.ctx
        return try ctx.json(try loadAlarms(ctx))
    }

    /// One alarm as `list --json` prints it.
    public func alarm(id: String) throws -> String {
        let ctx = self.ctx
        guard let alarm = try loadAlarms(ctx).first(where: { $0.id == id }) else {
            throw ActionError(.notFound, "no alarm with id '\(id)'")
        }
        return try single(ctx, alarm)
    }

    /// `alarm next --json`: `{"at", "id", "in"}` or `null`.
    public func next() throws -> String {
        let ctx = self.ctx
        let upcoming = try loadAlarms(ctx).compactMap { a in ctx.nextRing(a).map { (a, $0) } }.min { $0.1 < $1.1 }
        guard let (alarm, at) = upcoming else { return "null" }
        return try ctx.nextJSON(alarm, at: at)
    }

    /// `alarm sounds --json`: every sound of the directories, whether it plays, its container
    /// and format (alarm-web's add form offers the playable ones).
    public func sounds() throws -> String {
        do { return try SoundEntry.json(SoundEntry.all(config.soundLibrary)) } catch {
            throw ActionError(.failed, "\(error)")
        }
    }

    /// `alarm history --json`.
    public func history() throws -> String {
        let log = HistoryLog(stateDir: config.stateDir)
        do { return try historyJSON(try log.read().entries) } catch { throw ActionError(.failed, "\(error)") }
    }

    /// `alarm preview EXPR --count N --zone ZONE [--every D] [--from DATE] [--until DATE]
    /// [--skip-holidays] --json`: the next rings in RFC 3339 of the alarm `alarm add` would make
    /// of the same (issue #12's rules included; holidays from the config's file).
    public func preview(
        expression: String, count: String?, zone: String?, every: String? = nil, from: String? = nil,
        until: String? = nil, skipHolidays: Bool = false
    ) throws -> String {
        guard !expression.trimmingBlanks().isEmpty else {
            throw ActionError(.badInput, "give a calendar expression, e.g. 'Mon..Fri 06:30'")
        }
        var n = 5
        if let count {
            guard let v = Int(count), (1...10_000).contains(v) else {
                throw ActionError(.badInput, "count must be between 1 and 10000")
            }
            n = v
        }
        let expr: CalendarExpression
        do { expr = try CalendarExpression(expression) } catch { throw ActionError(.badInput, "\(error)") }
        let systemZone: Zone
        do { systemZone = try zone.map { try Zones.zone(named: $0) } ?? SystemZone.current(config) } catch {
            throw ActionError(.badInput, "\(error)")
        }
        let start = Date()
        var options = ScheduleRules()
        options.every = every
        options.from = from
        options.until = until
        options.skipHolidays = skipHolidays
        let alarm: Alarm
        var holidays = HolidayCalendar.empty
        do {
            alarm = try options.previewAlarm(.calendar(expr), zone: systemZone, now: start)
            if skipHolidays {
                guard let path = config.holidays else {
                    throw UserError(
                        "skip_holidays: no holidays file is set ('holidays = FILE' in \(config.configPath))")
                }
                holidays = try HolidaysFile.load(path)
            }
        } catch {
            throw ActionError(.badInput, "\(error)")
        }
        let shown = alarm.displayZone(systemZone: systemZone)
        let walk = PreviewWalk(alarm, from: start, count: n, systemZone: systemZone, holidays: holidays, verbose: false)
        if walk.rings == 0 {
            let rules = alarm.rulesText(zone: shown)
            throw ActionError(
                .badInput,
                "'\(expr)\(rules.isEmpty ? "" : " " + rules)' never rings after \(RFC3339.format(start, in: shown))")
        }
        return try Self.encode(walk.lines.map { RFC3339.format($0.at, in: shown) })
    }

    // MARK: Changing alarms

    /// `alarm add` with an alarm in the `list --json` format (one object): an empty `id` gets
    /// a free one, an existing id is replaced; `created` is stamped as `alarm add` stamps it
    /// (any given one is ignored; `next` and `mode` are ignored too). Returns the stored alarm
    /// as `list --json` prints it, whether it replaced one, and any warning about its sound.
    public func put(json body: [UInt8]) throws -> (json: String, replaced: Bool, warning: String?) {
        var alarm = try Self.decodeOne(body)
        if alarm.every?.isCalendar == true, alarm.from == nil {
            // As alarm add --every 2w: days and weeks count from today in the alarm's zone (as
            // /api/preview shows them), not from 1970.
            let c = Zones.civil(at: Date(), in: alarm.displayZone(systemZone: ctx.zone))
            alarm.from = .day(CivilTime(year: c.year, month: c.month, day: c.day))
        }
        if !alarm.id.isEmpty {
            do { try Alarm.validate(id: alarm.id) } catch { throw ActionError(.badInput, "\(error)") }
        }
        if let volume = alarm.volume, !(0...100).contains(volume) {
            throw ActionError(.badInput, "volume must be 0-100")
        }
        if let sound = alarm.sound, let problem = SoundSpec.problem(sound) {
            throw ActionError(.badInput, "sound: \(problem)")
        }
        if let fallback = alarm.fallbackSound, let problem = SoundSpec.fallbackProblem(fallback) {
            throw ActionError(.badInput, "fallback_sound: \(problem)")
        }
        for (name, value) in [("snooze", alarm.snooze), ("ring", alarm.ring), ("fade_in", alarm.fadeIn)] {
            if let value, !(value.isFinite && value >= 0 && value <= 86400 * 366) {
                throw ActionError(.badInput, "\(name) must be a number of seconds from 0 to a year")
            }
        }
        let ctx = self.ctx
        let stored: (alarm: Alarm, next: Date, replaced: Bool)
        do { stored = try ctx.commitAdd(alarm) } catch let e as UserError {
            throw ActionError(
                e.description.hasPrefix("this alarm would never ring") ? .badInput : .failed, e.description)
        }
        let warning = alarm.sound.flatMap {
            SoundSelection($0).streamURL == nil ? ctx.config.soundLibrary.inspect($0).problem : nil
        }.map {
            "\($0); the default tone will ring instead"
        }
        return (try single(ctx, stored.alarm), stored.replaced, warning)
    }

    /// `alarm remove ID`.
    public func remove(id: String) throws {
        let missing: [String]
        do { missing = try ctx.store.remove(ids: [id]) } catch { throw ActionError(.failed, "\(error)") }
        if !missing.isEmpty { throw ActionError(.notFound, "no alarm with id '\(id)'") }
    }

    /// `alarm skip ID` / `alarm unskip ID`; the alarm as `list --json` prints it after.
    public func setSkip(id: String, _ skip: Bool) throws -> String {
        let ctx = self.ctx
        let updated: Alarm?
        do { updated = try ctx.store.setSkipNext(id: id, skip) } catch { throw ActionError(.failed, "\(error)") }
        guard let alarm = updated else { throw ActionError(.notFound, "no alarm with id '\(id)'") }
        return try single(ctx, alarm)
    }

    // MARK: Talking to alarmd

    /// `alarm snooze [DURATION]`; `alarm status --json` after.
    public func snooze(duration: String?) throws -> String {
        if let duration {
            do { _ = try Durations.parse(duration) } catch { throw ActionError(.badInput, "duration: \(error)") }
        }
        return try control { try .snooze($0, duration: duration) }
    }

    /// `alarm stop`; `alarm status --json` after.
    public func stop() throws -> String {
        try control { try .stop($0) }
    }

    /// `alarm ring [--sound NAME]`; `alarm status --json` after.
    public func ring(sound: String?) throws -> String {
        if let sound {
            if let problem = SoundSpec.problem(sound) { throw ActionError(.badInput, "sound: \(problem)") }
            if sound.contains("\n") { throw ActionError(.badInput, "sound must be a file name or a stream URL") }
        }
        return try control { try .ring($0, sound: sound) }
    }

    // MARK: Helpers

    private func control(_ body: (AlarmContext) throws -> ControlOutcome) throws -> String {
        let ctx = self.ctx
        let outcome: ControlOutcome
        do { outcome = try body(ctx) } catch let e as ControlFIFOError {
            switch e {
            case .permissionDenied: throw ActionError(.notAllowed, "\(e)")
            case .badLine: throw ActionError(.badInput, "\(e)")
            default: throw ActionError(.notRunning, "\(e)")
            }
        }
        guard outcome.done else { throw ActionError(.notDone, outcome.message) }
        return try statusJSON(ctx, running: true)
    }

    private func loadAlarms(_ ctx: AlarmContext) throws -> [Alarm] {
        do { return try ctx.store.load() } catch { throw ActionError(.failed, "\(error)") }
    }

    /// One alarm, exactly as its element of `list --json`.
    private func single(_ ctx: AlarmContext, _ alarm: Alarm) throws -> String {
        let list = try ctx.json([alarm])
        guard case .array(let items) = try JSONDecoder().decode(JSONValue.self, from: Data(list.utf8)),
            let first = items.first
        else {
            throw ActionError(.failed, "the alarm could not be written as JSON")
        }
        return try Self.encode(first)
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// One alarm object in the `list --json` format, read by the store's own reader (the same
    /// checks of expressions, zones and timestamps, the same messages).
    static func decodeOne(_ body: [UInt8]) throws -> Alarm {
        guard body.contains(where: { !" \n\r\t".utf8.contains($0) }) else {
            throw ActionError(
                .badInput, "the body is empty: send one alarm as a JSON object (the fields of alarm list --json)")
        }
        guard body.first(where: { !" \n\r\t".utf8.contains($0) }) == UInt8(ascii: "{") else {
            throw ActionError(
                .badInput, "the body must be one alarm as a JSON object (the fields of alarm list --json)")
        }
        let alarms: [Alarm]
        do { alarms = try AlarmListReader.decode(Array("[".utf8) + body + Array("]".utf8)) } catch {
            var text = "\(error)"
            // The reader names places in the list ("at [0].expression"); here there is one object.
            if text.hasPrefix("at [0].") {
                text = String(text.dropFirst("at [0].".count))
            } else if text.hasPrefix("at [0]") {
                text = "the alarm" + text.dropFirst("at [0]".count)
            }
            throw ActionError(.badInput, "not an alarm (the fields of alarm list --json): \(text)")
        }
        guard alarms.count == 1 else {
            throw ActionError(.badInput, "the body must be one alarm as a JSON object, not \(alarms.count)")
        }
        return alarms[0]
    }
}

/// The last status answer and what it was made from, for `AlarmActions.status(cache:)`.
public final class StatusCache: @unchecked Sendable {
    private let last = Mutex<(raw: Data?, running: Bool, text: String)?>(nil)

    public init() {}

    func answer(raw: Data?, running: Bool, make: () throws -> String) rethrows -> String {
        if let l = last.withLock({ $0 }), l.raw == raw, l.running == running { return l.text }
        let text = try make()
        last.withLock { $0 = (raw, running, text) }
        return text
    }
}

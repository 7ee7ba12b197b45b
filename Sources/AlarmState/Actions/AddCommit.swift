import AlarmCore
import FoundationEssentials

extension AlarmContext {
    /// Stores `alarm` the way `alarm add` does, for `alarm add` and alarm-web's `POST /api/alarms`:
    /// an empty id gets the first free `alarm-N`; an existing id is replaced; `created` is the
    /// moment of the write, kept when the replaced alarm had the same trigger (its occurrences
    /// are the same ones); an alarm with no ring after that is refused and nothing is written.
    /// Returns the stored alarm, its next ring and whether it replaced one.
    package func commitAdd(_ alarm: Alarm) throws -> (alarm: Alarm, next: Date, replaced: Bool) {
        guard alarm.nextRing(after: now, systemZone: zone) != nil else {
            throw UserError("this alarm would never ring: '\(alarm.summary(systemZone: zone))' has no time after now")
        }
        var replaced = false
        var next = Date.distantFuture
        let stored: Alarm
        do {
            stored = try store.update { alarms -> Alarm in
                var copy = alarm
                copy.id = alarm.id.isEmpty ? Self.freeID(in: alarms) : alarm.id
                // `created` is the moment the change is committed; an edit that keeps the
                // trigger keeps it (the alarm's occurrences are the same ones).
                copy.created = Alarm.stamp(Date())
                if let i = alarms.firstIndex(where: { $0.id == copy.id }) {
                    if alarms[i].sameSchedule(as: copy), let kept = alarms[i].created { copy.created = kept }
                }
                // What alarmd will ring: the first occurrence after `created` and after now
                // that no holiday passes over.
                guard let first = nextRing(copy, after: Date()) else {
                    throw UserError(
                        "this alarm would never ring: '\(copy.summary(systemZone: zone))' has no time after now")
                }
                next = first
                if let i = alarms.firstIndex(where: { $0.id == copy.id }) {
                    alarms[i] = copy
                    replaced = true
                } else {
                    alarms.append(copy)
                }
                return copy
            }
        } catch let error as UserError { throw error } catch { throw UserError(error) }
        return (stored, next, replaced)
    }

    package static func freeID(in alarms: [Alarm]) -> String {
        let taken = Set(alarms.map(\.id))
        var n = 1
        while taken.contains("alarm-\(n)") { n += 1 }
        return "alarm-\(n)"
    }
}

extension Alarm {
    /// The alarm's trigger and rules as `alarm add` echoes them: "Mon..Fri 06:30 every 2w from
    /// 2026-11-23", an instant in UTC.
    package func summary(systemZone zone: Zone) -> String {
        var text: String
        switch trigger {
        case .calendar(let e): text = e.description
        case .instant(let t): text = RFC3339.format(t, in: Zone.utc)
        }
        let rules = rulesText(zone: displayZone(systemZone: zone))
        if !rules.isEmpty { text += " " + rules }
        return text
    }
}

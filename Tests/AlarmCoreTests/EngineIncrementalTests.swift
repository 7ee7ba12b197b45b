import Foundation
import Testing

@testable import AlarmCore

/// Issue #9: an event visits only the alarms it concerns (`Engine.dueHint`), and a reload
/// matches the new list against the old in place (`replaceAlarms`). Marks may then stay behind
/// `now`; these tests pin down that nothing observable changes.
@Suite struct EngineIncrementalTests {
    static let t0 = at("2026-11-23T04:50:00Z")

    /// A floating 06:00 alarm, quiet events, then the zone moves to UTC+1, whose 06:00 (05:00Z)
    /// lies between the alarm's old mark and the zone change: computed in the old zone, it never
    /// existed, and must not ring after a small backward clock jump either.
    @Test func zoneChangeAfterQuietEventsDoesNotRingWhatTheNewZonePutsBeforeIt() throws {
        var rig = Rig([try alarm("wake", "06:00", created: Self.t0)], now: Self.t0, zone: zone("UTC"))
        rig.send(.stop, at: at("2026-11-23T05:30:00Z"))  // nothing rings: a quiet event, no alarm visited
        rig.now = at("2026-11-23T05:40:00Z")
        rig.changeZone(zone("Etc/GMT-1"))
        rig.jump(to: at("2026-11-23T05:20:00Z"))  // back by 20 min, under the backward-jump limit
        rig.run(until: at("2026-11-23T05:35:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.status?.next?.at == at("2026-11-24T05:00:00Z"))
    }

    /// The same, the zone changing while alarmd is down: the state saved at shutdown holds
    /// marks up to the shutdown, not where quiet events left them.
    @Test func stateSavedAfterQuietEventsHoldsMarksUpToTheLastEvent() throws {
        var rig = Rig([try alarm("wake", "06:00", created: Self.t0)], now: Self.t0, zone: zone("UTC"))
        rig.send(.stop, at: at("2026-11-23T05:30:00Z"))
        rig.send(.shutdown, at: at("2026-11-23T05:40:00Z"))
        #expect(rig.persisted?.marks["wake"] == at("2026-11-23T05:40:00Z"))
        rig.zone = zone("Etc/GMT-1")
        rig.restart(at: at("2026-11-23T05:45:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
    }

    /// The same when the daemon hands the new zone with another event than `zoneChanged`, and
    /// another alarm coming due later makes the engine visit every alarm.
    @Test func newZoneWithAnyEventBringsMarksUpFirst() throws {
        let other = instantAlarm("other", at("2026-11-23T05:42:00Z"), created: Self.t0)
        var rig = Rig([try alarm("wake", "06:00", created: Self.t0), other], now: Self.t0, zone: zone("UTC"))
        rig.send(.stop, at: at("2026-11-23T05:30:00Z"))
        rig.now = at("2026-11-23T05:40:00Z")
        rig.zone = zone("Etc/GMT-1")
        rig.send(.stop)
        rig.run(until: at("2026-11-23T05:43:00Z"))
        #expect(rig.rings.map(\.alarm) == ["other"])
        #expect(!rig.history.contains { $0.alarm == "wake" })
    }

    /// A removed alarm's mark comes up to the removal, so the id coming back (an alarm of an
    /// old store, without `created`) after a zone change does not owe what the new zone puts
    /// before the removal.
    @Test func removedAlarmKeepsItsMarkUpToTheRemoval() throws {
        let a = try alarm("wake", "06:00")  // no `created`
        var rig = Rig([a], now: Self.t0, zone: zone("UTC"))
        rig.send(.stop, at: at("2026-11-23T05:30:00Z"))  // quiet
        rig.send(.alarmsChanged([]), at: at("2026-11-23T05:40:00Z"))
        rig.now = at("2026-11-23T05:45:00Z")
        rig.changeZone(zone("Etc/GMT-1"))
        rig.send(.alarmsChanged([a]), at: at("2026-11-23T05:50:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.status?.next?.at == at("2026-11-24T05:00:00Z"))
    }

    /// Reloads of every shape (insertions, removals, moves, new triggers, duplicates): the
    /// engine's list is the new one, first of each id, and a new alarm's mark starts afresh.
    @Test(arguments: 0..<20)
    func reloadOfAnyShapeGivesTheNewList(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 101)
        let exprs = ["06:00", "07:30", "Mon..Fri 06:45", "*:00/15", "*-*-01 09:00", "Sat 10:00"]
        func make(_ n: Int) throws -> Alarm { try alarm("a\(n)", exprs.randomElement(using: &rng)!, created: Self.t0) }
        var list = try (0..<30).map(make)
        var rig = Rig(list, now: Self.t0, zone: zone("UTC"))
        var nextID = 30
        for _ in 0..<60 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                list.insert(try make(nextID), at: Int.random(in: 0...list.count, using: &rng))
                nextID += 1
            case 1: if !list.isEmpty { list.remove(at: Int.random(in: 0..<list.count, using: &rng)) }
            case 2:
                if list.count > 1 {
                    list.swapAt(
                        Int.random(in: 0..<list.count, using: &rng), Int.random(in: 0..<list.count, using: &rng))
                }
            case 3:
                if !list.isEmpty {
                    let i = Int.random(in: 0..<list.count, using: &rng)
                    list[i] = try alarm(list[i].id, exprs.randomElement(using: &rng)!, created: rig.now)
                }
            case 4:
                if !list.isEmpty {
                    list.insert(list.randomElement(using: &rng)!, at: Int.random(in: 0...list.count, using: &rng))
                }
            default: list.shuffle(using: &rng)
            }
            rig.send(.alarmsChanged(list), at: rig.now.addingTimeInterval(Double(Int.random(in: 1...600, using: &rng))))
            list = Engine.unique(list)
            #expect(rig.engine.alarms == list)
            #expect(rig.engine.alarmIDs == Set(list.map(\.id)))
            for a in list { #expect(rig.engine.state.marks[a.id] != nil) }
        }
    }

    /// Differential: random days of reloads, zone changes, clock jumps, restarts and reactions
    /// give the same rings, history and status whether the engine visits only what is due or
    /// every alarm at every event.
    @Test(arguments: 0..<12)
    func visitingOnlyWhatIsDueChangesNothingObservable(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 31 &+ 7)
        let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Etc/GMT-1"]
        let exprs = ["06:00", "07:30", "Mon..Fri 06:45", "*:00/20", "*-*-01 09:00", "Sat 10:00", "02:30", "*:07"]
        var list = try (0..<12).map {
            try alarm("a\($0)", exprs[$0 % exprs.count], once: $0 % 5 == 4, created: Self.t0)
        }
        var fast = Rig(list, now: Self.t0, zone: zone("UTC"))
        var full = Rig(list, now: Self.t0, zone: zone("UTC"))
        full.visitAll = true
        var nextID = 12
        for step in 0..<150 {
            let roll = Int.random(in: 0..<10, using: &rng)
            let dt = Double(Int.random(in: 1...(4 * 3600), using: &rng))
            var edit: [Alarm]? = nil
            if roll == 3 {
                list = fast.store
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    list.insert(
                        try alarm(
                            "a\(nextID)", exprs.randomElement(using: &rng)!, once: Bool.random(using: &rng),
                            created: fast.now),
                        at: Int.random(in: 0...list.count, using: &rng))
                    nextID += 1
                case 1: if !list.isEmpty { list.remove(at: Int.random(in: 0..<list.count, using: &rng)) }
                default:
                    if !list.isEmpty {
                        let i = Int.random(in: 0..<list.count, using: &rng)
                        list[i] = try alarm(list[i].id, exprs.randomElement(using: &rng)!, created: fast.now)
                    }
                }
                edit = list
            }
            let z = zone(zones.randomElement(using: &rng)!)
            let back = Double(Int.random(in: 1...3000, using: &rng))
            for k in 0..<2 {
                var rig = k == 0 ? fast : full
                switch roll {
                case 0, 1, 2: rig.run(for: dt)
                case 3:
                    rig.change(to: edit!, at: rig.now.addingTimeInterval(60))
                case 4: rig.changeZone(z)
                case 5: rig.jump(to: rig.now.addingTimeInterval(-back))
                case 6: rig.jump(to: rig.now.addingTimeInterval(dt))
                case 7: rig.restart(at: rig.now.addingTimeInterval(dt / 4))
                case 8: rig.send(.stop)
                default: rig.send(.snooze(nil))
                }
                if k == 0 { fast = rig } else { full = rig }
            }
            let same = fast.agrees(with: full)
            #expect(same, "seed \(seed), step \(step): the two engines differ")
            if !same { return }
        }
        #expect(!fast.rings.isEmpty)
    }
}

import AlarmCore
import AlarmTestSupport
import Foundation
import Testing

@testable import AlarmState

func daily(_ id: String, _ time: String = "07:00", label: String? = nil) throws -> Alarm {
    Alarm(id: id, trigger: .calendar(try CalendarExpression(time)), label: label)
}

@Suite struct AlarmStoreTests {
    @Test func noFileIsAnEmptyList() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        #expect(try store.load() == [])
    }

    @Test func addedAlarmsAreStoredAsAJSONArrayInTheListFormat() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        let berlin = Alarm(
            id: "work", trigger: .calendar(try CalendarExpression("Mon..Fri 06:30 Europe/Berlin")), label: "work",
            sound: "birds.wav")
        let timer = Alarm(id: "tea", trigger: .instant(Date(timeIntervalSince1970: 1_800_000_000)))
        try store.add(berlin)
        try store.add(timer)
        #expect(try store.load() == [berlin, timer])
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/alarms.json"))
        #expect(try JSONDecoder().decode([Alarm].self, from: data) == [berlin, timer])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"zone\" : \"Europe/Berlin\""))
        #expect(text.contains("\"skip_next\" : false"))
        #expect(text.hasSuffix("]\n"))
    }

    @Test func addingAnExistingIdReplacesItInPlace() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        try store.add(try daily("a"))
        try store.add(try daily("b"))
        let replaced = try store.add(try daily("a", "08:00"))
        #expect(replaced)
        #expect(try store.load() == [try daily("a", "08:00"), try daily("b")])
    }

    @Test func invalidIdsAreRefused() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        #expect(throws: AlarmError.self) { try store.add(try daily("no spaces")) }
        #expect(try store.load() == [])
    }

    @Test func removeByIdReportsTheMissingOnes() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        for id in ["a", "b", "c"] { try store.add(try daily(id)) }
        #expect(try store.remove(ids: ["b", "zzz"]) == ["zzz"])
        #expect(try store.load().map(\.id) == ["a", "c"])
        #expect(try store.removeAll() == 2)
        #expect(try store.load() == [])
    }

    @Test func removeRungLeavesAnAlarmGivenANewTimeButNotANewLabel() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        let original = try daily("nap", "07:00")
        try store.add(original)
        try store.add(try daily("nap", "07:30"))  // the user moves it meanwhile
        #expect(try store.removeRung(original) == false)
        #expect(try store.load() == [try daily("nap", "07:30")])
        try store.add(try daily("nap", "07:00", label: "relabelled"))
        #expect(try store.apply(.removeAlarm(original)))
        #expect(try store.load() == [])
    }

    @Test func clearSkipNextKeepsOtherEditsAndSkipsAMovedAlarm() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        var a = try daily("wake", "07:00")
        a.skipNext = true
        try store.add(a)
        var edited = try daily("wake", "07:00", label: "work")  // label changed meanwhile
        edited.skipNext = true
        try store.add(edited)
        #expect(try store.apply(.clearSkipNext(a)))
        #expect(try store.load().first?.skipNext == false)
        #expect(try store.load().first?.label == "work")
        try store.setSkipNext(id: "wake", true)
        #expect(try store.clearSkipNext(try daily("wake", "06:00")) == false)
        #expect(try store.load().first?.skipNext == true)
    }

    /// Issue #12: the engine forgets an ended pause only if it is still the one it saw, and a
    /// new `until` is a new schedule to `removeRung`.
    @Test func clearPauseSkipsAPauseSetAgainAndRemoveRungANewUntil() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        var a = try daily("wake", "07:00")
        a.pause = .until(.instant(Date(timeIntervalSince1970: 1_800_000_000)))
        try store.add(a)
        var again = a
        again.pause = .indefinitely  // alarm pause wake, meanwhile
        try store.add(again)
        #expect(try store.apply(.clearPause(a)) == false)
        #expect(try store.load().first?.pause == .indefinitely)
        try store.add(a)
        #expect(try store.apply(.clearPause(a)))
        #expect(try store.load().first?.pause == nil)
        var bounded = try daily("wake", "07:00")
        bounded.until = .day(CivilTime(year: 2027, month: 1, day: 31))
        try store.add(bounded)
        #expect(try store.removeRung(try daily("wake", "07:00")) == false, "the until changed: another schedule")
        #expect(try store.removeRung(bounded))
    }

    @Test func replaceAndSkipFlags() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        let a = try daily("a")
        try store.add(a)
        let skipped = try #require(try store.setSkipNext(id: "a", true))
        #expect(skipped.skipNext)
        #expect(try store.setSkipNext(id: "nope", true) == nil)
        var cleared = skipped
        cleared.skipNext = false
        #expect(try store.replace(a, with: cleared) == false)  // stale "old"
        #expect(try store.replace(skipped, with: cleared))
        #expect(try store.load() == [cleared])
    }

    @Test func aCorruptFileIsReportedAndNeverOverwritten() throws {
        let dir = try stateDirectory()
        let path = dir + "/alarms.json"
        let garbage = Data("[{\"id\": \"a\", \"expression\": \"07:00\"}, {oops".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let store = AlarmStore(stateDir: dir)
        #expect {
            try store.load()
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.path == path && e.description.contains("cannot read the alarms")
                && e.description.contains("left as it is")
        }
        #expect(throws: StoreError.self) { try store.add(try daily("b")) }
        #expect(throws: StoreError.self) { try store.removeAll() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func anUnknownZoneOrExpressionNamesWhere() throws {
        let dir = try stateDirectory()
        try Data("[{\"id\": \"a\", \"expression\": \"07:00\", \"zone\": \"Mars/Olympus\"}]".utf8).write(
            to: URL(fileURLWithPath: dir + "/alarms.json"))
        #expect {
            try AlarmStore(stateDir: dir).load()
        } throws: { error in
            "\(error)".contains("Mars/Olympus") && "\(error)".contains("[0]")
        }
    }

    @Test func duplicateIdsAreRefused() throws {
        let dir = try stateDirectory()
        let twice = try AlarmStore.encode([try daily("a"), try daily("b")])
        let text = String(decoding: twice, as: UTF8.self).replacingOccurrences(of: "\"b\"", with: "\"a\"")
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/alarms.json"))
        #expect {
            try AlarmStore(stateDir: dir).load()
        } throws: { error in
            "\(error)".contains("two alarms have the id 'a'")
        }
    }

    @Test func thePreviousListIsKeptAsABackup() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        try store.add(try daily("a"))
        try store.add(try daily("b"))
        let backup = try JSONDecoder().decode(
            [Alarm].self, from: Data(contentsOf: URL(fileURLWithPath: store.backupPath)))
        #expect(backup == [try daily("a")])
    }

    @Test func concurrentWritersLoseNothing() async throws {
        let dir = try stateDirectory()
        // Separate store objects: separate lock descriptions, as in separate processes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<6 {
                group.addTask {
                    let store = AlarmStore(stateDir: dir, lockTimeout: 30)
                    for i in 0..<20 {
                        try store.add(try daily("w\(w)-\(i)", "0\(w):\(10 + i)"))
                        if i % 5 == 4 { try store.setSkipNext(id: "w\(w)-\(i - 1)", true) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try AlarmStore(stateDir: dir).load()
        #expect(all.count == 120)
        #expect(Set(all.map(\.id)).count == 120)
        #expect(all.filter(\.skipNext).count == 24)
    }
}

@Suite struct StateFileTests {
    @Test func stateRoundTripsAndMissingIsNil() throws {
        let dir = try stateDirectory()
        let file = StateFile(stateDir: dir)
        #expect(try file.load() == nil)
        let s = EngineState(
            ring: .idle, marks: ["a": Date(timeIntervalSince1970: 1_800_000_000.123456)],
            processedThrough: Date(timeIntervalSince1970: 1_800_000_001.5))
        try file.save(s)
        #expect(try file.load() == s)
    }

    @Test func aCorruptStateIsReportedAndCanBeSetAside() throws {
        let dir = try stateDirectory()
        let file = StateFile(stateDir: dir)
        try Data("{\"ring\": {\"state\": \"dancing\"}}".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect {
            try file.load()
        } throws: { error in
            "\(error)".contains("state.json") && "\(error)".contains("unknown ring state 'dancing'")
        }
        let aside = try file.setAside()
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(try file.load() == nil)
    }
}

@Suite struct HistoryLogTests {
    func entry(_ id: String, _ seconds: Double, _ outcome: RingOutcome = .stopped) -> HistoryEntry {
        HistoryEntry(
            alarm: id, scheduled: Date(timeIntervalSince1970: seconds),
            started: Date(timeIntervalSince1970: seconds + 0.25),
            ended: Date(timeIntervalSince1970: seconds + 60), outcome: outcome, sound: "default", reason: nil,
            late: false,
            zone: Zone(identifier: "Europe/Berlin")!)
    }

    @Test func appendedEntriesReadBackAsJSONLines() throws {
        let dir = try stateDirectory()
        let log = HistoryLog(stateDir: dir)
        #expect(try log.read().entries.isEmpty)
        try log.append(entry("a", 1_800_000_000))
        try log.append(entry("b", 1_800_000_100, .missed))
        let (entries, unreadable) = try log.read()
        #expect(entries.map(\.alarm) == ["a", "b"])
        #expect(entries.map(\.outcome) == [.stopped, .missed])
        #expect(entries[0].started == Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(unreadable == 0)
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/history.jsonl")), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains("\"started\":\"2027-01-15T09:00:00.250+01:00\""))
    }

    @Test func aTornLastLineIsSkippedAndDoesNotSwallowTheNextEntry() throws {
        let dir = try stateDirectory()
        let log = HistoryLog(stateDir: dir)
        try log.append(entry("a", 1_800_000_000))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"alarm\":\"torn\",\"sched".utf8))
        try handle.close()
        try log.append(entry("b", 1_800_000_100))
        let (entries, unreadable) = try log.read()
        #expect(entries.map(\.alarm) == ["a", "b"])
        #expect(unreadable == 1)
    }

    @Test func theLogIsTrimmedToTheNewestEntries() throws {
        let log = HistoryLog(stateDir: try stateDirectory(), maxEntries: 5)
        for i in 0..<23 { try log.append(entry("e\(i)", 1_800_000_000 + Double(i))) }
        let entries = try log.read().entries
        #expect(entries.count <= 10 && entries.count >= 5)
        #expect(entries.last?.alarm == "e22")
        #expect(entries.map(\.alarm) == (23 - entries.count..<23).map { "e\($0)" })
    }
}

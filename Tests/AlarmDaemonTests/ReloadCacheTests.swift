import AlarmCore
import AlarmTestSupport
import Foundation
import Testing

@testable import AlarmDaemon
@testable import AlarmState

/// Issue #9: alarmd's reloads decode only the alarm objects whose bytes changed.
private func daily(_ id: String, _ time: String = "07:00") throws -> Alarm {
    Alarm(id: id, trigger: .calendar(try CalendarExpression(time)))
}

@Suite struct ReloadCacheTests {
    func write(_ alarms: [Alarm], _ store: AlarmStore) throws {
        try Data(try AlarmStore.encode(alarms)).write(to: URL(fileURLWithPath: store.path))
    }

    @Test func identicalObjectsAreReusedAndChangedOnesDecodedAnew() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        let cache = ReloadCache()
        let alarms = try (0..<50).map { try daily("a\($0)", "07:\(String($0 % 60).count == 1 ? "0" : "")\($0 % 60)") }
        try write(alarms, store)
        #expect(try cache.load(store) == alarms)
        #expect(cache.lastDecoded == 50)

        // One label edited, one alarm added: two objects decoded, 49 reused.
        var edited = alarms
        edited[7].label = "edited"
        edited.append(try daily("new", "09:00"))
        try write(edited, store)
        #expect(try cache.load(store) == edited)
        #expect(cache.lastDecoded == 2)

        // One removed in the middle, one inserted at the front: one decoded.
        var moved = edited
        moved.remove(at: 20)
        moved.insert(try daily("front", "05:00"), at: 0)
        try write(moved, store)
        #expect(try cache.load(store) == moved)
        #expect(cache.lastDecoded == 1)

        // Removed ones are dropped; moving objects around needs no decoding.
        let shuffled = Array(moved.dropFirst(10).reversed())
        try write(shuffled, store)
        #expect(try cache.load(store) == shuffled)
        #expect(cache.lastDecoded == 0)
        #expect(try cache.load(store) == store.load())
    }

    @Test func aCorruptFileIsRefusedAsTheStoreRefusesItAndTheMemoryIsKept() throws {
        let store = AlarmStore(stateDir: try stateDirectory())
        let cache = ReloadCache()
        let alarms = [try daily("a"), try daily("b", "08:00")]
        try write(alarms, store)
        #expect(try cache.load(store) == alarms)

        let text = String(decoding: try AlarmStore.encode(alarms), as: UTF8.self)
        for garbage in [
            text.replacing("}\n]", with: "}\n"),  // truncated
            text.replacing("\"b\"", with: "\"a\""),  // duplicate id
            text.replacing("08:00:00", with: "28:00:00"),  // bad time
            // Bytes after an object taken unread (identical to one of the last load) still count.
            text.replacing("},", with: "}},"),
            text.replacing("},", with: "} x,"),
            text.replacing("},", with: "}"),
            String(text.dropLast(12)),  // ends inside the second
        ] {
            try Data(garbage.utf8).write(to: URL(fileURLWithPath: store.path))
            var fromStore = ""
            do { _ = try store.load() } catch { fromStore = "\(error)" }
            var fromCache = ""
            do { _ = try cache.load(store) } catch { fromCache = "\(error)" }
            #expect(!fromStore.isEmpty && fromCache == fromStore)
            #expect(fromCache.contains("left as it is"))
        }
        // The memory of the last good load survived the refusals.
        try write(alarms, store)
        #expect(try cache.load(store) == alarms)
        #expect(cache.lastDecoded == 0)
    }

    @Test func noFileIsAnEmptyList() throws {
        let cache = ReloadCache()
        #expect(try cache.load(AlarmStore(stateDir: try stateDirectory())) == [])
    }
}

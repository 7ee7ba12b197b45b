import AlarmSystem
import Foundation
import Testing

@testable import AlarmDaemon

@Suite("WatchedFiles: one table of watched paths and what they are for")
struct WatchedFilesTests {
    @Test("a change names the roles of its path, in handling order; a replaced path's events are ignored")
    func rolesOfChangedPaths() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("watched-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Inotify()
        var watched = WatchedFiles()
        for (name, role) in [
            ("localtime", WatchedFiles.Role.zoneFile), ("alarms.json", .store), ("old-holidays", .holidays),
            ("Berlin", .zoneData), ("Berlin", .pinnedZone("Europe/Berlin")),
        ] {
            try files.watch(file: dir + "/" + name)
            watched.set(dir + "/" + name, for: role)
        }
        try files.watch(file: dir + "/holidays")
        watched.set(dir + "/holidays", for: .holidays)  // SIGHUP named another file

        for name in ["old-holidays", "holidays", "Berlin", "alarms.json", "localtime"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        #expect(
            watched.touched(by: try files.readEvents())
                == [.zoneFile, .zoneData, .pinnedZone("Europe/Berlin"), .store, .holidays])

        try Data("y".utf8).write(to: URL(fileURLWithPath: dir + "/old-holidays"))
        #expect(watched.touched(by: try files.readEvents()) == [])
        watched.set(nil, for: .zoneData)
        try Data("y".utf8).write(to: URL(fileURLWithPath: dir + "/Berlin"))
        #expect(watched.touched(by: try files.readEvents()) == [.pinnedZone("Europe/Berlin")])
    }
}

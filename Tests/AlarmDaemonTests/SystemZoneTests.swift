import AlarmDaemon
import Foundation
import Testing

@Suite("SystemZone: the zone named by the zone file")
struct SystemZoneTests {
    func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a Debian-style symlink into zoneinfo names the zone, and a swap is seen at once")
    func symlink() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let link = dir + "/localtime"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        var config = Configuration()
        config.localtimePath = link
        config.localtimeIsExplicit = true
        #expect(SystemZone.current(config, environment: ["TZ": "Asia/Tokyo"]).identifier == "Europe/Berlin")
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        #expect(SystemZone.current(config).identifier == "America/New_York")
    }

    @Test("a chain of links and a relative link still find the zone")
    func chain() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/zoneinfo/Australia", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/zoneinfo/Australia/Lord_Howe", withDestinationPath: "/usr/share/zoneinfo/Australia/Lord_Howe")
        try FileManager.default.createSymbolicLink(atPath: dir + "/middle", withDestinationPath: "zoneinfo/Australia/Lord_Howe")
        try FileManager.default.createSymbolicLink(atPath: dir + "/localtime", withDestinationPath: dir + "/middle")
        #expect(SystemZone.zone(named: dir + "/localtime")?.identifier == "Australia/Lord_Howe")
    }

    @Test("without an explicit zone file, TZ wins")
    func tz() {
        #expect(SystemZone.current(Configuration(), environment: ["TZ": "Pacific/Chatham"]).identifier == "Pacific/Chatham")
    }
}

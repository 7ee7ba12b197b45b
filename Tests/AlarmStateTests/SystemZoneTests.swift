import AlarmCore
import AlarmState
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
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        var config = Configuration()
        config.localtimePath = link
        config.localtimeIsExplicit = true
        #expect(SystemZone.current(config, environment: ["TZ": "Asia/Tokyo"]).identifier == "Europe/Berlin")
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        #expect(SystemZone.current(config).identifier == "America/New_York")
    }

    @Test("a chain of links and a relative link still find the zone")
    func chain() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/zoneinfo/Australia", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: dir + "/zoneinfo/Australia/Lord_Howe",
            withDestinationPath: "/usr/share/zoneinfo/Australia/Lord_Howe")
        try FileManager.default.createSymbolicLink(
            atPath: dir + "/middle", withDestinationPath: "zoneinfo/Australia/Lord_Howe")
        try FileManager.default.createSymbolicLink(atPath: dir + "/localtime", withDestinationPath: dir + "/middle")
        #expect(SystemZone.zone(named: dir + "/localtime")?.identifier == "Australia/Lord_Howe")
    }

    @Test("without an explicit zone file, TZ wins")
    func tz() {
        #expect(
            SystemZone.current(Configuration(), environment: ["TZ": "Pacific/Chatham"]).identifier == "Pacific/Chatham")
        #expect(
            SystemZone.current(Configuration(), environment: ["TZ": ":europe/berlin"]).identifier == "Europe/Berlin")
    }

    @Test("a copied (not linked) zone file is used with its own rules, even for a zone the database lacks")
    func copiedFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Lord Howe's file, with one byte of its footer changed so no database zone has these rules:
        // daylight time from the first Sunday of November instead of October.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Australia/Lord_Howe")))
        let footer = Array(",M10.1.0,M4.1.0".utf8)
        let at = try #require(
            (0...(bytes.count - footer.count)).last { bytes[$0..<$0 + footer.count].elementsEqual(footer) })
        bytes[at + 3] = UInt8(ascii: "1")  // M10 -> M11
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/localtime"))
        var config = Configuration()
        config.localtimePath = dir + "/localtime"
        config.localtimeIsExplicit = true
        let zone = SystemZone.current(config)
        #expect(zone.identifier == "localtime")
        let october2090 = Date(timeIntervalSince1970: 3_811_000_000)  // 2090-10-07, past the file's table
        #expect(zone.secondsFromGMT(for: october2090) == 37800, "still standard time: the copy's rule, not tzdata's")
        #expect(try Zones.zone(named: "Australia/Lord_Howe").secondsFromGMT(for: october2090) == 39600)
        // What the engine records by identifier resolves to the same rules in this process.
        #expect(Zone(identifier: "localtime") == zone)
    }

    @Test("TZ may be a POSIX rule or a zone file's path, as glibc reads it")
    func tzForms() throws {
        let rule = SystemZone.current(Configuration(), environment: ["TZ": "<+0530>-5:30"])
        #expect(rule.identifier == "<+0530>-5:30" && rule.secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == 19800)
        let dst = SystemZone.current(Configuration(), environment: ["TZ": "EST5EDT4,M3.2.0,M11.1.0"])
        #expect(dst.secondsFromGMT(for: Date(timeIntervalSince1970: 1_783_000_000)) == -14400)  // July 2026
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: dir + "/tokyo")
        let file = SystemZone.current(Configuration(), environment: ["TZ": ":" + dir + "/tokyo"])
        #expect(file.identifier == dir + "/tokyo" && file.secondsFromGMT(for: Date()) == 32400)
    }
}

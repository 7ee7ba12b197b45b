import Foundation
import Testing

@testable import AlarmCore

@Suite("ZoneDatabase: zones by name from a tz directory")
struct ZoneDatabaseTests {
    /// A temporary TZDIR holding the test zones, a zone.tab, posixrules, a localtime link and a
    /// right/ tree, as a real one has.
    func makeTree() throws -> String {
        let dir = try makeTempDir("tzdir")
        try zic(testZoneSource, into: dir)
        try Data("# zone.tab\nDE\t+5230+01322\tEurope/Berlin\n".utf8).write(to: URL(fileURLWithPath: dir + "/zone.tab"))
        try Data("# tzdata.zi\n".utf8).write(to: URL(fileURLWithPath: dir + "/tzdata.zi"))
        try FileManager.default.copyItem(atPath: dir + "/Test/Zone", toPath: dir + "/posixrules")
        try FileManager.default.createSymbolicLink(atPath: dir + "/localtime", withDestinationPath: "Test/Zone")
        try FileManager.default.createDirectory(atPath: dir + "/right/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/Test/Zone", toPath: dir + "/right/Test/Zone")
        try FileManager.default.createDirectory(atPath: dir + "/posix", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/posix/Test", withDestinationPath: "../Test")
        try FileManager.default.createSymbolicLink(atPath: dir + "/Alias", withDestinationPath: "Test/Fixed")
        return dir
    }

    @Test("a zone added under a temporary TZDIR is found by name, case-insensitively")
    func foundByName() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = ZoneDatabase.system(environment: ["TZDIR": dir])
        #expect(db.directory == dir)
        let z = try db.zone(named: "Test/Zone")
        #expect(z.identifier == "Test/Zone")
        #expect(z.offset(atUnix: unix("2026-07-01T00:00:00Z")) == 7200)
        #expect(try db.canonicalName("test/zone") == "Test/Zone")
        #expect(try db.zone(named: " TEST/ZONE ") == z)
        #expect(try db.zone(named: "alias").identifier == "Alias")
        #expect(try db.path(for: "test/fixed") == dir + "/Test/Fixed")
    }

    @Test("replacing a zone file is seen after invalidate(), and the zone then compares unequal")
    func replacedAfterInvalidate() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = ZoneDatabase(directory: dir)
        let before = try db.zone(named: "Test/Fixed")
        #expect(before.offset(atUnix: 0) == 7200)
        try zic("Zone Test/Fixed 3:00 - TZB\n", into: dir)
        #expect(try db.zone(named: "Test/Fixed") == before, "cached until invalidate()")
        db.invalidate()
        let after = try db.zone(named: "Test/Fixed")
        #expect(after.offset(atUnix: 0) == 10800)
        #expect(after.abbreviation(atUnix: 0) == "TZB")
        #expect(after != before)
        #expect(after.identifier == before.identifier)
    }

    @Test("paths out of the tree, non-zone files and the posix/right trees are unknown zones")
    func refused() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = ZoneDatabase(directory: dir)
        for name in [
            "", " ", "../\(URL(fileURLWithPath: dir).lastPathComponent)/Test/Zone", "Test/../Test/Zone",
            dir + "/Test/Zone",
            "/etc/localtime", "zone.tab", "tzdata.zi", "posixrules", "localtime", "right/Test/Zone", "posix/Test/Zone",
            "Test", "Test/", "Test//Zone", "./Test/Zone", "Test/Zone\0", "Nowhere/City", "Europe/Berlin",
        ] {
            #expect(throws: ZoneError.unknown(name), "'\(name)'") { try db.zone(named: name) }
        }
        #expect(
            "\(ZoneError.unknown("x"))"
                == "unknown time zone 'x': use an IANA name such as Europe/Berlin or America/New_York, or UTC")
    }

    @Test("identifiers() lists the TZif files only, without posix/, right/, posixrules and localtime")
    func identifiers() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(ZoneDatabase(directory: dir).identifiers() == ["Alias", "Test/Fixed", "Test/Zone"])
    }

    @Test("a damaged zone file is reported as unusable, with its path and what is wrong")
    func damaged() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try bytes(dir + "/Test/Zone")
        try Data(good[0..<100]).write(to: URL(fileURLWithPath: dir + "/Test/Broken"))
        do {
            _ = try ZoneDatabase(directory: dir).zone(named: "Test/Broken")
            Issue.record("must be refused")
        } catch let error as ZoneError {
            guard case .unusable(let name, let path, let reason) = error else { throw error }
            #expect(name == "Test/Broken" && path == dir + "/Test/Broken")
            #expect(reason.contains("truncated"))
            #expect("\(error)".contains("reinstall tzdata"))
        }
    }

    @Test("UTC and its aliases resolve in a tree that has no files at all")
    func utcWithoutFiles() throws {
        let dir = try makeTempDir("tzdir-empty")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = ZoneDatabase(directory: dir)
        #expect(try db.zone(named: "utc") == Zone.utc)
        for alias in ["Etc/UTC", "GMT", "zulu", "Universal"] {
            let z = try db.zone(named: alias)
            #expect(z.offset(atUnix: 1_800_000_000) == 0)
        }
        #expect(try db.canonicalName("etc/utc") == "Etc/UTC")
    }

    @Test("a copied zone file is read with its own rules, whatever the database says")
    func copiedFile() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: dir + "/Test/Zone", toPath: dir + "/copied")
        let z = try Zone(identifier: "localtime", contentsOfFile: dir + "/copied")
        #expect(z.identifier == "localtime")
        #expect(z.rules == (try ZoneDatabase(directory: dir).zone(named: "Test/Zone")).rules)
        #expect(throws: ZoneFileError.self) { try Zone(identifier: "x", contentsOfFile: dir + "/missing") }
        #expect(throws: TZifError.self) { try Zone(identifier: "x", contentsOfFile: dir + "/zone.tab") }
    }

    @Test("the system database knows the IANA names, spelled canonically")
    func systemNames() throws {
        #expect(try Zones.canonicalName("america/new_york") == "America/New_York")
        #expect(try Zones.zone(named: "US/Eastern").offset(atUnix: unix("2026-01-15T00:00:00Z")) == -18000)
        #expect(Zone(identifier: "Asia/Kolkata")?.offset(atUnix: 0) == 19800)
        #expect(Zone(identifier: "Mars/Olympus_Mons") == nil)
    }
}

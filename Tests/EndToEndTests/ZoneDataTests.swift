import Foundation
import Testing

/// alarmd reads zone rules from the tz database at run time (TZDIR), not from data compiled into
/// the binary: a zone that exists only in a temporary tree works, and an update of its file is
/// seen while the daemon runs.
@Suite("alarmd and the tz database (TZDIR)", .serialized)
struct ZoneDataTests {
    /// Compiles tz source with zic into `directory` (zic replaces the file under its name).
    func zic(_ source: String, into directory: String) throws {
        let file = directory + "/.source.zi"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/zic")
        p.arguments = ["-d", directory, file]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "zic failed")
    }

    /// A started alarmd whose TZDIR is a temporary tree compiled from `source`, with the system
    /// zone file linked to `systemZone` in it.
    func harness(source: String, systemZone: String) throws -> (DaemonHarness, String) {
        let h = try DaemonHarness()
        let tzdir = h.root + "/zoneinfo"
        try zic(source, into: tzdir)
        h.environment["TZDIR"] = tzdir
        try FileManager.default.removeItem(atPath: h.localtime)
        try FileManager.default.createSymbolicLink(atPath: h.localtime, withDestinationPath: tzdir + "/" + systemZone)
        try h.start()
        return (h, tzdir)
    }

    func nextAt(_ h: DaemonHarness) -> Date? {
        ((h.status()?["next"] as? [String: Any])?["at"] as? String).flatMap(parseRFC3339)
    }

    @Test("a tzdata update of the zone in force is seen at once: the next ring moves with the new rules")
    func tzdataUpdate() throws {
        let (h, tzdir) = try harness(source: "Zone Test/Shift 0:00 - TSA\n", systemZone: "Test/Shift")
        defer { h.shutdown() }
        #expect(h.log.contains("zone Test/Shift"), "\(h.log)")
        #expect(try h.cli("add", "12:00", "--id", "noon").status == 0)
        #expect(h.wait(10) { nextAt(h) != nil }, "\(h.log)")
        let before = try #require(nextAt(h))

        try zic("Zone Test/Shift 3:00 - TSB\n", into: tzdir)
        #expect(h.wait(3) { h.log.contains("the rules of the system zone Test/Shift changed") }, "\(h.log)")
        #expect(h.wait(2) { nextAt(h).map { $0 != before } == true }, "\(String(describing: h.status()))")
        let after = try #require(nextAt(h))
        // Noon at UTC+3 is 3 h earlier than noon at UTC+0 (or 21 h later, if that was today and passed).
        let shift = Int(before.timeIntervalSince(after).rounded())
        #expect((shift % 86_400 + 86_400) % 86_400 == 3 * 3600, "moved by \(shift) s")
        #expect(((h.status()?["next"] as? [String: Any])?["at"] as? String)?.hasSuffix("+03:00") == true)
    }

    @Test("a tzdata update of a zone an alarm is pinned to is seen within 2 s: the pinned alarm moves")
    func tzdataUpdateOfAPinnedZone() throws {
        let (h, tzdir) = try harness(
            source: "Zone Test/Home 0:00 - HOM\nZone Test/Pinned 0:00 - PNA\n", systemZone: "Test/Home")
        defer { h.shutdown() }
        #expect(try h.cli("add", "12:00", "--zone", "Test/Pinned", "--id", "pinned").status == 0)
        #expect(h.wait(10) { nextAt(h) != nil }, "\(h.log)")
        let before = try #require(nextAt(h))

        try zic("Zone Test/Pinned 3:00 - PNB\n", into: tzdir)
        #expect(h.wait(2) { nextAt(h).map { $0 != before } == true }, "\(String(describing: h.status())) \(h.log)")
        let after = try #require(nextAt(h))
        let shift = Int(before.timeIntervalSince(after).rounded())
        #expect((shift % 86_400 + 86_400) % 86_400 == 3 * 3600, "moved by \(shift) s")
        #expect(h.log.contains("the rules of Test/Pinned changed"), "\(h.log)")
    }
}

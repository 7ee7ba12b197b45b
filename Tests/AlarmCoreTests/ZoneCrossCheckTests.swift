import Foundation
import Testing

@testable import AlarmCore

/// Our zones against an independent reader of the same files: Python's `zoneinfo` (PEP 615),
/// which reads /usr/share/zoneinfo itself. Python computes in one process; Swift compares.
///
/// Wall time → instant uses PEP 495's `fold=0`, which is our policy: the first occurrence in an
/// overlap, and in a gap the offset from before the gap (the wall time moves forward by the
/// gap). The first test checks that claim on known cases before the big one relies on it.
@Suite("Zones cross-checked against Python's zoneinfo", .serialized)
struct ZoneCrossCheckTests {

    /// Runs python3 with `script` and the arguments; stdout is returned.
    static func python(_ script: String, _ arguments: [String]) throws -> String {
        let env = ProcessInfo.processInfo.environment.merging(["PYTHONTZPATH": ZoneDatabase.defaultDirectory]) { $1 }
        return try run("/usr/bin/env", ["python3", "-c", script] + arguments, environment: env)
    }

    @Test("Python's fold=0 is our gap/overlap policy on known cases")
    func policyOnKnownCases() throws {
        // zone, wall time, the instant our policy gives (and why).
        let cases: [(String, String, String)] = [
            ("America/New_York", "2026-03-08T02:30:00", "2026-03-08T07:30:00Z"),  // gap: 03:30 EDT
            ("America/New_York", "2026-11-01T01:30:00", "2026-11-01T05:30:00Z"),  // overlap: first, EDT
            ("Australia/Lord_Howe", "2026-10-04T02:15:00", "2026-10-03T15:45:00Z"),  // 30-min gap: 02:45
            ("Australia/Lord_Howe", "2026-04-05T01:45:00", "2026-04-04T14:45:00Z"),  // 30-min overlap: first
            ("Pacific/Apia", "2011-12-30T12:00:00", "2011-12-30T22:00:00Z"),  // the skipped day: +24 h
            ("Europe/Dublin", "2026-10-25T01:30:00", "2026-10-25T00:30:00Z"),  // negative DST overlap: IST first
            ("America/St_Johns", "2026-03-08T02:10:00", "2026-03-08T05:40:00Z"),  // gap at -03:30
        ]
        let script = """
            import sys, datetime, zoneinfo
            for arg in sys.argv[1:]:
                name, wall = arg.split('|')
                d = datetime.datetime.fromisoformat(wall).replace(tzinfo=zoneinfo.ZoneInfo(name), fold=0)
                print(int(d.timestamp()))
            """
        let out = try Self.python(script, cases.map { "\($0.0)|\($0.1)" }).split(separator: "\n").map { Int64($0)! }
        #expect(out.count == cases.count)
        for ((zone, wall, expected), py) in zip(cases, out) {
            let ours = Zones.instantSeconds(
                forLocal: CivilTime(localSeconds: unix(wall + "Z")).localSeconds, in: try Zones.zone(named: zone))
            #expect(py == unix(expected), "Python: \(zone) \(wall)")
            #expect(ours == unix(expected), "ours: \(zone) \(wall)")
        }
    }

    /// Deterministic pseudo-random numbers (SplitMix64), seeded per zone name.
    struct SplitMix {
        var generator: SplitMix64
        init(_ name: String) {
            generator = SplitMix64(
                state: name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 })
        }
        mutating func next(below n: Int64) -> Int64 { Int64(generator.next() % UInt64(n)) }
    }

    /// For one zone: UTC instants whose offsets are compared, and wall times (local seconds)
    /// whose instants are compared. Every transition from 1970 to 2100 ±1 s and ±1 h; around
    /// each, the wall times at both edges of its gap or overlap, its middle and an hour out;
    /// then random instants and wall times across the whole range.
    static func probes(_ zone: Zone) -> (instants: [Int64], walls: [Int64]) {
        let (lo, hi) = (Int64(0), unix("2100-01-01T00:00:00Z"))
        var instants: [Int64] = []
        var walls: [Int64] = []
        var t = lo
        while let next = zone.nextTransition(afterUnix: t), next < hi {
            instants += [next - 3600, next - 1, next, next + 1, next + 3600]
            let a = Int64(zone.offset(atUnix: next - 1))
            let b = Int64(zone.offset(atUnix: next))
            walls += [
                next + a - 1, next + a, next + b - 1, next + b, next + (a + b) / 2, next + min(a, b) - 3600,
                next + max(a, b) + 3600,
            ]
            t = next
        }
        var rng = SplitMix(zone.identifier)
        for _ in 0..<1000 { instants.append(lo + rng.next(below: hi - lo)) }
        for _ in 0..<500 { walls.append(lo + rng.next(below: hi - lo)) }
        return (instants, walls)
    }

    static let compute = """
        import sys, array, struct, datetime, zoneinfo
        assert sys.byteorder == 'little'
        data = open(sys.argv[1], 'rb').read()
        out = open(sys.argv[2], 'wb')
        naive_epoch = datetime.datetime(1970, 1, 1)
        fromtimestamp, timedelta = datetime.datetime.fromtimestamp, datetime.timedelta
        pos = 0
        while pos < len(data):
            n, = struct.unpack_from('<I', data, pos); pos += 4
            name = data[pos:pos + n].decode(); pos += n
            nu, nw = struct.unpack_from('<II', data, pos); pos += 8
            us = array.array('q'); us.frombytes(data[pos:pos + 8 * nu]); pos += 8 * nu
            ws = array.array('q'); ws.frombytes(data[pos:pos + 8 * nw]); pos += 8 * nw
            tz = zoneinfo.ZoneInfo(name)
            offsets = array.array('i', [int(fromtimestamp(t, tz).utcoffset().total_seconds()) for t in us])
            instants = array.array('q', [int((naive_epoch + timedelta(seconds=w)).replace(tzinfo=tz).timestamp()) for w in ws])
            out.write(offsets.tobytes()); out.write(instants.tobytes())
        """

    @Test("every zone of the system database agrees with Python's zoneinfo: offsets and wall times, 1970-2100")
    func everyZoneAgreesWithPython() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let db = ZoneDatabase()
        let ids = db.identifiers()
        let zones = try ids.map { try db.zone(named: $0) }
        let probes = zones.map(Self.probes)

        var input: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { input += $0 } }
        for (id, p) in zip(ids, probes) {
            put(UInt32(id.utf8.count))
            input += id.utf8
            put(UInt32(p.instants.count))
            put(UInt32(p.walls.count))
            for t in p.instants { put(t) }
            for w in p.walls { put(w) }
        }
        let dir = try makeTempDir("crosscheck")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(input).write(to: URL(fileURLWithPath: dir + "/in"))
        let generated = clock.now
        _ = try Self.python(Self.compute, [dir + "/in", dir + "/out"])
        let computed = clock.now
        let output = try bytes(dir + "/out")

        var at = 0
        func take<T: FixedWidthInteger>(_: T.Type) -> T {
            var v = T.zero
            withUnsafeMutableBytes(of: &v) { $0.copyBytes(from: output[at..<at + MemoryLayout<T>.size]) }
            at += MemoryLayout<T>.size
            return T(littleEndian: v)
        }
        var offsetDiffs: [String] = []
        var wallDiffs: [String] = []
        var instantCount = 0
        var wallCount = 0
        for (zone, p) in zip(zones, probes) {
            for t in p.instants {
                let py = Int(take(Int32.self))
                let ours = zone.offset(atUnix: t)
                if py != ours { offsetDiffs.append("\(zone) at \(t): ours \(ours), Python \(py)") }
            }
            for w in p.walls {
                let py = take(Int64.self)
                let ours = Zones.instantSeconds(forLocal: w, in: zone)
                if py != ours {
                    wallDiffs.append("\(zone) wall \(CivilTime(localSeconds: w)): ours \(ours), Python \(py)")
                }
            }
            instantCount += p.instants.count
            wallCount += p.walls.count
        }
        let compared = clock.now
        #expect(at == output.count, "Python wrote \(output.count) bytes, \(at) read")
        print(
            "cross-check: \(ids.count) zones, \(instantCount) UTC offsets + \(wallCount) wall times = \(instantCount + wallCount) "
                + "comparisons, \(offsetDiffs.count) + \(wallDiffs.count) differences; generate \(generated - started), "
                + "Python \(computed - generated), compare \(compared - computed)")
        #expect(ids.count > 400)
        #expect(instantCount + wallCount >= 1_000_000)
        #expect(offsetDiffs.isEmpty, "\(offsetDiffs.count) offsets differ, e.g. \(offsetDiffs.prefix(10))")
        #expect(wallDiffs.isEmpty, "\(wallDiffs.count) wall times differ, e.g. \(wallDiffs.prefix(10))")
        // The same names as Python's own listing of the tree.
        let listed = try Self.python("import zoneinfo\nprint('\\n'.join(sorted(zoneinfo.available_timezones())))", [])
        let pythonIDs = Set(listed.split(separator: "\n").map(String.init))
        #expect(
            pythonIDs.subtracting(ids) == ["localtime"] || pythonIDs.subtracting(ids).isEmpty,
            "\(pythonIDs.subtracting(ids))")
        #expect(Set(ids).subtracting(pythonIDs).isEmpty, "\(Set(ids).subtracting(pythonIDs))")
    }
}

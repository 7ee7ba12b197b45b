import AlarmState
import AlarmCore
import AlarmSystem
import FoundationEssentials

/// What alarmd read from the store last time, so that a reload after a one-alarm change decodes
/// one alarm, not ten thousand (issue #9).
///
/// The file is still read whole, and refused exactly as `AlarmStore.load()` refuses it (same
/// `StoreError`, running alarms kept by the caller). An object whose bytes are identical to an
/// object of the previous successful load is taken as that alarm without decoding: the same
/// bytes decode to the same alarm. When it is the next object of that load, in place, it is
/// not even scanned: its bytes were a whole valid object, so a scan would end where they end.
/// New and changed objects are decoded; objects no longer in the file are forgotten. A failed load leaves the
/// memory as it was.
///
/// Not thread-safe: the daemon's event loop is its only user.
public final class ReloadCache {
    /// Each object of the last good load in file order, braces included, and its alarm.
    private var previous: [(bytes: ArraySlice<UInt8>, alarm: Alarm)] = []
    /// How many objects the last load decoded (the rest were reused); for tests and logs.
    public private(set) var lastDecoded = 0

    public init() {}

    /// The store's alarms, as `store.load()` returns them, except that an empty alarms.json whose
    /// backup holds alarms throws, as a damaged one does: the daemon keeps the alarms it runs, or
    /// rings the backup when it runs none (`Daemon.loadAlarms`).
    public func load(_ store: AlarmStore) throws -> [Alarm] {
        try load(store.bytes(), path: store.path)
    }

    func load(_ bytes: [UInt8]?, path: String) throws -> [Alarm] {
        let previous = self.previous
        var next: [(bytes: ArraySlice<UInt8>, alarm: Alarm)] = []
        next.reserveCapacity(previous.count + 1)
        var decodedCount = 0
        // Objects are matched in file order first (an edit, an append or a removal leaves the
        // others in place), by content only when that fails (built then, once).
        var j = 0
        var byBytes: [ObjectBytes: Alarm]? = nil
        func reuse(_ slice: ArraySlice<UInt8>) -> Alarm? {
            for k in j..<min(j + 2, previous.count) where Self.same(previous[k].bytes, slice) {
                j = k + 1
                return previous[k].alarm
            }
            if j < previous.count {
                if byBytes == nil {
                    byBytes = Dictionary(
                        previous.map { (ObjectBytes($0.bytes), $0.alarm) }, uniquingKeysWith: { a, _ in a })
                }
                if let alarm = byBytes?[ObjectBytes(slice)] { return alarm }
            }
            decodedCount += 1
            return nil
        }
        // The next object of the previous load, when the bytes from here start with it: taken
        // without even scanning them (most of a reload's cost was scanning 10,000 objects).
        func known(_ rest: ArraySlice<UInt8>) -> (alarm: Alarm, length: Int)? {
            guard j < previous.count else { return nil }
            let old = previous[j].bytes
            guard rest.count >= old.count, Self.same(old, rest.prefix(old.count)) else { return nil }
            j += 1
            return (previous[j - 1].alarm, old.count)
        }
        let alarms = try AlarmStore.decode(bytes, path: path) { bytes throws(AlarmListProblem) in
            try AlarmListReader.decode(bytes, reuse: reuse, known: known, decoded: { next.append(($0, $1)) })
        }
        self.previous = next
        lastDecoded = bytes == nil ? 0 : decodedCount
        return alarms
    }

    /// Byte equality, eight bytes at a time.
    static func same(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                var k = 0
                while k + 8 <= x.count {
                    if x.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                        != y.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                    {
                        return false
                    }
                    k += 8
                }
                while k < x.count {
                    if x[k] != y[k] { return false }
                    k += 1
                }
                return true
            }
        }
    }
}

/// The bytes of one object of the store, hashed in one pass (an `ArraySlice`'s own hashing
/// feeds the hasher a byte at a time).
struct ObjectBytes: Hashable {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: ObjectBytes, b: ObjectBytes) -> Bool { ReloadCache.same(a.bytes, b.bytes) }
}

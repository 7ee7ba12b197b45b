import AlarmCore
import AlarmSystem
import Foundation

/// What alarmd read from the store last time, so that a reload after a one-alarm change decodes
/// one alarm, not ten thousand (issue #9).
///
/// The file is still read and scanned whole, so a malformed file is refused exactly as
/// `AlarmStore.load()` refuses it (same `StoreError`, running alarms kept by the caller). Only
/// the decoding of each alarm object is skipped when its bytes are identical to an object of
/// the previous successful load: the same bytes decode to the same alarm. New and changed
/// objects are decoded; objects no longer in the file are forgotten. A failed load leaves the
/// memory as it was.
///
/// Not thread-safe: the daemon's event loop is its only user.
public final class ReloadCache {
    /// Each object of the last good load, braces included, and what it decoded to.
    private var known: [ObjectBytes: Alarm] = [:]
    /// How many objects the last load decoded (the rest were reused); for tests and logs.
    public private(set) var lastDecoded = 0

    public init() {}

    /// The store's alarms, as `store.load()` returns them.
    public func load(_ store: AlarmStore) throws -> [Alarm] {
        try load(AtomicFile.read(store.path), path: store.path)
    }

    func load(_ bytes: [UInt8]?, path: String) throws -> [Alarm] {
        var next: [ObjectBytes: Alarm] = [:]
        var decodedCount = 0
        let previous = known
        let alarms = try AlarmStore.decode(bytes, path: path) { bytes throws(AlarmListProblem) in
            next.reserveCapacity(previous.count)
            return try AlarmListReader.decode(
                bytes,
                reuse: { slice in
                    if let alarm = previous[ObjectBytes(slice)] { return alarm }
                    decodedCount += 1
                    return nil
                },
                decoded: { slice, alarm in next[ObjectBytes(slice)] = alarm })
        }
        known = next
        lastDecoded = bytes == nil ? 0 : decodedCount
        return alarms
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

    static func == (a: ObjectBytes, b: ObjectBytes) -> Bool {
        a.bytes.count == b.bytes.count && a.bytes.elementsEqual(b.bytes)
    }
}

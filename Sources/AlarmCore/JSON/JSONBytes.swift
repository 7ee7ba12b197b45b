/// Where the JSON writers put their bytes: an `Array` (the store, state.json) or a `JSONBytes`
/// (`alarm list --json`, which hands its output on in chunks).
public protocol ByteSink: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension ByteSink where Self: ~Copyable {
    /// The bytes of a literal, copied in one go.
    @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string's UTF-8, copied in one go.
    @inline(__always)
    public mutating func append(utf8 text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
            for b in text.utf8 { append(b) }
        }
    }
}

extension Array: ByteSink where Element == UInt8 {
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }
}

/// A growable byte buffer written through a pointer. Appending a byte is a store and an
/// increment: an `Array` checks on each append that its storage is not shared, which in the
/// alarm list writer cost more than the bytes themselves (issue #29).
public struct JSONBytes: ~Copyable, ByteSink {
    private var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    private var capacity: Int

    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes so far; valid until the next change.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes, keeps the memory (already touched, so the next chunk costs no page faults).
    public mutating func removeAll() { count = 0 }

    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if capacity - count < bytes.count { grow(bytes.count) }
        if let from = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: from, byteCount: bytes.count)
        }
        count += bytes.count
    }

    @inline(never)
    private mutating func grow(_ needed: Int) {
        capacity = max(capacity * 2, count + needed)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        UnsafeMutableRawPointer(bigger).copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = bigger
    }
}

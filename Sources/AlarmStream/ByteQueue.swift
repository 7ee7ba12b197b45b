import AlarmSystem
import FoundationEssentials

/// The bytes of one stream on their way from the fetching thread (libcurl's callbacks) to the
/// decoding thread (the decoders' read callbacks), with what the fetch found out on the way: the
/// URL actually played and its content type, ICY titles, and why it ended. Bounded: the fetcher
/// waits while `capacity` bytes are unread (a stream is real time; the client reads in real time).
final class ByteQueue: @unchecked Sendable {
    struct Start {
        var url: String
        var contentType: String?
    }

    private let condition = Condition()
    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var start: Start?
    private var titles: [String] = []
    /// Set once: why no more bytes will come (the fetch's error, "the stream ended").
    private var endReason: String?
    /// Set once by the reading side: it wants no more (decoder failed, client gone).
    private var abandoned = false
    let capacity: Int

    init(capacity: Int = 1 << 20) { self.capacity = capacity }

    // MARK: the fetching side

    /// The response that will be streamed (after redirects and playlists).
    func started(url: String, contentType: String?) {
        condition.lock()
        start = Start(url: url, contentType: contentType)
        condition.broadcast()
        condition.unlock()
    }

    /// Appends bytes, waiting while the queue is full; false when the reader abandoned the stream.
    func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !abandoned && buffer.count - readOffset >= capacity { condition.wait() }
        if abandoned { return false }
        if readOffset > 0 && readOffset >= buffer.count / 2 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        buffer.append(contentsOf: bytes)
        condition.broadcast()
        return true
    }

    func title(_ title: String) {
        condition.lock()
        titles.append(title)
        condition.unlock()
    }

    /// No more bytes: `reason` says why (sent to the client as the `E`).
    func finish(_ reason: String) {
        condition.lock()
        if endReason == nil { endReason = reason }
        condition.broadcast()
        condition.unlock()
    }

    var isAbandoned: Bool {
        condition.lock()
        defer { condition.unlock() }
        return abandoned
    }

    // MARK: the reading side

    /// Waits for the start of the stream; nil when it ended before (its reason in `endReason`).
    func waitForStart() -> Start? {
        condition.lock()
        defer { condition.unlock() }
        while start == nil && endReason == nil { condition.wait() }
        return start
    }

    /// Copies up to `count` bytes into `into`, waiting for at least one; 0 at the end.
    func read(into: UnsafeMutableRawPointer, count: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while readOffset == buffer.count && endReason == nil && !abandoned { condition.wait() }
        let n = min(count, buffer.count - readOffset)
        if n > 0 {
            buffer.withUnsafeBytes { into.copyMemory(from: $0.baseAddress! + readOffset, byteCount: n) }
            readOffset += n
            condition.broadcast()
        }
        return n
    }

    /// The unread bytes so far, without taking them (for sniffing), after waiting until there are
    /// more than `count` of them or the stream ended.
    func peek(moreThan count: Int) -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        while buffer.count - readOffset <= count && endReason == nil && !abandoned { condition.wait() }
        return Array(buffer[readOffset...])
    }

    func takeTitles() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        let t = titles
        titles.removeAll()
        return t
    }

    /// Why the stream ended, once it has and every byte was read.
    var endReasonIfDrained: String? {
        condition.lock()
        defer { condition.unlock() }
        return readOffset == buffer.count ? endReason : nil
    }

    var finishedReason: String? {
        condition.lock()
        defer { condition.unlock() }
        return endReason
    }

    /// The reader wants no more: the fetcher stops at its next callback.
    func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }
}

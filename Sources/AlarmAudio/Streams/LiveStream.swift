import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One stream for one ring (issue #43): a reader thread connects to alarm-stream's socket, sends
/// the request, and puts the decoded audio into a buffer the player's device thread takes from
/// without ever waiting on the socket. The reader judges the stream: no audio within `timeout`
/// of connecting, or a gap that long between two audio frames, an `E` frame, the connection
/// closed or refused, a frame that breaks the wire, or a second header with another format (the
/// audio after it is not played: the format would need a new device open; the fallback plays
/// instead) fail it, once, with a reason that names the URL. A failed stream stays failed; the
/// next ring makes a new one.
///
/// Thread-safety: every method may be called from any thread.
public final class LiveStream: @unchecked Sendable {
    public let url: String
    public let socketPath: String
    public let timeout: Double
    /// How much audio is gathered before it plays, and again after the buffer ran dry: a little
    /// slack against the network's jitter, and the margin by which a stalled stream's silence
    /// stays shorter than `timeout`.
    public let prebufferSeconds: Double
    /// At most this much audio is held; older audio is dropped (a server that sends ahead).
    public let maxBufferSeconds = 20.0

    private let lock = Condition()
    private var format: StreamWire.Format?
    private var failure: String?
    private var stopped = false
    private var samples: [Float] = []
    private var readIndex = 0
    private var primed = false
    private var fallbackClaimed = false
    private var connection: UnixStreamConnection?
    private var started = false

    public init(url: String, socketPath: String, timeout: Double, prebufferSeconds: Double = 0.5) {
        self.url = url
        self.socketPath = socketPath
        self.timeout = timeout
        self.prebufferSeconds = min(prebufferSeconds, timeout / 4)
    }

    /// Starts the reader thread (once).
    public func start() {
        let first: Bool = locked {
            defer { started = true }
            return !started
        }
        guard first else { return }
        startThread(named: "alarm-stream-in") { [self] in read() }
    }

    /// Closes the connection (alarm-stream stops fetching); the reader thread ends.
    public func stop() {
        lock.lock()
        stopped = true
        let c = connection
        lock.broadcast()
        lock.unlock()
        c?.shutDown()
    }

    /// The stream's format once its header came; nil before.
    public var currentFormat: StreamWire.Format? { locked { format } }

    /// Why the stream failed (it names the URL); nil while it plays or may yet.
    public var failureReason: String? { locked { failure } }

    public enum Readiness: Equatable, Sendable {
        case format(StreamWire.Format)
        case failed(String)
        case stopped
    }

    /// Waits (at most `limit`) until the header came or the stream failed. `.stopped` when
    /// `stop()` was called or the time passed first.
    public func waitForFormat(limit: Duration, stopping: @Sendable () -> Bool = { false }) -> Readiness {
        let deadline = ContinuousClock.now + limit
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let failure { return .failed(failure) }
            if let format { return .format(format) }
            if stopped || ContinuousClock.now >= deadline { return .stopped }
            lock.unlock()
            let stop = stopping()
            lock.lock()
            if stop { return .stopped }
            _ = lock.wait(for: .milliseconds(50))
        }
    }

    /// Seconds of audio waiting in the buffer.
    public var bufferedSeconds: Double {
        locked {
            guard let format else { return 0 }
            return Double(samples.count - readIndex) / Double(format.channels * format.rate)
        }
    }

    /// The device thread's side: up to `frames` frames into `out` (interleaved, the header's
    /// channels); what is missing is silence. Never waits on the socket.
    func take(into out: inout [Float], frames: Int) {
        lock.lock()
        defer { lock.unlock() }
        let ch = format?.channels ?? 1
        let wanted = frames * ch
        if out.count < wanted { out = [Float](repeating: 0, count: wanted) }
        let available = samples.count - readIndex
        if !primed, let format, Double(available) >= prebufferSeconds * Double(format.rate * ch) {
            primed = true
        }
        var n = 0
        if primed {
            n = min(wanted, available)
            for i in 0..<n { out[i] = samples[readIndex + i] }
            readIndex += n
            if n < wanted { primed = false }  // ran dry: gather again
        }
        for i in n..<wanted { out[i] = 0 }
        if readIndex > 0 && readIndex * 2 >= samples.count && readIndex >= 48_000 {
            samples.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// True once, for the first caller after the stream failed: who reports the fallback.
    func claimFallback() -> Bool {
        locked {
            guard failure != nil, !fallbackClaimed else { return false }
            fallbackClaimed = true
            return true
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func fail(_ why: String) {
        lock.lock()
        if failure == nil && !stopped { failure = "stream \(url): \(why)" }
        lock.broadcast()
        lock.unlock()
    }

    private static func seconds(_ t: Double) -> String {
        t == t.rounded() ? "\(Int(t)) s" : Text.fixed(t, 1) + " s"
    }

    // MARK: The reader thread

    private func read() {
        let begun = ContinuousClock.now
        let conn: UnixStreamConnection
        do throws(SystemError) { conn = try UnixStreamConnection.connect(path: socketPath) } catch {
            let missing = error.errno == ENOENT || error.errno == ECONNREFUSED
            fail(
                missing
                    ? "alarm-stream is not running (nothing listens on \(socketPath): is alarm-stream.socket running?)"
                    : "cannot reach alarm-stream: \(error)")
            return
        }
        let proceed: Bool = locked {
            guard !stopped else { return false }
            connection = conn
            return true
        }
        defer {
            locked { connection = nil }
            conn.close()
        }
        guard proceed else { return }
        do throws(SystemError) { try conn.send(StreamWire.request(url: url)) } catch {
            fail("alarm-stream closed the connection before the request was sent (\(error))")
            return
        }
        var parser = StreamWire.Parser()
        var bytes = [UInt8](repeating: 0, count: 65_536)
        var lastAudio: ContinuousClock.Instant? = nil
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        while true {
            if locked({ stopped || failure != nil }) { return }
            let now = ContinuousClock.now
            let due = (lastAudio ?? begun) + limit
            if now >= due {
                fail(
                    lastAudio == nil
                        ? "no audio within \(Self.seconds(timeout))" : "no audio for \(Self.seconds(timeout))")
                return
            }
            let wait = min(due - now, .milliseconds(100))
            let ms = Int32(max(1, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            let n: Int
            do throws(SystemError) {
                guard try conn.waitReadable(milliseconds: ms) else { continue }
                n = try conn.read(into: &bytes)
            } catch {
                if locked({ stopped }) { return }
                fail("reading from alarm-stream failed: \(error)")
                return
            }
            if n == 0 {
                if locked({ stopped }) { return }
                fail("alarm-stream closed the connection without a word")
                return
            }
            let frames: [StreamWire.Frame]
            do throws(StreamWire.Garbage) { frames = try parser.feed(bytes[0..<n]) } catch {
                fail("alarm-stream sent what the wire does not have: \(error)")
                return
            }
            for frame in frames {
                switch frame {
                case .header(let f):
                    let changed: StreamWire.Format? = locked {
                        if let old = format, old.rate != f.rate || old.channels != f.channels { return old }
                        if format == nil { format = f }
                        lock.broadcast()
                        return nil
                    }
                    if let old = changed {
                        fail(
                            "the stream's format changed from \(old.rate) Hz, \(old.channels) ch to \(f.rate) Hz, \(f.channels) ch"
                        )
                        return
                    }
                case .audio(let s):
                    lastAudio = .now
                    append(s)
                case .metadata: break
                case .error(let e):
                    fail(e.hasPrefix(url) ? String(e.dropFirst(url.count)).trimmingPrefix(": ") : e)
                    return
                }
            }
        }
    }

    private func append(_ s: [Float]) {
        lock.lock()
        defer { lock.unlock() }
        samples.append(contentsOf: s)
        if let format {
            let cap = Int(maxBufferSeconds) * format.rate * format.channels
            let held = samples.count - readIndex
            if held > cap { readIndex += (held - cap) / format.channels * format.channels }
        }
        if readIndex > 0 && readIndex * 2 >= samples.count && readIndex >= 48_000 {
            samples.removeFirst(readIndex)
            readIndex = 0
        }
    }
}

extension String {
    fileprivate func trimmingPrefix(_ p: String) -> String { hasPrefix(p) ? String(dropFirst(p.count)) : self }
}

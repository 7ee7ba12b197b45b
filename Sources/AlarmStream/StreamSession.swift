import AlarmSystem
import FoundationEssentials
import Glibc

/// One client's stream: its request, the fetch (a thread of its own) and the decoding (this
/// thread), the frames written back, and the `E` that ends them. Returns when the stream ended,
/// failed, or the client went away; the fetch has stopped by then.
public struct StreamSession {
    public let input: Int32
    public let output: Int32
    /// Stop after this much audio (`--url ... --seconds N`); nil: until the stream or client ends.
    public var audioLimit: Double?

    /// A connection: requests on `fd` and frames back on it.
    public init(connection fd: Int32) {
        input = fd
        output = fd
    }

    public init(input: Int32, output: Int32, audioLimit: Double?) {
        self.input = input
        self.output = output
        self.audioLimit = audioLimit
    }

    /// Reads the request line and serves it; then lets the client read the last frame.
    public func run() {
        defer { finish() }
        let line: [UInt8]
        switch readRequestLine() {
        case .success(let l): line = l
        case .failure(let problem):
            _ = send(StreamWire.error(problem.description))
            return
        }
        do throws(StreamRequestError) {
            let request = try StreamRequest.parse(line)
            serve(request)
        } catch {
            _ = send(StreamWire.error(error.description))
        }
    }

    /// The end of a connection: no more from us (shutdown), then what the client still sends is
    /// read and dropped until it closes (at most `lingerSeconds`). Closing with unread bytes
    /// (a request line too long, bytes after it) would reset the connection, and the client
    /// could lose the `E` frame it has not read yet.
    private func finish() {
        shutdown(output, Int32(SHUT_WR))
        let deadline = Date().addingTimeInterval(Self.lingerSeconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return }
            var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(left * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { return }
            let n = scratch.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
        }
    }

    static let lingerSeconds = 2.0

    /// Serves `request`: fetches on another thread, decodes and writes frames here.
    public func serve(_ request: StreamRequest) {
        let queue = ByteQueue()
        let client = input
        let fetched = Latch()
        startThread(named: "fetch") {
            StreamFetcher(queue: queue, shouldStop: { StreamSession.hungUp(client) }).run(url: request.url)
            fetched.open()
        }
        if let message = decode(queue) { _ = send(StreamWire.error(message)) }
        // The fetcher polls the connection: it must be done before the caller closes it.
        queue.abandon()
        fetched.wait()
    }

    /// Decodes what the queue brings and sends it; the `E` to send last, nil when the client is gone.
    private func decode(_ queue: ByteQueue) -> String? {
        guard let start = queue.waitForStart() else {
            return queue.finishedReason ?? "the stream failed before it began"
        }
        // Sniff: the codec from the first bytes.
        var seen = 0
        var codec: StreamFormat.Codec?
        while codec == nil {
            let bytes = queue.peek(moreThan: seen)
            switch StreamSniffer.sniff(bytes, contentType: start.contentType) {
            case .codec(let c): codec = c
            case .unknown(let why): return "\(start.url): \(why)"
            case .needMore:
                if bytes.count <= seen {
                    // The stream ended (or the client left) before its kind could be told.
                    if queue.isAbandoned { return nil }
                    let ending = queue.finishedReason.map { " (\($0))" } ?? ""
                    return bytes.isEmpty
                        ? "\(start.url): no audio before the stream ended\(ending)"
                        : "\(start.url): \(bytes.count) bytes that are not an MP3, Ogg Vorbis or Ogg Opus stream\(ending)"
                }
                seen = bytes.count
            }
        }
        var current: StreamFormat?
        var lastTitle = ""
        var clientGone = false
        var audioSeconds = 0.0
        let limit = audioLimit
        do throws(DecodeError) {
            try Decoders.make(codec!).run(queue) { format, samples in
                // A title only when it changes (Icecast repeats it, empty before the source sets one).
                for title in queue.takeTitles() where title != lastTitle {
                    lastTitle = title
                    if !send(StreamWire.metadata(title: title)) {
                        clientGone = true
                        return false
                    }
                }
                if format != current {
                    current = format
                    if !send(StreamWire.header(format, url: start.url)) {
                        clientGone = true
                        return false
                    }
                }
                for frame in StreamWire.audio(samples, channels: format.channels) where !send(frame) {
                    clientGone = true
                    return false
                }
                audioSeconds += Double(samples.count / format.channels) / Double(format.rate)
                if let limit, audioSeconds >= limit { return false }
                return true
            }
        } catch {
            queue.abandon()
            return "\(start.url): \(error.description)"
        }
        if clientGone { return nil }
        if let limit, audioSeconds >= limit { return "\(start.url): \(limit) s of audio sent (--seconds)" }
        queue.abandon()
        return queue.finishedReason ?? "\(start.url): the stream ended"
    }

    /// Writes all of `bytes`; false when the client is gone.
    private func send(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(output, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == ENOTSOCK {
                let w = bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + done, bytes.count - done) }
                if w < 0 && errno == EINTR { continue }
                if w <= 0 { return false }
                done += w
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    enum RequestLineProblem: Error, CustomStringConvertible {
        case tooLong, closed, timedOut
        case failed(Int32)
        var description: String {
            switch self {
            case .tooLong: return "the request line is longer than \(StreamWire.maximumRequestLength) bytes"
            case .closed: return "the connection closed before a whole request line"
            case .timedOut: return "no request line within \(StreamSession.requestTimeout) s"
            case .failed(let e): return "reading the request failed: \(String(cString: strerror(e)))"
            }
        }
    }

    static let requestTimeout = 10
    /// POLLRDHUP (Linux, every architecture): Glibc declares it only under _GNU_SOURCE.
    static let pollReadHangUp: Int16 = 0x2000

    /// The bytes before the first "\n", read one at a time (nothing after it is consumed).
    private func readRequestLine() -> Result<[UInt8], RequestLineProblem> {
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(TimeInterval(Self.requestTimeout))
        while true {
            var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            let r = poll(&p, 1, left)
            if r < 0 {
                if errno == EINTR { continue }
                return .failure(.failed(errno))
            }
            if r == 0 { return .failure(.timedOut) }
            var byte: UInt8 = 0
            let n = read(input, &byte, 1)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(.failed(errno))
            }
            if n == 0 { return .failure(.closed) }
            if byte == UInt8(ascii: "\n") { return .success(line) }
            line.append(byte)
            if line.count >= StreamWire.maximumRequestLength { return .failure(.tooLong) }
        }
    }

    /// True when the client has closed its end (or the connection broke).
    static func hungUp(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: pollReadHangUp, revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        return p.revents & (pollReadHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }
}

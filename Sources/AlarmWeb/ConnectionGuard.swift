import AlarmCore
import AlarmWebAuth
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// How long a client may take, and how many connections it may hold: what keeps a device on the
/// network from silencing alarm-web by holding its connections (slow headers, idle sockets,
/// slow bodies). Every connection waits on SwiftNIO's event loops, costing a socket and a few
/// hundred bytes, never a thread.
public struct ConnectionLimits: Sendable {
    /// From connecting, or from the end of the last answer on a kept-alive connection, until
    /// the first byte of a request.
    public var idle: TimeAmount = .seconds(10)
    /// From a connection's first byte until its request head is complete.
    public var head: TimeAmount = .seconds(5)
    /// From the request head until the end of its body.
    public var body: TimeAmount = .seconds(10)
    /// Open connections from one client address; one more is closed at once, unread.
    public var perAddress = 16
    /// Open connections in all; at the limit the server stops accepting until one closes.
    public var total = 512
    /// A request head larger than this is refused (400).
    public var maximumHead = 16 * 1024

    public init() {}
}

/// The open connections per client address, shared by the event loops.
final class ConnectionTable: @unchecked Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let perAddress: Int

    init(perAddress: Int) { self.perAddress = perAddress }

    /// False, counting nothing, when `address` already has `perAddress` connections.
    func enter(_ address: String) -> Bool {
        counts.withLock { counts in
            let n = counts[address, default: 0]
            guard n < perAddress else { return false }
            counts[address] = n + 1
            return true
        }
    }

    func leave(_ address: String) {
        counts.withLock { counts in
            let n = counts[address, default: 1] - 1
            counts[address] = n > 0 ? n : nil
        }
    }
}

/// The total cap, as Hummingbird asks for it: the server channel stops accepting at `total`
/// open connections (they wait in the kernel's backlog, unread), and the first refusal in a
/// minute is logged.
struct TotalConnections: AvailableConnectionsDelegate {
    let total: Int
    let refusals: SharedRefusalLog
    var open = 0

    mutating func connectionOpened() { open += 1 }
    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool {
        guard open < total else {
            refusals.refused("any address", "\(total) connections are open: not accepting more until one closes")
            return false
        }
        return true
    }
}

/// What `ConnectionGuard` and its byte watcher share: one connection's, on its event loop.
final class ConnectionState {
    /// Bytes of a request arrived since the connection opened or the last answer ended.
    var bytesSinceAnswer = false
    /// The current request's head so far, up to its end (for telling an unknown transfer
    /// coding, 501, from other malformed requests, 400, when the parser refuses one).
    var headText: [UInt8] = []
    var headComplete = false
}

/// At the front of a connection's pipeline: sees the raw bytes, to start the head deadline at
/// the first byte of a request.
final class RequestBytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let state: ConnectionState
    let firstByte: () -> Void

    init(state: ConnectionState, firstByte: @escaping () -> Void) {
        self.state = state
        self.firstByte = firstByte
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if buffer.readableBytes > 0 {
            if !state.bytesSinceAnswer {
                state.bytesSinceAnswer = true
                firstByte()
            }
            if !state.headComplete && state.headText.count < 16 * 1024 {
                state.headText += buffer.readableBytesView.prefix(16 * 1024 - state.headText.count)
            }
        }
        context.fireChannelRead(data)
    }
}

/// One per connection, after HTTP decoding: enforces the deadlines,
/// answers a request the parser refused with a JSON error and closes, and closes a connection
/// after an answer that says `Connection: close` (413, refusals) instead of reading on for a
/// client that was refused.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let limits: ConnectionLimits
    let refusals: SharedRefusalLog
    let state = ConnectionState()
    private var address = "unknown"
    private var started = false
    private var closing = false
    private var requestOpen = false
    private var closeAfterAnswer = false
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, refusals: SharedRefusalLog) {
        self.limits = limits
        self.refusals = refusals
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let watcher = RequestBytesWatcher(state: state) {
            let (guardHandler, context) = loopBound.value
            guardHandler.requestStarted(context: context)
        }
        try? context.pipeline.syncOperations.addHandler(watcher, position: .first)
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        address = context.channel.remoteAddress?.ipAddress.map(HostPolicy.normalized) ?? "unknown"
        arm(
            context: context, after: limits.idle,
            reason: "sent no request within \(limits.idle.seconds) s of connecting")
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// The first byte of a request: its head must be complete within `limits.head`.
    func requestStarted(context: ChannelHandlerContext) {
        guard !closing else { return }
        arm(context: context, after: limits.head, reason: "request head not complete within \(limits.head.seconds) s")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head:
            state.headComplete = true
            requestOpen = true
            arm(
                context: context, after: limits.body,
                reason: "request body not complete within \(limits.body.seconds) s")
        case .body:
            break
        case .end:
            requestOpen = false
            // The answer is being made (alarm-web may wait up to 10 s for alarmd): no deadline.
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case .head(let response):
            if response.headerFields[.connection]?.lowercased() == "close" { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            if closeAfterAnswer {
                writeThenClose(context: context, data, promise: promise)
                return
            }
            context.write(data, promise: promise)
            state.bytesSinceAnswer = false
            state.headText = []
            state.headComplete = false
            // A kept-alive connection waits for its next request; one whose body is still
            // coming (answered early) keeps the body deadline.
            if !requestOpen { arm(context: context, after: limits.idle, reason: nil) }
        }
    }

    /// A request the HTTP parser refused: a JSON error like every other, then the connection
    /// closes (nothing after a malformed request can be trusted to be a request).
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !closing else { return }
        if case .invalidEOFState = parse, requestOpen {
            // The client stopped sending mid-request (half-closed): the request being answered
            // (a 413 for a body declared too large) is answered, then the connection closes.
            closeAfterAnswer = true
            arm(context: context, after: .seconds(2), reason: "the client stopped sending mid-request")
            return
        }
        let (status, message) = Self.answer(to: parse, headText: state.headText, limits: limits)
        refusals.refused(address, "malformed request (\(status))", detail: message)
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.connection] = "close"
        let body = WebResponse.error(status, message).body
        fields[.contentLength] = String(body.count)
        for (name, value) in WebAPI.securityHeaders { if let n = HTTPField.Name(name) { fields[n] = value } }
        closeAfterAnswer = true
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: .init(code: status), headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        writeThenClose(context: context, wrapOutboundOut(.end(nil)), promise: nil)
    }

    static func answer(to error: HTTPParserError, headText: [UInt8], limits: ConnectionLimits) -> (Int, String) {
        switch error {
        case .headerOverflow:
            return (400, "the request head is over \(limits.maximumHead / 1024) KiB")
        case .invalidVersion:
            return (400, "not an HTTP/1.x request")
        case .invalidContentLength, .unexpectedContentLength:
            return (400, "a malformed or repeated Content-Length")
        case .invalidChunkSize:
            return (400, "a malformed chunk size")
        case .unknown where Self.hasUnknownTransferCoding(headText):
            return (501, "only the chunked transfer coding is understood")
        default:
            return (400, "a malformed request (\(error))")
        }
    }

    /// True when the head has a Transfer-Encoding other than `chunked` (and no Content-Length,
    /// which would make it a smuggling shape: 400).
    static func hasUnknownTransferCoding(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        let lines = text.split(separator: "\r\n").prefix { !$0.isEmpty }
        var codings: [String] = []
        for line in lines {
            if line.hasPrefix("content-length:") { return false }
            if line.hasPrefix("transfer-encoding:") {
                codings += line.dropFirst("transfer-encoding:".count).split(separator: ",").map { $0.trimmingBlanks() }
            }
        }
        return !codings.isEmpty && codings.contains { $0 != "chunked" }
    }

    private func writeThenClose(context: ChannelHandlerContext, _ data: NIOAny, promise: EventLoopPromise<Void>?) {
        closing = true
        timer?.cancel()
        timer = nil
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { result in
            promise?.completeWith(result)
            context.close(promise: nil)
        }
    }

    /// One deadline at a time: when it passes the connection closes, and (for `reason`) the
    /// refusal is logged. Nil reason: a kept-alive connection nobody uses, closed quietly.
    private func arm(context: ChannelHandlerContext, after delay: TimeAmount, reason: String?) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            guard !closing else { return }
            closing = true
            timer = nil
            if let reason { refusals.refused(address, "timed out: \(reason)") }
            context.close(promise: nil)
        }
    }
}

extension TimeAmount {
    var seconds: Int64 { nanoseconds / 1_000_000_000 }
}

/// Hummingbird's HTTP/1.1 child channel behind the per-address cap. A connection over the cap
/// is closed on its event loop before any HTTP handler, buffer or Swift task is made for it:
/// an attacker reopening a thousand refused connections a second then costs the server a
/// close each, and the owner's requests do not queue behind their setup (0.3 to 0.4 s a
/// burst when the cap was checked inside the HTTP pipeline).
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let table: ConnectionTable
    let refusals: SharedRefusalLog

    /// Why `setup` fails for a connection it closed (Hummingbird then starts nothing for it).
    struct Refused: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress.map(HostPolicy.normalized) ?? "unknown"
        guard table.enter(address) else {
            refusals.refused(address, "more than \(table.perAddress) connections from this address: closed unread")
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        channel.closeFuture.whenComplete { _ in table.leave(address) }
        return http1.setup(channel: channel, logger: logger).flatMapErrorThrowing { error in
            channel.close(promise: nil)
            throw error
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

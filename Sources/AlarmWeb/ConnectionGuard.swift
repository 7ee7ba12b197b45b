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
/// slow bodies, answers it never reads). Every connection waits on SwiftNIO's event loops,
/// costing a socket and a few hundred bytes, never a thread.
public struct ConnectionLimits: Sendable {
    /// From connecting, or from the end of the last answer on a kept-alive connection, until
    /// the first byte of a request; shorter as the server fills (`ConnectionRegistry.idleTimeout`).
    public var idle: TimeAmount = .seconds(10)
    /// From a connection's first byte until its request head is complete.
    public var head: TimeAmount = .seconds(5)
    /// From the request head until the end of its body.
    public var body: TimeAmount = .seconds(10)
    /// From the start of an answer until all of it is handed to the kernel: a client that does
    /// not read its answers is closed then.
    public var write: TimeAmount = .seconds(10)
    /// Bytes of answers one connection may have waiting in alarm-web (the socket's own buffer
    /// is `sendBuffer`) when another answer starts: past it, the connection closes. One answer
    /// is never cut short for its size (a long alarm list).
    public var maximumUnsent = 64 * 1024
    /// The kernel's send buffer of each connection (SO_SNDBUF): what a client that does not
    /// read can make the kernel hold for it (the default grows to megabytes).
    public var sendBuffer = 64 * 1024
    /// Requests one connection may send ahead of their answers (HTTP/1.1 pipelining; browsers
    /// send one at a time): one more closes it.
    public var maximumPipelined = 8
    /// Open connections from one client address (IPv6: one /64); one more is closed at once,
    /// unread.
    public var perAddress = 16
    /// Open connections in all; at the limit the one that has waited longest for a request is
    /// closed to make room for a new one (`ConnectionRegistry`).
    public var total = 512
    /// A request head larger than this is refused (400).
    public var maximumHead = 16 * 1024

    public init() {}
}

/// Hummingbird's stop on accepting, kept only as a backstop for file descriptors: the server
/// makes room at `total` (`ConnectionRegistry.admit`), and stops accepting only when a quarter
/// more are still closing.
struct TotalConnections: AvailableConnectionsDelegate {
    let ceiling: Int
    let refusals: SharedRefusalLog
    /// One count for every listening socket (loopback has two, 127.0.0.1 and [::1]; each
    /// has its own handler, on its own event loop).
    private let open = OpenCount()

    init(ceiling: Int, refusals: SharedRefusalLog) {
        self.ceiling = ceiling
        self.refusals = refusals
    }

    mutating func connectionOpened() { open.count.withLock { $0 += 1 } }
    mutating func connectionClosed() { open.count.withLock { $0 -= 1 } }

    func isAcceptingNewConnections() -> Bool {
        guard open.count.withLock({ $0 }) < ceiling else {
            refusals.refused("any address", "\(ceiling) sockets are open: not accepting until one closes")
            return false
        }
        return true
    }

    private final class OpenCount: Sendable {
        let count = Mutex(0)
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
    /// What `HeadInspector` found wrong with each head the guard has not seen yet (status and
    /// message), or nil, in order (pipelined heads may pass it before the guard sees the first).
    var headRefusals: [(Int, String)?] = []
}

/// Before HTTP types: sees each request head as HTTP/1 sent it (its target, its
/// Transfer-Encoding) and leaves `ConnectionGuard` the verdict.
final class HeadInspector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    let state: ConnectionState

    init(state: ConnectionState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            state.headRefusals.append(
                ConnectionGuard.refusal(
                    target: head.uri,
                    transferEncoding: head.headers[canonicalForm: "transfer-encoding"].map(String.init)))
        }
        context.fireChannelRead(data)
    }
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

/// One per connection, after HTTP decoding: enforces the deadlines of both directions, tells
/// the registry where the connection is (for making room and for "whole requests only"),
/// answers a request the parser refused (or one it lets through that alarm-web does not take:
/// a transfer coding besides chunked, an absolute-form target) with a JSON error and closes, and
/// closes a connection after an answer that says `Connection: close` (413, refusals) instead of
/// reading on for a client that was refused.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let limits: ConnectionLimits
    let refusals: SharedRefusalLog
    let registry: ConnectionRegistry
    let state = ConnectionState()
    private var address = "unknown"
    private var channel: (any Channel)?
    private var started = false
    private var closing = false
    private var requestOpen = false
    /// An answer's head is written and its end not yet.
    private var answering = false
    private var closeAfterAnswer = false
    /// The deadline for what the client sends (idle, head, body), and for the answer being
    /// written: one scheduled wake-up for both, at the earliest; moving a deadline later
    /// schedules nothing (the wake-up finds it not due and sleeps again), so a kept-alive
    /// connection's requests cost no timer operations of their own.
    private var readDeadline: (at: NIODeadline, reason: String?, answer: (Int, String)?)?
    private var writeDeadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    /// Bytes of answers written to the pipeline and not yet handed to the kernel.
    private var unsent = 0
    /// Requests whose head arrived and whose answer has not ended.
    private var waiting = 0
    /// A refused head pipelined behind answers still to be written: refused after them.
    private var refusalAfterAnswers: (Int, String)?

    init(limits: ConnectionLimits, refusals: SharedRefusalLog, registry: ConnectionRegistry) {
        self.limits = limits
        self.refusals = refusals
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let watcher = RequestBytesWatcher(state: state) {
            let (guardHandler, context) = loopBound.value
            guardHandler.requestStarted(context: context)
        }
        // Pipelined requests are read only as fast as their answers leave: no reading while the
        // channel is not writable (the client is not taking what it asked for).
        try? context.pipeline.syncOperations.addHandler(BackPressureHandler(), position: .first)
        try? context.pipeline.syncOperations.addHandler(watcher, position: .first)
        // The request line and Transfer-Encoding as sent, which HTTP types no longer show.
        if let decoder = try? context.pipeline.syncOperations.handler(
            type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        {
            try? context.pipeline.syncOperations.addHandler(HeadInspector(state: state), position: .after(decoder))
        }
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        channel = context.channel
        address = context.channel.remoteAddress?.ipAddress.map(HostPolicy.normalized) ?? "unknown"
        arm(
            context: context, after: registry.idleTimeout(),
            reason: "sent no request within \(registry.idleTimeout().seconds) s of connecting")
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimer()
        context.fireChannelInactive()
    }

    /// The first byte of a request: its head must be complete within `limits.head`.
    func requestStarted(context: ChannelHandlerContext) {
        guard !closing else { return }
        registry.set(context.channel, .head)
        arm(context: context, after: limits.head, reason: "request head not complete within \(limits.head.seconds) s")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head:
            state.headComplete = true
            waiting += 1
            guard waiting <= limits.maximumPipelined else {
                close(
                    context: context,
                    reason: "more than \(limits.maximumPipelined) requests sent ahead of their answers")
                return
            }
            if let (status, message) = state.headRefusals.isEmpty ? nil : state.headRefusals.removeFirst() {
                // Pipelined behind requests still being answered: their answers first, in order.
                if waiting > 1 {
                    refusalAfterAnswers = (status, message)
                    closing = true
                } else {
                    refuse(context: context, status: status, message: message)
                }
                return
            }
            requestOpen = true
            registry.set(context.channel, .body)
            arm(
                context: context, after: limits.body,
                reason: "request body not complete within \(limits.body.seconds) s",
                answer: (408, "the request body did not arrive within \(limits.body.seconds) s"))
        case .body:
            break
        case .end:
            requestOpen = false
            registry.requestEnded(context.channel)
            registry.set(context.channel, .answering)
            // The answer is being made (alarm-web may wait up to 10 s for alarmd): no deadline
            // until it is written.
            readDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            // One answer is written however large; another (pipelined) one only while less
            // than `maximumUnsent` of the earlier ones waits for the client.
            guard unsent <= limits.maximumUnsent else {
                promise?.fail(ChannelError.ioOnClosedChannel)
                close(context: context, reason: "more than \(limits.maximumUnsent / 1024) KiB of answers unread")
                return
            }
            if response.headerFields[.connection]?.lowercased() == "close" { closeAfterAnswer = true }
            answering = true
            armWrite(context: context)
            context.write(data, promise: promise)
        case .body(let buffer):
            let n = buffer.readableBytes
            unsent += n
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { [self] result in
                unsent -= n
                promise?.completeWith(result)
            }
            context.write(data, promise: written)
        case .end:
            answering = false
            waiting = max(waiting - 1, 0)
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { [self] result in
                // All of it is with the kernel: the write deadline is met.
                if case .success = result { writeDeadline = nil }
                promise?.completeWith(result)
            }
            if closeAfterAnswer {
                writeThenClose(context: context, data, promise: written)
                return
            }
            if let (status, message) = refusalAfterAnswers, waiting <= 1 {
                refusalAfterAnswers = nil
                context.write(data, promise: written)
                refuse(context: context, status: status, message: message)
                return
            }
            context.write(data, promise: written)
            state.bytesSinceAnswer = false
            state.headText = []
            state.headComplete = false
            // A kept-alive connection waits for its next request (less long when the server is
            // filling up); one whose body is still coming (answered early) keeps the body deadline.
            if !requestOpen {
                registry.set(context.channel, .idle)
                arm(context: context, after: registry.idleTimeout(), reason: nil)
            }
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
            // The client stopped sending mid-request (half-closed): the responder sees that the
            // request did not arrive whole and answers 408 without acting on it; then this
            // connection closes.
            closeAfterAnswer = true
            arm(context: context, after: .seconds(2), reason: "the client stopped sending mid-request")
            return
        }
        let (status, message) = Self.answer(to: parse, headText: state.headText, limits: limits)
        refuse(context: context, status: status, message: message)
    }

    /// Answers `status` with `message` as JSON, logs the refusal, and closes.
    private func refuse(context: ChannelHandlerContext, status: Int, message: String, log: Bool = true) {
        if log { refusals.refused(address, "malformed request (\(status))", detail: message) }
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

    /// Why alarm-web refuses a head the parser accepted, or nil: a transfer coding other than
    /// chunked alone (RFC 9112 puts chunked last; alarm-web decodes nothing else: 501), or a
    /// target that is not a path (absolute form names a host of its own, which the Host check
    /// would not judge: 400).
    static func refusal(target: String, transferEncoding: [String]) -> (Int, String)? {
        if !target.hasPrefix("/") && target != "*" {
            return (400, "the request target must be a path (absolute form is not accepted)")
        }
        let codings = Self.codings(transferEncoding)
        if !codings.isEmpty && codings != ["chunked"] {
            return (501, "only the chunked transfer coding is understood")
        }
        return nil
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
        var values: [String] = []
        for line in lines {
            if line.hasPrefix("content-length:") { return false }
            if line.hasPrefix("transfer-encoding:") {
                values.append(String(line.dropFirst("transfer-encoding:".count)))
            }
        }
        let codings = Self.codings(values)
        return !codings.isEmpty && codings.contains { $0 != "chunked" }
    }

    /// The transfer codings of Transfer-Encoding values, in order, lower case.
    static func codings(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks().lowercased() }
    }

    private func writeThenClose(context: ChannelHandlerContext, _ data: NIOAny, promise: EventLoopPromise<Void>?) {
        closing = true
        stopTimer()
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { result in
            promise?.completeWith(result)
            context.close(promise: nil)
        }
    }

    private func close(context: ChannelHandlerContext, reason: String) {
        guard !closing else { return }
        closing = true
        stopTimer()
        refusals.refused(address, reason)
        context.close(promise: nil)
    }

    /// One deadline at a time for what the client sends: when it passes the connection closes,
    /// and (for `reason`) the refusal is logged, after `answer` when one can still be sent. Nil
    /// reason: a kept-alive connection nobody uses, closed quietly.
    private func arm(
        context: ChannelHandlerContext, after delay: TimeAmount, reason: String?, answer: (Int, String)? = nil
    ) {
        readDeadline = (.now() + delay, reason, answer)
        schedule(context: context)
    }

    /// The deadline for the answer being written: started at its head, met when its end is
    /// with the kernel.
    private func armWrite(context: ChannelHandlerContext) {
        writeDeadline = .now() + limits.write
        schedule(context: context)
    }

    /// Makes sure a wake-up is due no later than the earliest deadline.
    private func schedule(context: ChannelHandlerContext) {
        guard let next = [readDeadline?.at, writeDeadline].compactMap({ $0 }).min() else { return }
        if let at = timerAt, at <= next { return }
        timer?.cancel()
        timerAt = next
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: next) { [self] in
            timer = nil
            timerAt = nil
            wake(context: context)
        }
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    private func wake(context: ChannelHandlerContext) {
        guard !closing else { return }
        let now = NIODeadline.now()
        if let at = writeDeadline, at <= now {
            close(context: context, reason: "timed out: an answer not read within \(limits.write.seconds) s")
            return
        }
        if let due = readDeadline, due.at <= now {
            readDeadline = nil
            if let answer = due.answer, !answering, context.channel.isWritable {
                refusals.refused(address, "timed out: \(due.reason ?? "")")
                refuse(context: context, status: answer.0, message: answer.1, log: false)
                return
            }
            closing = true
            if let reason = due.reason { refusals.refused(address, "timed out: \(reason)") }
            context.close(promise: nil)
            return
        }
        schedule(context: context)
    }
}

extension TimeAmount {
    var seconds: Int64 { nanoseconds / 1_000_000_000 }
}

/// Hummingbird's HTTP/1.1 child channel behind the registry's admission. A connection over the
/// per-address cap is closed as it is accepted, before any HTTP handler, buffer or Swift task is
/// made for it: an attacker reopening a thousand refused connections a second then costs the
/// server a close each, and the owner's requests do not queue behind their setup (0.3 to 0.4 s a
/// burst when the cap was checked inside the HTTP pipeline). At the total, the connection that
/// has waited longest for a request is closed to make room (`ConnectionRegistry`).
///
/// The admission is `AdmissionHandler`'s, on the listening socket's event loop in the order the
/// kernel handed the connections over; `setup` (on each connection's own event loop, which
/// NIO reaches in no fixed order) only builds the HTTP pipeline of an admitted one.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let registry: ConnectionRegistry
    let refusals: SharedRefusalLog
    /// Whether `web_listen` serves a connection that arrived on this local address (a socket
    /// from systemd holds every address; `ListenAddress.serves(localAddress:)`).
    let serves: @Sendable (String) -> Bool

    /// Admits `channel`, just accepted, or closes it unread (and logs why): false then. An
    /// admitted connection leaves the registry when it closes.
    func admit(_ channel: any Channel) -> Bool {
        let address = channel.remoteAddress?.ipAddress.map(HostPolicy.normalized) ?? "unknown"
        if let local = channel.localAddress?.ipAddress, !serves(local) {
            refusals.refused(
                address, "came to \(HostPolicy.normalized(local)), an address web_listen does not serve: closed unread")
            channel.close(promise: nil)
            return false
        }
        let (admission, evicted) = registry.admit(channel, address: address)
        if let evicted {
            evicted.channel.close(promise: nil)
            refusals.refused(
                evicted.group,
                "closed to make room: \(registry.limits.total) connections were open, and this one had waited longest for a request"
            )
        }
        switch admission {
        case .admitted:
            channel.closeFuture.whenComplete { _ in registry.leave(channel) }
            return true
        case .overAddressCap:
            refusals.refused(
                address, "more than \(registry.limits.perAddress) connections from this address: closed unread")
        case .overShare(let share):
            refusals.refused(
                address,
                "\(registry.limits.total) connections are open and this address holds its share (\(share)): closed unread"
            )
        case .full:
            refusals.refused(
                address, "\(registry.limits.total) connections are open, all being answered: closed unread")
        }
        channel.close(promise: nil)
        return false
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // What the kernel may hold for a client that does not read (its default grows to MBs).
        if let options = channel.syncOptions {
            try? options.setOption(ChannelOptions.socketOption(.so_sndbuf), value: registry.limits.sendBuffer)
        }
        return http1.setup(channel: channel, logger: logger).flatMapErrorThrowing { error in
            channel.close(promise: nil)
            throw error
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// The registry's admission of every connection a listening socket accepts, in the order the
/// kernel handed them over: in its server channel's pipeline, before NIO sets a connection up
/// on its own event loop. (Admitted there, in `setup`, a connection set up on the other event
/// loop overtook ones accepted before it: with 16 stalled connections from one address, a 17th
/// was let in and one of the 16 was refused in its place.) A refused connection goes no
/// further.
final class AdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    let child: GuardedHTTP1Channel

    init(child: GuardedHTTP1Channel) {
        self.child = child
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard child.admit(unwrapInboundIn(data)) else { return }
        context.fireChannelRead(data)
    }
}

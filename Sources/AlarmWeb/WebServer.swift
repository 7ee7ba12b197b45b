import AlarmCore
import AlarmSystem
import AlarmWebAuth
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The request context: the client's address, for the sign-in limit and the log.
public struct WebContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let clientAddress: String
    /// The connection, for the registry (whole requests, the owner's connections).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        clientAddress = source.channel.remoteAddress?.ipAddress.map(HostPolicy.normalized) ?? "unknown"
    }
}

/// Hummingbird's side of alarm-web: turns its request into a `WebRequest`, asks `WebAPI` on a
/// thread of its own pool (the API reads and writes files and may wait up to 10 s for alarmd;
/// the event loops never wait), and turns the answer back. A body over 64 KiB is refused
/// before it is read, and the connection closes.
public struct WebResponder: HTTPResponder {
    public typealias Context = WebContext
    let api: WebAPI
    let pool: NIOThreadPool
    let registry: ConnectionRegistry

    /// For a responder called without alarm-web's server (router tests): every request counts
    /// as whole.
    public init(api: WebAPI, pool: NIOThreadPool) {
        self.init(api: api, pool: pool, registry: ConnectionRegistry(limits: ConnectionLimits()))
    }

    init(api: WebAPI, pool: NIOThreadPool, registry: ConnectionRegistry) {
        self.api = api
        self.pool = pool
        self.registry = registry
    }

    public func respond(to request: Request, context: WebContext) async throws -> Response {
        let number = registry.requestBegun(context.channel)
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > WebAPI.maximumBody {
            return Self.response(tooLarge(context), head: false)
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: WebAPI.maximumBody) } catch let e as HTTPError
            where e.status == .contentTooLarge
        {
            return Self.response(tooLarge(context), head: false)
        } catch is NIOTooManyBytesError {
            return Self.response(tooLarge(context), head: false)
        } catch {
            return Self.response(unfinished(context), head: false)
        }
        // Whole requests only: a body shorter than its Content-Length, a chunked body without
        // its last chunk, a body whose deadline passed. Nothing is done for it.
        guard registry.arrivedWhole(context.channel, number: number) else {
            return Self.response(unfinished(context), head: false)
        }
        let target = request.head.path ?? "/"
        let question = target.firstIndex(of: "?")
        let path = question.map { String(target[..<$0]) } ?? target
        let query = question.map { String(target[target.index(after: $0)...]) }
        guard path.hasPrefix("/") else {
            return Self.response(
                api.finish(WebResponse.error(400, "the request target must be a path").closing()), head: false)
        }
        let web = WebRequest(
            method: request.method.rawValue, path: path, query: query,
            // HTTP types keep Host apart, as the request's authority.
            headers: (request.head.authority.map { [("host", $0)] } ?? [])
                + request.headers.map { ($0.name.canonicalName, $0.value) },
            body: Array(buffer: body), address: context.clientAddress)
        let api = self.api
        // The status and the page's files read only memory and /run (tmpfs), never wait for
        // alarmd: answered here. Everything else on the pool (it may wait up to 10 s).
        let answer = WebAPI.isQuick(web) ? api.handle(web) : try await pool.runIfActive { api.handle(web) }
        if answer.trusted { registry.trust(context.channel) }
        return Self.response(answer, head: request.method == .head)
    }

    private func unfinished(_ context: WebContext) -> WebResponse {
        api.refusals?.refused(context.clientAddress, "request not whole: nothing done (408)")
        return api.finish(
            WebResponse.error(408, "the request did not arrive whole (its body ended early): nothing was done")
                .closing())
    }

    private func tooLarge(_ context: WebContext) -> WebResponse {
        api.refusals?.refused(context.clientAddress, "body over \(WebAPI.maximumBody / 1024) KiB (413)")
        return api.finish(WebResponse.error(413, "the body is over \(WebAPI.maximumBody / 1024) KiB").closing())
    }

    static func response(_ answer: WebResponse, head: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        fields[.contentLength] = String(answer.body.count)
        let body = head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: .init(code: answer.status), headers: fields, body: body)
    }
}

extension WebAPI {
    /// An answer made outside `handle`, with the same headers.
    func finish(_ response: WebResponse) -> WebResponse {
        var r = response
        r.headers += Self.securityHeaders
        return r
    }
}

extension WebResponse {
    /// This answer, and then the connection closes (the rest of the request is not read).
    func closing() -> WebResponse {
        var r = self
        r.headers.append(("Connection", "close"))
        return r
    }
}

/// alarm-web's server: Hummingbird's HTTP/1.1 channel with `ConnectionGuard` on every
/// connection and the total cap on accepting, served on sockets already bound: the ones
/// `alarm-web.socket` passed (PID 1 holds the port across restarts), or the ones `WebListeners`
/// bound (both families). Hummingbird's `Application` binds one address itself and takes no
/// socket, so this is its `run` (the responder, the Date header, a 500 for an error) over
/// NIO's `ServerBootstrap.bind(_ socket:)`, one server channel per socket.
public enum WebServer {
    /// The kernel's accept queue. At 256, an attacker reopening a thousand connections a second
    /// overflowed it (ListenOverflows in /proc/net/netstat), the kernel dropped the owner's
    /// handshake with them, and the owner's browser waited a second for its retransmission.
    /// Linux caps this at net.core.somaxconn (4096 since 5.4).
    public static let backlog: Int32 = 4096

    /// Serves on `sockets` until the process ends. `serves` says whether a connection that came
    /// to a local address is one `web_listen` serves (others are closed unread); `onRunning`
    /// runs once every socket is being served.
    public static func run(
        api: WebAPI, sockets: [ListeningSocket], serves: @escaping @Sendable (String) -> Bool,
        limits: ConnectionLimits = ConnectionLimits(), memoryLimit: Int = 64 << 20, refusals: SharedRefusalLog,
        pool: NIOThreadPool, onRunning: @escaping @Sendable () async -> Void = {}
    ) async throws {
        let registry = ConnectionRegistry(limits: limits)
        let logger = {
            var logger = Logger(label: "alarm-web")
            logger.logLevel = .critical
            return logger
        }()
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, refusals: refusals, registry: registry)],
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHead, maxHeaderListSize: limits.maximumHead, maxHeaderFieldCount: 100)
        )
        let responder = WebResponder(api: api, pool: pool, registry: registry)
        let respond: HTTPChannelHandler.Responder = { request, writer, channel in
            let context = WebContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = HTTPDate.text(secondsSince1970: Int(time(nil)))
            do {
                try await writer.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Not the parser error itself: that would make the channel answer again (a
                // 400 after this answer); any other error closes the connection.
                throw ParseErrorWhileWriting()
            }
        }
        let child = GuardedHTTP1Channel(
            http1: HTTP1Channel(responder: respond, configuration: http1), registry: registry, refusals: refusals,
            serves: serves)
        let total = TotalConnections(ceiling: limits.total + max(limits.total / 4, 16), refusals: refusals)
        var servers: [NIOAsyncChannel<HTTP1Channel.Value, Never>] = []
        for socket in sockets {
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            AvailableConnectionsChannelHandler(delegate: total))
                        try channel.pipeline.syncOperations.addHandler(AdmissionHandler(child: child))
                    }
                }
                .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                .bind(socket.fd) { channel in child.setup(channel: channel, logger: logger) }
            // NIO listens again with its default queue (128) when it takes the socket.
            try ListeningSocket.listen(socket.fd, backlog: backlog)
            // TCP_DEFER_ACCEPT (nginx's `deferred`): the kernel hands alarm-web a connection
            // only once its first bytes arrived (or after some 5 s), so connections that
            // send nothing do not queue ahead of the owner's in the kernel's accept queue.
            // (A slow machine accepts fewer connections a second than a device can open;
            // 2,000 silent ones held that queue full in the emulated VM.)
            _ = try? await server.channel.setOption(
                ChannelOptions.Types.SocketOption(level: .init(IPPROTO_TCP), name: .init(TCP_DEFER_ACCEPT)),
                value: 5
            ).get()
            servers.append(server)
        }
        guard let first = servers.first else { return }
        // Every second: the memory bound; every five, the refusal log's summaries.
        let bound = MemoryBound(limit: memoryLimit, registry: registry, refusals: refusals)
        var tick = 0
        first.channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            bound.check()
            tick += 1
            if tick % 5 == 0 { refusals.flush() }
        }
        await onRunning()
        try await withThrowingDiscardingTaskGroup { listeners in
            for server in servers {
                listeners.addTask {
                    try await withThrowingDiscardingTaskGroup { connections in
                        try await server.executeThenClose { inbound in
                            for try await connection in inbound {
                                connections.addTask { await child.handle(value: connection, logger: logger) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The request was malformed while its answer was being written: the connection closes
/// (Hummingbird's own, `HTTPChannelError.parseErrorWhileWritingResponse`, is package-internal).
struct ParseErrorWhileWriting: Error {}

/// The HTTP Date header's text (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as
/// Hummingbird's `Application` sets it on every answer.
enum HTTPDate {
    static func text(secondsSince1970 t: Int) -> String {
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let seconds = t - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(names[weekday]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) GMT"
    }
}

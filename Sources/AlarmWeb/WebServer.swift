import AlarmCore
import AlarmWebAuth
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
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

/// alarm-web's server: Hummingbird over HTTP/1.1 with `ConnectionGuard` on every connection and
/// the total cap on accepting.
public enum WebServer {
    /// The application, for `runService()` (alarm-web) or HummingbirdTesting (tests).
    public static func application(
        api: WebAPI, listen: ListenAddress, limits: ConnectionLimits = ConnectionLimits(),
        memoryLimit: Int = 64 << 20, refusals: SharedRefusalLog,
        pool: NIOThreadPool, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let registry = ConnectionRegistry(limits: limits)
        var logger = Logger(label: "alarm-web")
        logger.logLevel = .critical
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, refusals: refusals, registry: registry)],
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHead, maxHeaderListSize: limits.maximumHead, maxHeaderFieldCount: 100)
        )
        return Application(
            responder: WebResponder(api: api, pool: pool, registry: registry),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(
                    http1: HTTP1Channel(responder: responder, configuration: http1), registry: registry,
                    refusals: refusals)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(listen.host, port: listen.port),
                serverName: nil,
                // The kernel's accept queue. At 256, an attacker reopening a thousand
                // connections a second overflowed it (ListenOverflows in /proc/net/netstat),
                // the kernel dropped the owner's handshake with them, and the owner's browser
                // waited a second for its retransmission. Linux caps this at
                // net.core.somaxconn (4096 since 5.4).
                backlog: 4096,
                reuseAddress: true,
                availableConnectionsDelegate: TotalConnections(
                    ceiling: limits.total + max(limits.total / 4, 16), refusals: refusals)),
            onServerRunning: { channel in
                // TCP_DEFER_ACCEPT (nginx's `deferred`): the kernel hands alarm-web a connection
                // only once its first bytes arrived (or after some 5 s), so connections that
                // send nothing do not queue ahead of the owner's in the kernel's accept queue.
                // (A slow machine accepts fewer connections a second than a device can open;
                // 2,000 silent ones held that queue full in the emulated VM.)
                _ = try? await channel.setOption(
                    ChannelOptions.Types.SocketOption(level: .init(IPPROTO_TCP), name: .init(TCP_DEFER_ACCEPT)),
                    value: 5
                ).get()
                // Every second: the memory bound; every five, the refusal log's summaries.
                let bound = MemoryBound(limit: memoryLimit, registry: registry, refusals: refusals)
                var tick = 0
                channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                    bound.check()
                    tick += 1
                    if tick % 5 == 0 { refusals.flush() }
                }
                await onRunning(channel.localAddress?.port ?? listen.port)
            },
            logger: logger)
    }
}

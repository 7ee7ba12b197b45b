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

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
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

    public init(api: WebAPI, pool: NIOThreadPool) {
        self.api = api
        self.pool = pool
    }

    public func respond(to request: Request, context: WebContext) async throws -> Response {
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
        let answer = try await pool.runIfActive { api.handle(web) }
        return Self.response(answer, head: request.method == .head)
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
        api: WebAPI, listen: ListenAddress, limits: ConnectionLimits = ConnectionLimits(), refusals: SharedRefusalLog,
        pool: NIOThreadPool, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let table = ConnectionTable(perAddress: limits.perAddress)
        var logger = Logger(label: "alarm-web")
        logger.logLevel = .critical
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, refusals: refusals)],
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHead, maxHeaderListSize: limits.maximumHead, maxHeaderFieldCount: 100)
        )
        return Application(
            responder: WebResponder(api: api, pool: pool),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(
                    http1: HTTP1Channel(responder: responder, configuration: http1), table: table, refusals: refusals)
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
                availableConnectionsDelegate: TotalConnections(total: limits.total, refusals: refusals)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? listen.port) },
            logger: logger)
    }
}

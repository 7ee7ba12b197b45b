import AlarmSystem
import AlarmWebAuth
import FoundationEssentials
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// The HTTP side of alarm-web, kept thin: Hummingbird accepts connections and reads each
/// request's body (at most `WebAPI.maximumBody`: 413 past it), `WebAPI` decides on a thread of
/// NIO's pool (it blocks on files and on alarmd), and the answer goes back as it is.
struct WebServer {
    let api: WebAPI
    let listen: ListenAddress

    /// Runs until SIGTERM or SIGINT. `ready` is told the address it listens on (the port when 0
    /// was asked for).
    func run(ready: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "alarm-web")
        logger.logLevel = .warning
        let app = Application(
            responder: Responder(api: api),
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? listen.port
                ready(ListenAddress(host: listen.host, port: port).description)
            },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Hummingbird's request context, with the client's address.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let address: String

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            address = source.channel.remoteAddress?.ipAddress ?? "unknown"
        }
    }

    struct Responder: HTTPResponder {
        let api: WebAPI

        func respond(to request: Request, context: Context) async throws -> Response {
            let response = await handle(request, context: context)
            var fields = HTTPFields()
            for (name, value) in response.headers {
                if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
            }
            let bytes = request.method == .head ? [] : response.body
            return Response(
                status: HTTPResponse.Status(code: response.status), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }

        private func handle(_ request: Request, context: Context) async -> WebResponse {
            // A declared length over the limit is refused before anything is read.
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > WebAPI.maximumBody {
                return api.handle413()
            }
            let body: [UInt8]
            do {
                var buffer = try await request.body.collect(upTo: WebAPI.maximumBody)
                body = buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch is NIOTooManyBytesError {
                return api.handle413()
            } catch let error as HTTPError where error.status == .contentTooLarge {
                return api.handle413()
            } catch {
                return api.finish(.error(400, "the request's body could not be read"))
            }
            let web = WebRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
                headers: request.headers.map { ($0.name.canonicalName, $0.value) }, body: body, address: context.address)
            let api = self.api
            do {
                return try await NIOThreadPool.singleton.runIfActive { api.handle(web) }
            } catch {
                return api.finish(.error(503, "alarm-web is shutting down"))
            }
        }
    }
}

extension WebAPI {
    func handle413() -> WebResponse {
        finish(.error(413, "the body is over \(WebAPI.maximumBody / 1024) KiB"))
    }

    /// An answer made outside `handle`, with the same headers.
    func finish(_ response: WebResponse) -> WebResponse {
        var r = response
        r.headers += Self.securityHeaders
        return r
    }
}

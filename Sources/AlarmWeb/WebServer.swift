import AlarmCore
import AlarmSystem
import AlarmWebAuth
import FoundationEssentials
import Glibc

/// The HTTP side of alarm-web, kept thin: accepts connections on the listening socket, reads
/// one request per connection on a thread of its own (`HTTPWire`, at most 16 KiB of head and
/// `WebAPI.maximumBody` of body, 10 s without progress ends it), asks `WebAPI`, writes the answer
/// and closes. At most `maximumConnections` at once; one more gets 503 at once.
struct WebServer {
    let api: WebAPI
    let listen: ListenAddress
    static let maximumConnections = 32
    static let timeout = 10

    /// Listens, tells `ready` the address (with the port bound when 0 was asked for), and serves
    /// until the process ends.
    func run(ready: (String) -> Void) throws -> Never {
        let listener = try TCPListener(host: listen.host, port: listen.port)
        ready(ListenAddress(host: listen.host, port: listener.port).description)
        let active = ConnectionCount()
        while true {
            let connection: TCPConnection
            do { connection = try listener.accept() } catch {
                // Out of descriptors or memory for a moment: try again shortly, never spin.
                usleep(100_000)
                continue
            }
            connection.setTimeout(seconds: Self.timeout)
            guard active.enter(limit: Self.maximumConnections) else {
                try? connection.write(HTTPWire.encode(api.finish(.error(503, "too many connections: try again")), head: false))
                connection.finish()
                continue
            }
            let api = self.api
            let started = Threads.detach {
                Self.serve(connection, api: api)
                active.leave()
            }
            if !started { active.leave() }
        }
    }

    static func serve(_ connection: TCPConnection, api: WebAPI) {
        let response: WebResponse
        var isHead = false
        let read: Result<(head: HTTPWire.Head, body: [UInt8]), HTTPWire.Failure>
        do { read = .success(try HTTPWire.read(maximumBody: WebAPI.maximumBody) { try connection.read() }) } catch {
            read = .failure(error)
        }
        switch read {
        case .success(let (head, body)):
            isHead = head.method == "HEAD"
            response = api.handle(WebRequest(method: head.method, path: head.path, query: head.query, headers: head.headers, body: body, address: connection.peer))
        case .failure(.closed):
            return
        case .failure(.tooLarge):
            response = api.handle413()
        case .failure(.bad(let why)):
            response = api.finish(.error(400, why))
        case .failure(.notImplemented(let why)):
            response = api.finish(.error(501, why))
        }
        try? connection.write(HTTPWire.encode(response, head: isHead))
        connection.finish()
    }
}

/// How many connections are being served.
final class ConnectionCount: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0

    func enter(limit: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard count < limit else { return false }
        count += 1
        return true
    }

    func leave() {
        lock.lock()
        count -= 1
        lock.unlock()
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

import Foundation

/// A plain HTTP/1.1 client over a TCP socket: the tests send exactly the bytes they mean
/// (broken JSON, huge and chunked bodies, odd paths and headers), not what a library would.
struct RawHTTP {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        func headers(_ name: String) -> [String] { headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1) }
        var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var error: String? { object["error"] as? String }
    }

    struct Failed: Error, CustomStringConvertible { var description: String }

    let port: Int
    var token: String?
    /// The client's address (any of 127.0.0.0/8 is this machine): the server tells clients
    /// apart by it.
    var source = "127.0.0.1"

    init(port: Int, token: String?, source: String = "127.0.0.1") {
        self.port = port
        self.token = token
        self.source = source
    }

    /// One request on its own connection (`Connection: close`); the answer read to the end.
    func send(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: Data? = nil, auth: Bool = true,
        timeout: Double = 20
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if auth, let token { head += "Authorization: Bearer \(token)\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body, !headers.contains(where: { $0.0.lowercased() == "transfer-encoding" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        if body != nil && !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            head += "Content-Type: application/json\r\n"
        }
        var bytes = Data((head + "\r\n").utf8)
        if let body { bytes.append(body) }
        return try exchange(bytes, timeout: timeout)
    }

    func get(_ path: String, auth: Bool = true) throws -> Response { try send("GET", path, auth: auth) }
    func post(
        _ path: String, _ json: String? = nil, headers: [(String, String)] = [], auth: Bool = true
    ) throws -> Response {
        try send("POST", path, headers: headers, body: json.map { Data($0.utf8) } ?? Data(), auth: auth)
    }

    /// Writes `bytes` as they are and reads the whole answer.
    func exchange(_ bytes: Data, timeout: Double = 20) throws -> Response {
        let fd = try Self.connect(port: port, from: source)
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        // The server may answer (413) and close before all of a huge body is written: a
        // write that fails then is not the test's failure; the answer is.
        var sent = 0
        bytes.withUnsafeBytes { raw in
            while sent < raw.count {
                let n = Foundation.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                sent += n
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return try Self.parse(received)
    }

    /// A TCP connection to 127.0.0.1:`port` from `source` (bound before connecting).
    static func connect(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, ok == 0 else {
            let e = errno
            close(fd)
            throw Failed(description: "connect to port \(port) from \(source): errno \(e)")
        }
        return fd
    }

    static func parse(_ data: Data) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failed(description: "no complete answer: \(String(decoding: data, as: UTF8.self))")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failed(description: "bad status line \(head[0])")
        }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Data(data[end.upperBound...])
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }),
            body.count > length
        {
            body = body.prefix(length)
        }
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }
        ) {
            body = dechunk(body)
        }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size =
                Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16)
                ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            out.append(rest[start..<min(rest.endIndex, start + size)])
            rest = rest[min(rest.endIndex, start + size + 2)...]
        }
        return out
    }
}

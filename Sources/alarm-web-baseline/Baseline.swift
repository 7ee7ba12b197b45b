import ArgumentParser
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The yardstick of bench/web.py (issue #31): Hummingbird on its own, answering every request with
/// the bytes alarm-web gave for an authenticated `GET /api/status` (the same status, header fields
/// and body), so that alarm-web's rate over this one's is what its handler costs. No routing, no
/// sign-in, no files, no connection guard. Built for the bench only: no package ships it.
@main
struct Baseline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm-web-baseline",
        abstract: "Hummingbird alone, answering every request with one recorded response (bench/web.py).")

    @Option(help: "The port on 127.0.0.1 (0: any free one).")
    var port = 0

    @Option(help: "A file with the response to give: status line, header fields, blank line, body.")
    var reply: String

    func run() async throws {
        let answer = try Reply(bytes: Self.read(reply))
        let port = self.port
        var logger = Logger(label: "alarm-web-baseline")
        logger.logLevel = .critical  // as alarm-web
        let app = Application(
            responder: answer,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                var text = "listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)/\n"
                text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            },
            logger: logger)
        try await app.runService()
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw ValidationError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }
}

/// One recorded HTTP/1.1 response, given back for every request. The fields Hummingbird writes
/// itself (Date) or that belong to the connection are left to it; Content-Length is kept, as
/// alarm-web sets it.
struct Reply: HTTPResponder {
    typealias Context = BasicRequestContext
    let status: HTTPResponse.Status
    let fields: HTTPFields
    let body: ByteBuffer

    init(bytes: [UInt8]) throws {
        let blank: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual(blank) }) else {
            throw ValidationError("the reply has no blank line after its header fields")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let code = Int(statusLine[1]) else {
            throw ValidationError("the reply does not start with an HTTP/1.x status line")
        }
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                throw ValidationError("not a header field: \(line)")
            }
            if [.date, .connection, .transferEncoding].contains(name) { continue }
            let value = line[line.index(after: colon)...].trimmingPrefix(" ")
            fields.append(HTTPField(name: name, value: String(value)))
        }
        status = HTTPResponse.Status(code: code)
        self.fields = fields
        body = ByteBuffer(bytes: bytes[(end + 4)...])
        if let length = fields[.contentLength], Int(length) != body.readableBytes {
            throw ValidationError("Content-Length \(length), but the body has \(body.readableBytes) bytes")
        }
    }

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        Response(status: status, headers: fields, body: ResponseBody(byteBuffer: body))
    }
}

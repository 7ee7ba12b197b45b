@testable import AlarmWeb
import Testing

/// alarm-web's HTTP/1.1 reading and writing, fed bytes in pieces as a socket would.
@Suite struct HTTPWireTests {
    /// Reads `text` delivered `piece` bytes at a time.
    func read(_ text: String, piece: Int = 7, maximumBody: Int = 64) -> Result<(head: HTTPWire.Head, body: [UInt8]), HTTPWire.Failure> {
        var bytes = Array(text.utf8)[...]
        do {
            return .success(try HTTPWire.read(maximumBody: maximumBody) {
                let chunk = Array(bytes.prefix(piece))
                bytes = bytes.dropFirst(piece)
                return chunk
            })
        } catch {
            return .failure(error)
        }
    }

    @Test func aRequestWithAQueryHeadersAndABody() throws {
        let r = try read("POST /api/alarms?x=1&y=%20 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-CSRF-Token:  t \r\n\r\nhello").get()
        #expect(r.head.method == "POST")
        #expect(r.head.path == "/api/alarms")
        #expect(r.head.query == "x=1&y=%20")
        #expect(r.head.headers.map(\.name) == ["host", "content-length", "x-csrf-token"])
        #expect(r.head.headers.last?.value == "t")
        #expect(String(decoding: r.body, as: UTF8.self) == "hello")
    }

    @Test func chunkedBodiesInAnyPieces() throws {
        for piece in [1, 2, 5, 100] {
            let r = try read("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n", piece: piece).get()
            #expect(String(decoding: r.body, as: UTF8.self) == "abcde")
        }
    }

    @Test func limitsAndRefusals() {
        func failure(_ text: String) -> HTTPWire.Failure? {
            if case .failure(let f) = read(text) { return f }
            return nil
        }
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: 65\r\n\r\n") == .tooLarge)
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n" + String(repeating: "a", count: 65) + "\r\n0\r\n\r\n") == .tooLarge)
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n") == .bad("both Transfer-Encoding and Content-Length"))
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == .bad("a bad Content-Length"))
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n") == .bad("a bad Content-Length"))
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == .notImplemented("only the chunked transfer coding is understood"))
        #expect(failure("GET http://x/ HTTP/1.1\r\n\r\n") == .bad("the target must be a path"))
        #expect(failure("GET / HTTP/1.1\r\n folded\r\n\r\n") == .bad("a header line without ':'"))
        #expect(failure("GET / HTTP/1.1\r\nA" + String(repeating: "a", count: 17_000) + ": b\r\n\r\n") == .bad("the request's head is over 16 KiB"))
        // Cut short: nothing to answer.
        #expect(failure("GET / HTTP/1.1\r\nHost: a\r\n") == .closed)
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc") == .closed)
    }

    @Test func theAnswerCarriesItsLengthAndClosesAndHEADHasNoBody() {
        let response = WebResponse.error(404, "no such page: /x")
        let full = String(decoding: HTTPWire.encode(response, head: false), as: UTF8.self)
        #expect(full.hasPrefix("HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\n"))
        #expect(full.contains("Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n{\"error\": \"no such page: /x\"}\n"))
        let head = String(decoding: HTTPWire.encode(response, head: true), as: UTF8.self)
        #expect(head.hasSuffix("Connection: close\r\n\r\n"))
    }

    @Test func errorMessagesAreJSONStringsThatCannotReadAsMarkup() {
        #expect(JSONText.string("a\"b\\c\n<script>&\u{1}") == #""a\"b\\c\n\u003cscript\u003e\u0026\u0001""#)
    }

    @Test func percentDecoding() {
        #expect(URLText.decode("a%20b%2F") == "a b/")
        #expect(URLText.decode("%zz") == nil)
        #expect(URLText.decode("%4") == nil)
        #expect(URLText.decode("%ff") == nil)
        #expect(URLText.query("expr=Mon..Fri+06%3A30&count=5&expr=ignored") == ["expr": "Mon..Fri 06:30", "count": "5"])
        #expect(URLText.query("a=%") == nil)
    }

    @Test func routes() {
        #expect(APIRoute(["alarms", "work%2Dday"], method: "GET") == .alarm("work-day"))
        #expect(APIRoute(["alarms", "w", "skip"], method: "POST") == .skip("w", true))
        #expect(APIRoute(["alarms", "w", "skip"], method: "GET") == .wrongMethod(allowed: ["POST"]))
        #expect(APIRoute(["alarms"], method: "PUT") == .wrongMethod(allowed: ["GET", "POST"]))
        #expect(APIRoute(["nothing"], method: "GET") == nil)
        #expect(APIRoute(["alarms", "%zz"], method: "GET") == nil)
    }
}

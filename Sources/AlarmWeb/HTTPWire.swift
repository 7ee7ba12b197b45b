/// HTTP/1.1 on the wire, as alarm-web speaks it: one request per connection, read whole
/// (a head of at most 16 KiB, a body of at most `maximumBody` bytes, by Content-Length or
/// chunked), one answer with Content-Length, then the connection closes. Pure: the bytes come
/// from `next`, which returns [] at the end of the stream.
enum HTTPWire {
    static let maximumHead = 16 * 1024

    enum Failure: Error, Equatable {
        /// The peer closed (or timed out) before a whole request: nothing to answer.
        case closed
        /// 400, with why.
        case bad(String)
        /// 413: the body is over the limit.
        case tooLarge
        /// 501: a transfer coding other than chunked.
        case notImplemented(String)
    }

    struct Head: Equatable {
        var method: String
        var path: String
        var query: String?
        var headers: [(name: String, value: String)]

        static func == (a: Head, b: Head) -> Bool {
            a.method == b.method && a.path == b.path && a.query == b.query && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
        }
    }

    /// Reads one request: its head and its body.
    static func read(maximumBody: Int, next: () throws -> [UInt8]) throws(Failure) -> (head: Head, body: [UInt8]) {
        var buffer: [UInt8] = []
        var end: Int?
        while end == nil {
            let more: [UInt8]
            do { more = try next() } catch { throw .closed }
            if more.isEmpty { throw .closed }
            let from = max(0, buffer.count - 3)
            buffer += more
            end = find([13, 10, 13, 10], in: buffer, from: from)
            if end == nil && buffer.count > maximumHead { throw .bad("the request's head is over 16 KiB") }
        }
        let headEnd = end!
        guard headEnd <= maximumHead else { throw .bad("the request's head is over 16 KiB") }
        let head = try parseHead(Array(buffer[0..<headEnd]))
        var rest = Array(buffer[(headEnd + 4)...])
        func more() throws(Failure) -> [UInt8] {
            let bytes: [UInt8]
            do { bytes = try next() } catch { throw .closed }
            if bytes.isEmpty { throw .closed }
            return bytes
        }
        let values = { (name: String) in head.headers.filter { $0.name == name }.map(\.value) }
        let codings = values("transfer-encoding")
        let lengths = values("content-length")
        if !codings.isEmpty {
            guard lengths.isEmpty else { throw .bad("both Transfer-Encoding and Content-Length") }
            guard codings.joined(separator: ",").lowercased().split(separator: ",").map({ $0.trimmingWhitespace() }) == ["chunked"] else {
                throw .notImplemented("only the chunked transfer coding is understood")
            }
            return (head, try dechunk(&rest, maximumBody: maximumBody, more: more))
        }
        guard let lengthText = lengths.first else { return (head, []) }
        guard Set(lengths).count == 1, !lengthText.isEmpty, lengthText.utf8.count <= 18, lengthText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let length = Int(lengthText)
        else { throw .bad("a bad Content-Length") }
        guard length <= maximumBody else { throw .tooLarge }
        while rest.count < length { rest += try more() }
        return (head, Array(rest[0..<length]))
    }

    static func parseHead(_ bytes: [UInt8]) throws(Failure) -> Head {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .bad("the request's head is not UTF-8") }
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { throw .bad("a bad request line") }
        let method = String(parts[0])
        guard !method.isEmpty, method.utf8.allSatisfy({ isToken($0) }) else { throw .bad("a bad method") }
        let target = parts[1]
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { throw .bad("the target must be a path") }
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .bad("a header line without ':'") }
            let name = line[..<colon]
            guard !name.isEmpty, name.utf8.allSatisfy({ isToken($0) }) else { throw .bad("a bad header name") }
            headers.append((name.lowercased(), String(line[line.index(after: colon)...]).trimmingWhitespace()))
        }
        return Head(method: method, path: String(pieces[0]), query: pieces.count > 1 ? String(pieces[1]) : nil, headers: headers)
    }

    /// A chunked body: `SIZE[;ext]CRLF DATA CRLF` ... `0 CRLF [trailers] CRLF`.
    static func dechunk(_ rest: inout [UInt8], maximumBody: Int, more: () throws(Failure) -> [UInt8]) throws(Failure) -> [UInt8] {
        var body: [UInt8] = []
        func line() throws(Failure) -> String {
            var end = find([13, 10], in: rest, from: 0)
            while end == nil {
                guard rest.count < 1024 else { throw .bad("a bad chunk") }
                rest += try more()
                end = find([13, 10], in: rest, from: 0)
            }
            let text = String(decoding: rest[0..<end!], as: UTF8.self)
            rest.removeFirst(end! + 2)
            return text
        }
        while true {
            let sizeText = try line().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingWhitespace()
            // Hex digits only: `Int(_:radix:)` alone would take a sign, and "-1" would index
            // before the buffer.
            guard !sizeText.isEmpty, sizeText.utf8.count <= 8, sizeText.utf8.allSatisfy({ isHexDigit($0) }),
                let size = Int(sizeText, radix: 16)
            else { throw .bad("a bad chunk size") }
            if size == 0 {
                // Trailers (ignored), at most as much as a head.
                var trailers = 0
                while true {
                    let t = try line()
                    if t.isEmpty { return body }
                    trailers += t.utf8.count + 2
                    guard trailers <= maximumHead else { throw .bad("the trailers are over 16 KiB") }
                }
            }
            guard body.count + size <= maximumBody else { throw .tooLarge }
            while rest.count < size + 2 { rest += try more() }
            guard rest[size] == 13, rest[size + 1] == 10 else { throw .bad("a chunk without its CRLF") }
            body += rest[0..<size]
            rest.removeFirst(size + 2)
        }
    }

    /// The answer's bytes: status line, the response's headers, Content-Length, Connection:
    /// close; the body unless the request was HEAD.
    static func encode(_ response: WebResponse, head: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + (head ? [] : response.body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    private static func isToken(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || "!#$%&'*+-.^_`|~".utf8.contains(c)
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count else { return nil }
        var i = max(0, from)
        while i + needle.count <= hay.count {
            if hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

import AlarmCore
import FoundationEssentials

/// One HTTP request as the API sees it: no server library's types, so that the API is plain
/// code over values (the server turns Hummingbird's request into this, and this response back).
public struct WebRequest: Sendable {
    public var method: String
    /// The path as sent, still percent-encoded (`/api/alarms/a%20b`).
    public var path: String
    /// The query string after `?`, still encoded; nil when there is none.
    public var query: String?
    /// Header names in lower case; a repeated header appears once per value.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The client's IP address (for the sign-in limit).
    public var address: String

    public init(
        method: String, path: String, query: String? = nil, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], address: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
        self.body = body
        self.address = address
    }

    /// The header's values joined the way HTTP joins repeated headers (`Cookie` with "; ").
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name == name }.map(\.value)
        guard !values.isEmpty else { return nil }
        return values.joined(separator: name == "cookie" ? "; " : ", ")
    }
}

public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Not sent: why the request was refused, for the log (`SharedRefusalLog`); nil for an answer.
    public var refusal: (reason: String, detail: String?)?
    /// Not sent: the request carried the token or a valid session (the owner's). The server
    /// closes such a connection last when it must make room.
    public var trusted = false

    public init(status: Int, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    /// A JSON body as the CLI prints it, with a newline at the end.
    public static func json(
        _ text: String, status: Int = 200, headers: [(name: String, value: String)] = []
    ) -> WebResponse {
        WebResponse(
            status: status, contentType: "application/json; charset=utf-8", body: Array((text + "\n").utf8),
            headers: headers)
    }

    /// `{"error": "message"}`: every error of the API.
    public static func error(
        _ status: Int, _ message: String, headers: [(name: String, value: String)] = []
    ) -> WebResponse {
        json("{\"error\": \(JSONText.string(message))}", status: status, headers: headers)
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// This answer, marked as a refusal to log (`reason`: a fixed phrase; `detail`: what the
    /// request sent, never a credential).
    func refused(_ reason: String, detail: String? = nil) -> WebResponse {
        var r = self
        r.refusal = (reason, detail)
        return r
    }
}

/// JSON text for the few values the API writes by hand.
enum JSONText {
    /// A JSON string literal: quotes, backslashes and control characters escaped; `<`, `>` and
    /// `&` too, so that a value echoed from a request can never read as markup.
    static func string(_ s: String) -> String {
        let escaped = Text.escaping(s) { u in
            switch u {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}",
                _ where u.value < 0x20 || u.value == 0x7f:
                "\\u" + Text.hex4(u.value)
            default: nil
            }
        }
        return "\"" + escaped + "\""
    }
}

extension Text {
    static func hex4(_ v: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<4).reversed().map { digits[Int((v >> (4 * UInt32($0))) & 0xf)] })
    }
}

extension WebResponse {
    /// This answer, marked as given to the owner (`trusted`).
    func trusting() -> WebResponse {
        var r = self
        r.trusted = true
        return r
    }
}

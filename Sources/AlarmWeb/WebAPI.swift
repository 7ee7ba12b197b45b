import AlarmState
import AlarmWebAuth
import FoundationEssentials

/// alarm-web's API and page, as a function from request to response: the routes, who may call
/// them (`SharedGate`) and what they do (`AlarmActions`, the CLI's code). Blocking (it reads and
/// writes files and waits up to 10 s for alarmd): the server calls it off its event loops.
public struct WebAPI: Sendable {
    public let actions: AlarmActions
    public let gate: SharedGate
    /// The names the server may be called by (asked for each request: the machine's addresses
    /// change).
    public let hosts: @Sendable () -> HostPolicy
    /// Where refusals are logged, rate-limited; nil: not logged (tests).
    public let refusals: SharedRefusalLog?
    /// The last status answer (the page asks twice a second).
    let statusCache = StatusCache()
    /// Bodies larger than this are refused with 413 (the server enforces it while reading).
    public static let maximumBody = 64 * 1024

    public init(
        actions: AlarmActions, gate: SharedGate, hosts: @escaping @Sendable () -> HostPolicy,
        refusals: SharedRefusalLog? = nil
    ) {
        self.actions = actions
        self.gate = gate
        self.hosts = hosts
        self.refusals = refusals
    }

    public func handle(_ request: WebRequest) -> WebResponse {
        let response = finish(checkHostAndOrigin(request) ?? route(request))
        if let refusal = response.refusal {
            refusals?.refused(request.address, refusal.reason, detail: refusal.detail)
        }
        return response
    }

    /// The `Host` must be a name of this server (DNS rebinding), and a state-changing request
    /// that a browser sent must come from this server's own page (`Origin`): 400, 421 or 403.
    private func checkHostAndOrigin(_ r: WebRequest) -> WebResponse? {
        switch hosts().check(
            host: r.header("host"), origin: r.header("origin"), changesState: Self.changesState(r.method))
        {
        case .allowed:
            return nil
        case .missingHost:
            return WebResponse.error(400, "the request has no Host header").refused("no Host header")
        case .wrongHost(let host):
            return WebResponse.error(
                421,
                "this server does not answer to the name '\(RefusalLog.printable(host))' (a name of your own goes into web_hosts in alarm.conf)"
                // The log names the refusal, not the client's text (a log line is not a place for
                // whatever a device on the network chose to write).
            ).refused("wrong Host")
        case .crossOrigin(let origin):
            return WebResponse.error(
                403,
                "a request that changes anything must come from this server's own page, not from \(RefusalLog.printable(origin))"
            )
            .refused("request from another site's page", detail: origin)
        }
    }

    static func changesState(_ method: String) -> Bool { method != "GET" && method != "HEAD" }

    /// Requests answered from memory and /run alone (the page's files, the status): no need for
    /// the thread pool's hop.
    static func isQuick(_ r: WebRequest) -> Bool {
        guard r.method == "GET" || r.method == "HEAD" else { return false }
        switch r.path {
        case "/", "/app.js", "/app.css", "/api/openapi.json", "/api/status": return true
        default: return false
        }
    }

    /// Sent with every response: no caching of alarms or tokens, no framing, no sniffing, no
    /// referrer, and a page that runs only its own script and style.
    static let securityHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
    ]

    private func route(_ r: WebRequest) -> WebResponse {
        guard let decodedPath = URLText.decode(r.path[...]) else {
            return .error(400, "the path has a broken %-escape")
        }
        let parts = r.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // The page and its files, and the API's description: no secrets, no sign-in.
        switch (r.method, decodedPath) {
        case ("GET", "/"), ("HEAD", "/"): return Page.html
        case ("GET", "/app.js"): return Page.script
        case ("GET", "/app.css"): return Page.style
        case ("GET", "/api/openapi.json"): return Page.openAPI
        case (_, "/api/session"): return session(r)
        default: break
        }
        guard parts.first == "api" else { return .error(404, "no such page: \(decodedPath)") }
        let api = Array(parts.dropFirst())
        guard let route = APIRoute(api, method: r.method) else {
            return .error(404, "no such endpoint: \(r.method) \(decodedPath)")
        }
        if case .wrongMethod(let allowed) = route {
            return .error(
                405, "\(r.method) is not allowed here (allowed: \(allowed.joined(separator: ", ")))",
                headers: [("Allow", allowed.joined(separator: ", "))])
        }
        if let refused = authorize(r) { return refused }
        var answer: WebResponse
        do {
            answer = try perform(route, r)
        } catch let e as ActionError {
            answer = .error(Self.status(e.kind), e.description)
        } catch {
            answer = .error(500, "\(error)")
        }
        answer.trusted = true
        return answer
    }

    /// Nil when the request may go on; else the 401, 429 or 503 response.
    private func authorize(_ r: WebRequest) -> WebResponse? {
        let credentials = Self.credentials(r)
        switch gate.check(credentials, changesState: Self.changesState(r.method), address: r.address) {
        case .allowed: return nil
        case .unauthorized(let why):
            return WebResponse.error(401, why, headers: [("WWW-Authenticate", "Bearer realm=\"alarm\"")])
                .refused(
                    credentials.bearer.map { $0.isEmpty ? "an Authorization that is not Bearer" : "wrong token" }
                        ?? (credentials.session != nil ? "no such session or no CSRF token" : "no credentials"))
        case .tooManyFailures(let seconds): return Self.tooManyFailures(r, retryAfter: seconds)
        case .unavailable(let why): return .error(503, why)
        }
    }

    /// What a request shows to the gate: its bearer token, session cookie and CSRF token.
    static func credentials(_ r: WebRequest) -> Credentials {
        Credentials(
            authorization: r.header("authorization"), cookie: r.header("cookie"), csrf: r.header("x-csrf-token"))
    }

    /// The 429 for an address with too many failed sign-ins, to a request that brings neither
    /// the right token nor a live session (those are let in: issue #42).
    static func tooManyFailures(_ r: WebRequest, retryAfter seconds: Int) -> WebResponse {
        WebResponse.error(
            429, "too many failed sign-ins from \(r.address): try again in \(seconds) s",
            headers: [("Retry-After", "\(seconds)")]
        )
        .refused("too many failed sign-ins (429)")
    }

    private func perform(_ route: APIRoute, _ r: WebRequest) throws -> WebResponse {
        switch route {
        case .status: return .json(try actions.status(cache: statusCache))
        case .alarms: return .json(try actions.alarms())
        case .alarm(let id): return .json(try actions.alarm(id: id))
        case .next: return .json(try actions.next())
        case .history: return .json(try actions.history())
        case .sounds: return .json(try actions.sounds())
        case .preview:
            guard let q = URLText.query(r.query) else {
                throw ActionError(.badInput, "the query string has a broken %-escape")
            }
            func given(_ key: String) -> String? { q[key].flatMap { $0.isEmpty ? nil : $0 } }
            let skip: Bool
            switch q["skip_holidays"] ?? "" {
            case "", "0", "false": skip = false
            case "1", "true": skip = true
            default: throw ActionError(.badInput, "skip_holidays must be true or false")
            }
            return .json(
                try actions.preview(
                    expression: q["expr"] ?? "", count: q["count"], zone: given("zone"), every: given("every"),
                    from: given("from"), until: given("until"), skipHolidays: skip))
        case .put:
            let (json, replaced, warning) = try actions.put(json: r.body)
            return .json(
                json, status: replaced ? 200 : 201,
                headers: warning.map { [("X-Alarm-Warning", Self.headerSafe($0))] } ?? [])
        case .remove(let id):
            try actions.remove(id: id)
            return .json("{\"removed\": \(JSONText.string(id))}")
        case .skip(let id, let on): return .json(try actions.setSkip(id: id, on))
        case .snooze:
            struct Body: Decodable { var duration: String? }
            return .json(try actions.snooze(duration: try Self.optionalBody(Body.self, r.body)?.duration))
        case .stop:
            return .json(try actions.stop())
        case .ring:
            struct Body: Decodable { var sound: String? }
            return .json(try actions.ring(sound: try Self.optionalBody(Body.self, r.body)?.sound))
        case .wrongMethod: return .error(405, "not allowed")
        }
    }

    static func status(_ kind: ActionError.Kind) -> Int {
        switch kind {
        case .badInput: return 400
        case .notFound: return 404
        case .notDone: return 409
        case .notRunning, .notAllowed: return 503
        case .failed: return 500
        }
    }

    /// A small JSON object body that may also be absent (empty).
    static func optionalBody<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws -> T? {
        guard body.contains(where: { !" \n\r\t".utf8.contains($0) }) else { return nil }
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch {
            throw ActionError(.badInput, "the body is not the JSON object expected: \(Self.describe(error))")
        }
    }

    static func describe(_ error: Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        switch e {
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return c.codingPath.map(\.stringValue).joined(separator: ".") + ": " + c.debugDescription
        case .keyNotFound(let k, _): return "missing key '\(k.stringValue)'"
        case .dataCorrupted(let c): return c.debugDescription
        @unknown default: return "\(error)"
        }
    }

    /// Header values are one line of visible ASCII.
    static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })
    }
}

/// The API's endpoints, from the path after `/api/` and the method.
enum APIRoute: Equatable {
    case status, alarms
    case alarm(String)
    case next, history, preview, sounds
    case put
    case remove(String)
    case skip(String, Bool)
    case snooze, stop, ring
    case wrongMethod(allowed: [String])

    /// Nil for a path that is no endpoint. Ids are percent-decoded; one that does not decode is
    /// no alarm's.
    init?(_ parts: [String], method: String) {
        func only(_ m: String, _ route: APIRoute) -> APIRoute {
            method == m || (m == "GET" && method == "HEAD") ? route : .wrongMethod(allowed: [m])
        }
        switch parts.count {
        case 1:
            switch parts[0] {
            case "status": self = only("GET", .status)
            case "next": self = only("GET", .next)
            case "history": self = only("GET", .history)
            case "sounds": self = only("GET", .sounds)
            case "preview": self = only("GET", .preview)
            case "snooze": self = only("POST", .snooze)
            case "stop": self = only("POST", .stop)
            case "ring": self = only("POST", .ring)
            case "alarms":
                switch method {
                case "GET", "HEAD": self = .alarms
                case "POST": self = .put
                default: self = .wrongMethod(allowed: ["GET", "POST"])
                }
            default: return nil
            }
        case 2 where parts[0] == "alarms":
            guard let id = URLText.decode(parts[1][...]) else { return nil }
            switch method {
            case "GET", "HEAD": self = .alarm(id)
            case "DELETE": self = .remove(id)
            default: self = .wrongMethod(allowed: ["GET", "DELETE"])
            }
        case 3 where parts[0] == "alarms" && (parts[2] == "skip" || parts[2] == "unskip"):
            guard let id = URLText.decode(parts[1][...]) else { return nil }
            self = only("POST", .skip(id, parts[2] == "skip"))
        default:
            return nil
        }
    }
}

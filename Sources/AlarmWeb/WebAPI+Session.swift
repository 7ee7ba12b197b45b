import AlarmState
import AlarmCore
import AlarmWebAuth
import FoundationEssentials

/// The page's sign-in: `POST /api/session` with `{"token": "..."}` answers the session's CSRF
/// token and sets the session cookie (HttpOnly, SameSite=Strict: script cannot read it and no
/// other site's request carries it); `GET` gives the CSRF token again to a page that was
/// reloaded; `DELETE` signs out. The token travels in the body, never in a URL.
extension WebAPI {
    func session(_ r: WebRequest) -> WebResponse {
        switch r.method {
        case "POST": return signIn(r)
        case "GET", "DELETE":
            switch gate.check(Self.credentials(r), changesState: r.method == "DELETE", address: r.address) {
            case .allowed(.session(let s)):
                if r.method == "GET" { return .json("{\"csrf\": \(JSONText.string(s.csrf))}").trusting() }
                gate.signOut(sessionID: s.id)
                return .json("{\"signed_out\": true}", headers: [("Set-Cookie", Self.cookie(value: "", maxAge: 0))])
            case .allowed(.token):
                return r.method == "GET"
                    ? .json("{\"csrf\": null}")
                    : .error(400, "there is no session to end: the request was signed with the token")
            case .unauthorized(let why): return WebResponse.error(401, why).refused("no such session or no CSRF token")
            case .tooManyFailures(let seconds): return Self.tooManyFailures(r, retryAfter: seconds)
            case .unavailable(let why): return .error(503, why)
            }
        default:
            return .error(
                405, "\(r.method) is not allowed here (allowed: GET, POST, DELETE)",
                headers: [("Allow", "GET, POST, DELETE")])
        }
    }

    private func signIn(_ r: WebRequest) -> WebResponse {
        // JSON only: a form or text/plain post is what another site's page can send without
        // asking the browser (no CORS preflight); such a post never counts as a failed sign-in.
        guard Self.isJSON(r.header("content-type")) else {
            return WebResponse.error(
                415, "send the token as JSON: Content-Type: application/json and {\"token\": \"...\"}"
            )
            .refused("sign-in that is not JSON (415)", detail: r.header("content-type") ?? "no Content-Type")
        }
        struct Body: Decodable { var token: String }
        let given: String
        do {
            guard let body = try Self.optionalBody(Body.self, r.body) else {
                return .error(400, "send the token as {\"token\": \"...\"}")
            }
            given = body.token
        } catch {
            return .error(400, "send the token as {\"token\": \"...\"}")
        }
        switch gate.signIn(given: given, address: r.address) {
        case .success(let s):
            return .json(
                "{\"csrf\": \(JSONText.string(s.csrf))}",
                headers: [("Set-Cookie", Self.cookie(value: s.id, maxAge: Int(gate.sessionLifetime)))]
            ).trusting()
        case .failure(.wrongToken):
            return .error(401, "wrong token (alarm web-token prints it)").refused("failed sign-in")
        case .failure(.tooManyFailures(let seconds)):
            return Self.tooManyFailures(r, retryAfter: seconds)
        case .failure(.unavailable(let why)):
            return .error(503, why)
        }
    }

    /// `application/json`, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingBlanks().lowercased() == "application/json"
    }

    static func cookie(value: String, maxAge: Int) -> String {
        "\(Credentials.cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }
}

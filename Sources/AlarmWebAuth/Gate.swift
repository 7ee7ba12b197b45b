import AlarmCore
import FoundationEssentials
import Synchronization

/// What a request brings to prove who sent it, as the HTTP layer found it.
public struct Credentials: Sendable, Equatable {
    /// The token of `Authorization: Bearer TOKEN`; "" when the header is there but not Bearer.
    public var bearer: String?
    /// The session cookie's value.
    public var session: String?
    /// The `X-CSRF-Token` header.
    public var csrf: String?

    public init(bearer: String? = nil, session: String? = nil, csrf: String? = nil) {
        self.bearer = bearer
        self.session = session
        self.csrf = csrf
    }

    /// The cookie that holds the page's session.
    public static let cookieName = "alarm_session"

    /// From the headers' values: `Authorization`, `Cookie` (every `Cookie` header joined with
    /// "; ") and `X-CSRF-Token`.
    public init(authorization: String?, cookie: String?, csrf: String?) {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                bearer = parts[1].trimmingBlanks()
            } else {
                bearer = ""
            }
        }
        if let cookie {
            for pair in cookie.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if kv.count == 2, kv[0].trimmingBlanks() == Self.cookieName { session = kv[1].trimmingBlanks() }
            }
        }
        self.csrf = csrf
    }
}

/// Who may call alarm-web, decided without I/O: the access token (Bearer, for scripts and the
/// sign-in form), the page's sessions with their CSRF tokens, and the limit on failed sign-ins.
/// A value type; `SharedGate` holds one for the server's threads.
public struct Gate: Sendable {
    public enum Via: Sendable, Equatable {
        case token
        case session(Sessions.Session)
    }

    public enum Verdict: Sendable, Equatable {
        case allowed(Via)
        /// 401, with what to do.
        case unauthorized(String)
        /// 429: too many failed sign-ins from this address, and this request does not bring the
        /// right token or a live session; try again in that many seconds.
        case tooManyFailures(retryAfter: Int)
        /// 503: there is no usable token (the file is missing or unreadable): nobody gets in.
        case unavailable(String)
    }

    public private(set) var limiter: SignInLimiter
    public private(set) var sessions: Sessions

    public init(limiter: SignInLimiter = SignInLimiter(), sessions: Sessions = Sessions()) {
        self.limiter = limiter
        self.sessions = sessions
    }

    static let howToSignIn =
        "sign in: send 'Authorization: Bearer TOKEN' (alarm web-token prints the token), or sign in on the page"

    /// Checks a request to the API. `changesState`: POST, PUT, PATCH, DELETE (the page's must
    /// carry the session's CSRF token). `token`: the token in force, or why there is none.
    ///
    /// The right token, or a live session, is let in whatever the limiter says: many failed
    /// sign-ins from an address (127.0.0.1, shared by every local user, or a reverse proxy's)
    /// must not lock the owner out (issue #42). Anything else from an address with too many
    /// failures is answered `tooManyFailures`. Whether the address is blocked is decided before
    /// the token is looked at, and the token is compared in constant time whatever it is.
    public mutating func check(
        _ credentials: Credentials, changesState: Bool, address: String, token: Result<String, WebSetupError>, now: Date
    ) -> Verdict {
        let blocked = limiter.isBlocked(address, now: now)
        let current: String
        switch token {
        case .success(let t): current = t
        case .failure(let e): return .unavailable("alarm-web cannot check tokens: \(e)")
        }
        let verdict = judge(credentials, changesState: changesState, address: address, current: current, now: now)
        if case .allowed = verdict { return verdict }
        return blocked ? .tooManyFailures(retryAfter: limiter.retryAfter(address, now: now)) : verdict
    }

    /// `check` without the limit: who the credentials prove, recording a wrong Bearer token as
    /// a failed sign-in.
    private mutating func judge(
        _ credentials: Credentials, changesState: Bool, address: String, current: String, now: Date
    ) -> Verdict {
        if let bearer = credentials.bearer, !bearer.isEmpty {
            guard ConstantTime.equal(bearer, current) else {
                limiter.recordFailure(address, now: now)
                return .unauthorized("wrong token")
            }
            return .allowed(.token)
        }
        if let id = credentials.session {
            guard let session = sessions.find(id: id, currentToken: current, now: now) else {
                return .unauthorized(
                    "the session has ended (signed out, expired, or the token was replaced): sign in again")
            }
            if changesState {
                guard let csrf = credentials.csrf, ConstantTime.equal(csrf, session.csrf) else {
                    return .unauthorized("missing or wrong CSRF token: send the session's token as X-CSRF-Token")
                }
            }
            return .allowed(.session(session))
        }
        // Another scheme (Basic, from a browser's saved password or a proxy) proves nothing and
        // guesses nothing: refused, but not a failed sign-in.
        if credentials.bearer != nil { return .unauthorized("the Authorization header must be 'Bearer TOKEN'") }
        return .unauthorized(Self.howToSignIn)
    }

    /// The page's sign-in with the token typed into its form: a new session, or why not.
    /// As in `check`, the right token signs in from a blocked address too (issue #42).
    public mutating func signIn(
        given: String, address: String, token: Result<String, WebSetupError>, now: Date
    ) -> Result<Sessions.Session, SignInRefusal> {
        let blocked = limiter.isBlocked(address, now: now)
        let current: String
        switch token {
        case .success(let t): current = t
        case .failure(let e): return .failure(.unavailable("alarm-web cannot check tokens: \(e)"))
        }
        guard ConstantTime.equal(given.trimmingBlanks(), current) else {
            limiter.recordFailure(address, now: now)
            return .failure(blocked ? .tooManyFailures(retryAfter: limiter.retryAfter(address, now: now)) : .wrongToken)
        }
        return .success(sessions.open(token: current, now: now))
    }

    /// Signs a session out; true when it was open.
    @discardableResult
    public mutating func signOut(sessionID: String) -> Bool {
        sessions.close(id: sessionID)
    }
}

public enum SignInRefusal: Error, Equatable, Sendable {
    case wrongToken
    case tooManyFailures(retryAfter: Int)
    case unavailable(String)
}

/// One `Gate` for all of the server's threads, with the token file it checks against.
public final class SharedGate: @unchecked Sendable {
    private let gate: Mutex<Gate>
    public let token: CurrentToken

    public init(token: CurrentToken, gate: Gate = Gate()) {
        self.token = token
        self.gate = Mutex(gate)
    }

    public func check(
        _ credentials: Credentials, changesState: Bool, address: String, now: Date = Date()
    ) -> Gate.Verdict {
        let current = token.get()
        return gate.withLock {
            $0.check(credentials, changesState: changesState, address: address, token: current, now: now)
        }
    }

    public func signIn(given: String, address: String, now: Date = Date()) -> Result<Sessions.Session, SignInRefusal> {
        let current = token.get()
        return gate.withLock { $0.signIn(given: given, address: address, token: current, now: now) }
    }

    /// How long an unused session lasts (the cookie's Max-Age).
    public var sessionLifetime: TimeInterval {
        gate.withLock { $0.sessions.idleLimit }
    }

    public func signOut(sessionID: String) {
        gate.withLock { $0.signOut(sessionID: sessionID) }
    }
}

import FoundationEssentials

/// The page's sign-ins: a session id (held by the browser in an HttpOnly, SameSite=Strict cookie)
/// and the CSRF token that must come with every state-changing request of that session.
///
/// What callers may rely on:
/// - Ids and CSRF tokens are `Secret`s; every lookup compares against each live session in
///   constant time (there are few: at most `maximumSessions`, the oldest dropped first).
/// - A session ends after `idleLimit` without use, on sign-out, and when the access token it was
///   signed in with is no longer the current one (`alarm web-token --rotate` signs everyone out).
/// - The clock is passed in.
public struct Sessions: Sendable {
    public struct Session: Sendable, Equatable {
        public let id: String
        public let csrf: String
        /// The access token it was signed in with.
        let token: String
        var lastUsed: Date
    }

    public let idleLimit: TimeInterval
    public let maximumSessions: Int
    private var sessions: [Session] = []

    public init(idleLimit: TimeInterval = 30 * 86400, maximumSessions: Int = 64) {
        self.idleLimit = idleLimit
        self.maximumSessions = maximumSessions
    }

    public var count: Int { sessions.count }

    /// A new session for someone who gave `token` (already checked to be the right one).
    public mutating func open(token: String, now: Date) -> Session {
        sessions.removeAll { now.timeIntervalSince($0.lastUsed) >= idleLimit }
        let session = Session(id: Secret.make(), csrf: Secret.make(), token: token, lastUsed: now)
        sessions.append(session)
        if sessions.count > maximumSessions {
            sessions.sort { $0.lastUsed < $1.lastUsed }
            sessions.removeFirst(sessions.count - maximumSessions)
        }
        return session
    }

    /// The live session with this id, signed in with `currentToken`, marked used at `now`; nil
    /// when there is none (unknown, expired, or from before a token rotation).
    public mutating func find(id: String, currentToken: String, now: Date) -> Session? {
        guard Secret.isWellFormed(id) else { return nil }
        var found: Int?
        for (i, s) in sessions.enumerated() where ConstantTime.equal(Array(s.id.utf8), Array(id.utf8)) { found = i }
        guard let i = found else { return nil }
        guard now.timeIntervalSince(sessions[i].lastUsed) < idleLimit,
            ConstantTime.equal(sessions[i].token, currentToken)
        else {
            sessions.remove(at: i)
            return nil
        }
        sessions[i].lastUsed = now
        return sessions[i]
    }

    /// Ends the session with this id (sign-out); true when there was one.
    @discardableResult
    public mutating func close(id: String) -> Bool {
        let before = sessions.count
        sessions.removeAll { ConstantTime.equal(Array($0.id.utf8), Array(id.utf8)) }
        return sessions.count != before
    }
}

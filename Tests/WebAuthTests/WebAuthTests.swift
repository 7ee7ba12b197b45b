import AlarmWebAuth
import Foundation
import Testing

@Suite struct ConstantTimeTests {
    @Test func equalOnlyForTheSameBytes() {
        #expect(ConstantTime.equal("abc", "abc"))
        #expect(!ConstantTime.equal("abc", "abd"))
        #expect(!ConstantTime.equal("abc", "ab"))
        #expect(!ConstantTime.equal("", "a"))
        #expect(ConstantTime.equal("", ""))
        // A prefix is not a match, however long.
        let t = Secret.make()
        #expect(!ConstantTime.equal(String(t.dropLast()), t))
        #expect(!ConstantTime.equal(t + "x", t))
    }
}

@Suite struct SecretTests {
    @Test func secretsAre43Base64urlCharactersAndDiffer() {
        let many = (0..<200).map { _ in Secret.make() }
        #expect(Set(many).count == 200)
        for s in many {
            #expect(s.count == 43)
            #expect(Secret.isWellFormed(s))
        }
        #expect(!Secret.isWellFormed(String(many[0].dropLast())))
        #expect(!Secret.isWellFormed(String(many[0].dropLast()) + "="))
        #expect(!Secret.isWellFormed(String(many[0].dropLast()) + "é"))
    }
}

@Suite struct SignInLimiterTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func fiveFailuresInAMinuteBlockThatAddressOnly() {
        var l = SignInLimiter()
        for i in 0..<4 { l.recordFailure("10.0.0.2", now: t0.addingTimeInterval(Double(i))) }
        #expect(!l.isBlocked("10.0.0.2", now: t0.addingTimeInterval(5)))
        l.recordFailure("10.0.0.2", now: t0.addingTimeInterval(10))
        #expect(l.isBlocked("10.0.0.2", now: t0.addingTimeInterval(10)))
        #expect(!l.isBlocked("10.0.0.3", now: t0.addingTimeInterval(10)))
        // Blocked until the oldest failure is a minute old.
        #expect(l.retryAfter("10.0.0.2", now: t0.addingTimeInterval(10)) == 50)
        #expect(l.isBlocked("10.0.0.2", now: t0.addingTimeInterval(59.9)))
        #expect(!l.isBlocked("10.0.0.2", now: t0.addingTimeInterval(60)))
    }

    @Test func failuresSpreadOverMoreThanAMinuteDoNotBlock() {
        var l = SignInLimiter()
        for i in 0..<20 { l.recordFailure("a", now: t0.addingTimeInterval(Double(i) * 16)) }
        #expect(!l.isBlocked("a", now: t0.addingTimeInterval(19 * 16)))
    }

    @Test func memoryIsBounded() {
        var l = SignInLimiter(maximumAddresses: 100)
        for i in 0..<1000 { l.recordFailure("addr-\(i)", now: t0.addingTimeInterval(Double(i) / 100)) }
        #expect(l.rememberedAddresses <= 100)
        // The newest are the ones kept.
        for _ in 0..<4 { l.recordFailure("addr-999", now: t0.addingTimeInterval(10)) }
        #expect(l.isBlocked("addr-999", now: t0.addingTimeInterval(10)))
    }
}

@Suite struct SessionsTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let token = Secret.make()

    @Test func aSessionIsFoundByItsIdWithTheTokenInForce() {
        var s = Sessions()
        let session = s.open(token: token, now: t0)
        #expect(session.id != session.csrf)
        #expect(s.find(id: session.id, currentToken: token, now: t0.addingTimeInterval(10))?.csrf == session.csrf)
        #expect(s.find(id: Secret.make(), currentToken: token, now: t0) == nil)
        #expect(s.find(id: "short", currentToken: token, now: t0) == nil)
    }

    @Test func aRotatedTokenEndsEverySession() {
        var s = Sessions()
        let session = s.open(token: token, now: t0)
        #expect(s.find(id: session.id, currentToken: Secret.make(), now: t0) == nil)
        // And it stays gone when the old token comes back.
        #expect(s.find(id: session.id, currentToken: token, now: t0) == nil)
    }

    @Test func idleSessionsExpireAndUseKeepsThemAlive() {
        var s = Sessions(idleLimit: 100)
        let a = s.open(token: token, now: t0)
        let b = s.open(token: token, now: t0)
        #expect(s.find(id: a.id, currentToken: token, now: t0.addingTimeInterval(90)) != nil)
        #expect(s.find(id: a.id, currentToken: token, now: t0.addingTimeInterval(180)) != nil)
        #expect(s.find(id: b.id, currentToken: token, now: t0.addingTimeInterval(180)) == nil)
    }

    @Test func signOutAndTheBoundOnSessions() {
        var s = Sessions(maximumSessions: 3)
        let first = s.open(token: token, now: t0)
        for i in 1...5 { _ = s.open(token: token, now: t0.addingTimeInterval(Double(i))) }
        #expect(s.count == 3)
        #expect(s.find(id: first.id, currentToken: token, now: t0.addingTimeInterval(6)) == nil)
        let last = s.open(token: token, now: t0.addingTimeInterval(7))
        let closed = s.close(id: last.id)
        let again = s.close(id: last.id)
        #expect(closed && !again)
        #expect(s.find(id: last.id, currentToken: token, now: t0.addingTimeInterval(8)) == nil)
    }
}

@Suite struct GateTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let token = Secret.make()
    var current: Result<String, WebSetupError> { .success(token) }

    @Test func bearerTokenRightAndWrong() {
        var g = Gate()
        #expect(
            g.check(Credentials(bearer: token), changesState: true, address: "a", token: current, now: t0)
                == .allowed(.token))
        guard
            case .unauthorized = g.check(
                Credentials(bearer: Secret.make()), changesState: false, address: "a", token: current, now: t0)
        else {
            Issue.record("a wrong token was let in")
            return
        }
        guard case .unauthorized = g.check(Credentials(), changesState: false, address: "a", token: current, now: t0)
        else {
            Issue.record("no credentials were let in")
            return
        }
    }

    @Test func fiveWrongTokensThen429EvenForTheRightOne() {
        var g = Gate()
        for i in 0..<5 {
            _ = g.check(
                Credentials(bearer: "guess\(i)"), changesState: false, address: "10.0.0.9", token: current,
                now: t0.addingTimeInterval(Double(i)))
        }
        #expect(
            g.check(
                Credentials(bearer: token), changesState: false, address: "10.0.0.9", token: current,
                now: t0.addingTimeInterval(6)) == .tooManyFailures(retryAfter: 54))
        #expect(
            g.check(
                Credentials(bearer: token), changesState: false, address: "10.0.0.8", token: current,
                now: t0.addingTimeInterval(6)) == .allowed(.token))
        // Failed sign-ins on the form count the same way.
        if case .failure(.tooManyFailures) = g.signIn(
            given: token, address: "10.0.0.9", token: current, now: t0.addingTimeInterval(7))
        {
        } else {
            Issue.record("the form let a blocked address sign in")
        }
        #expect(
            g.check(
                Credentials(bearer: token), changesState: false, address: "10.0.0.9", token: current,
                now: t0.addingTimeInterval(61)) == .allowed(.token))
    }

    @Test func sessionNeedsCSRFForChangesOnly() throws {
        var g = Gate()
        guard case .success(let s) = g.signIn(given: token, address: "a", token: current, now: t0) else {
            Issue.record("sign-in failed")
            return
        }
        #expect(
            g.check(Credentials(session: s.id), changesState: false, address: "a", token: current, now: t0)
                == .allowed(.session(s)))
        guard
            case .unauthorized(let why) = g.check(
                Credentials(session: s.id), changesState: true, address: "a", token: current, now: t0)
        else {
            Issue.record("a change without the CSRF token was let in")
            return
        }
        #expect(why.contains("CSRF"))
        guard
            case .unauthorized = g.check(
                Credentials(session: s.id, csrf: Secret.make()), changesState: true, address: "a", token: current,
                now: t0)
        else {
            Issue.record("a change with a wrong CSRF token was let in")
            return
        }
        guard
            case .allowed = g.check(
                Credentials(session: s.id, csrf: s.csrf), changesState: true, address: "a", token: current, now: t0)
        else {
            Issue.record("the right CSRF token was refused")
            return
        }
    }

    @Test func noTokenFileLetsNobodyIn() {
        var g = Gate()
        let missing: Result<String, WebSetupError> = .failure(WebSetupError("there is no token yet"))
        guard
            case .unavailable = g.check(
                Credentials(bearer: ""), changesState: false, address: "a", token: missing, now: t0)
        else {
            Issue.record("a request got in without a token file")
            return
        }
        if case .success = g.signIn(given: "", address: "a", token: missing, now: t0) {
            Issue.record("signed in without a token file")
        }
    }

    /// A Basic (or any other non-Bearer) Authorization is refused without counting as a failed
    /// sign-in: a browser's saved password for another site cannot lock the owner out (#31).
    @Test func anAuthorizationThatIsNotBearerIsNoFailedSignIn() {
        var g = Gate()
        let basic = Credentials(authorization: "Basic dXNlcjpwYXNz", cookie: nil, csrf: nil)
        for _ in 0..<50 {
            guard
                case .unauthorized(let why) = g.check(basic, changesState: false, address: "b", token: current, now: t0)
            else {
                Issue.record("a Basic Authorization was let in")
                return
            }
            #expect(why == "the Authorization header must be 'Bearer TOKEN'")
        }
        guard
            case .allowed(.token) = g.check(
                Credentials(bearer: token), changesState: false, address: "b", token: current, now: t0)
        else {
            Issue.record("50 Basic headers locked the address out")
            return
        }
        // A wrong Bearer token still counts.
        for i in 0..<50 {
            _ = g.check(Credentials(bearer: "guess\(i)"), changesState: false, address: "c", token: current, now: t0)
        }
        guard
            case .tooManyFailures = g.check(
                Credentials(bearer: token), changesState: false, address: "c", token: current, now: t0)
        else {
            Issue.record("50 wrong tokens did not block the address")
            return
        }
    }

    @Test func credentialsFromHeaders() {
        let c = Credentials(authorization: "Bearer  abc ", cookie: "x=1; alarm_session=SID; y=2", csrf: "C")
        #expect(c == Credentials(bearer: "abc", session: "SID", csrf: "C"))
        #expect(Credentials(authorization: "Basic abc", cookie: nil, csrf: nil).bearer == "")
        #expect(
            Credentials(authorization: "bearer t", cookie: "alarm_sessionX=1", csrf: nil) == Credentials(bearer: "t"))
    }
}

@Suite struct WebTokenFileTests {
    @Test func rotateWritesA0640FileThatReadsBack() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/webtoken-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = WebTokenFile(path: dir + "/etc/web-token")
        #expect(throws: WebSetupError.self) { try file.read() }
        let token = try file.rotate(group: nil)
        #expect(try file.read() == token)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        let current = CurrentToken(file: file)
        #expect(try current.get().get() == token)
        let second = try file.rotate(group: nil)
        #expect(second != token)
        #expect(try current.get().get() == second)
        try "not a token\n".write(toFile: file.path, atomically: true, encoding: .utf8)
        #expect(throws: WebSetupError.self) { try file.read() }
    }
}

@Suite struct ListenAddressTests {
    @Test func forms() throws {
        #expect(try ListenAddress("127.0.0.1:8475") == ListenAddress(host: "127.0.0.1", port: 8475))
        #expect(try ListenAddress("[::1]:80") == ListenAddress(host: "::1", port: 80))
        #expect(try ListenAddress("0.0.0.0:8475").isWildcard)
        #expect(try ListenAddress("127.0.0.1:8475").isLoopback)
        #expect(try ListenAddress("127.0.0.1:0", allowingAnyPort: true).port == 0)
        for bad in [
            "8475", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:70000", "::1:80", "[::1]80", "a b:80",
            "127.0.0.1:+80",
        ] {
            #expect(throws: WebSetupError.self, "\(bad)") { try ListenAddress(bad) }
        }
        #expect(ListenAddress.url(host: "192.168.1.5", port: 8475) == "http://192.168.1.5:8475/")
        #expect(ListenAddress.url(host: "fd00::5", port: 8475) == "http://[fd00::5]:8475/")
    }
}

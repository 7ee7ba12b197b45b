import AlarmTestSupport
import Foundation
import Testing

/// alarm-web over real HTTP against the built binaries: every endpoint, with the answers
/// compared to what the CLI prints for the same request.
@Suite(.serialized) struct WebAPITests {
    @Test func everyEndpointAnswersWhatTheCLIWouldPrint() throws {
        let h = try WebHarness(withDaemon: true)
        defer { h.shutdown() }
        let http = h.http

        // The page and the description need no sign-in.
        let page = try http.get("/", auth: false)
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("id=\"signin-form\""))
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(try http.get("/app.js", auth: false).status == 200)
        #expect(try http.get("/app.css", auth: false).status == 200)
        let openapi = try http.get("/api/openapi.json", auth: false)
        #expect(openapi.status == 200)
        let paths = (openapi.object["paths"] as? [String: Any]).map { Set($0.keys) } ?? []
        for p in [
            "/api/status", "/api/alarms", "/api/alarms/{id}", "/api/alarms/{id}/skip", "/api/alarms/{id}/unskip",
            "/api/next",
            "/api/history", "/api/preview", "/api/snooze", "/api/stop", "/api/ring", "/api/session",
            "/api/openapi.json",
        ] {
            #expect(paths.contains(p), "openapi.json lacks \(p)")
        }

        // Status: alarmd runs and is idle.
        let status = try http.get("/api/status")
        #expect(status.status == 200)
        #expect(status.object["running"] as? Bool == true)
        #expect(status.object["state"] as? String == "idle")
        #expect(try http.get("/api/next").text == "null\n")

        // Add (201), then replace (200): the fields of list --json; created kept on a label edit.
        let added = try http.post("/api/alarms", #"{"id": "work", "expression": "Mon..Fri 06:30", "label": "work"}"#)
        #expect(added.status == 201, "\(added.text)")
        #expect(added.object["expression"] as? String == "Mon..Fri *-*-* 06:30:00")
        #expect(added.object["next"] as? String != nil)
        let created = added.object["created"] as? String
        let replaced = try http.post(
            "/api/alarms",
            #"{"id": "work", "expression": "Mon..Fri 06:30", "label": "office", "next": "ignored", "created": "2001-01-01T00:00:00Z"}"#
        )
        #expect(replaced.status == 200)
        #expect(replaced.object["label"] as? String == "office")
        #expect(replaced.object["created"] as? String == created)
        let auto = try http.post("/api/alarms", #"{"id": "", "at": "2099-12-24T07:00:00+01:00"}"#)
        #expect(auto.status == 201)
        #expect(auto.object["id"] as? String == "alarm-1")

        // Reads equal the CLI's JSON, byte for byte.
        let list = try http.get("/api/alarms")
        #expect(list.status == 200)
        #expect(list.text == (try h.cli("list", "--json")).stdout)
        let one = try http.get("/api/alarms/work")
        #expect(one.status == 200)
        let fromCLI =
            try JSONSerialization.jsonObject(with: Data(h.cli("list", "--json").stdout.utf8)) as? [[String: Any]] ?? []
        let cliWork = fromCLI.first { $0["id"] as? String == "work" } ?? [:]
        #expect(
            try JSONSerialization.data(withJSONObject: one.object, options: [.sortedKeys])
                == JSONSerialization.data(withJSONObject: cliWork, options: [.sortedKeys]),
            "API: \(one.text) CLI: \(cliWork)")
        let next = try http.get("/api/next")
        let nextCLI =
            try JSONSerialization.jsonObject(with: Data(h.cli("next", "--json").stdout.utf8)) as? [String: Any] ?? [:]
        #expect(next.object["id"] as? String == "work")
        #expect(next.object["at"] as? String == nextCLI["at"] as? String)
        let preview = try http.get("/api/preview?expr=Mon..Fri%2006:30&count=3&zone=America/New_York")
        #expect(preview.status == 200)
        let previewCLI = try h.cli("preview", "Mon..Fri 06:30", "--count", "3", "--zone", "America/New_York", "--json")
        #expect(preview.text == previewCLI.stdout)
        #expect((preview.json as? [String])?.count == 3)
        let plus = try http.get("/api/preview?expr=Mon..Fri+06:30")
        #expect((plus.json as? [String])?.count == 5)

        // Skip and unskip, as alarm skip / unskip.
        let skipped = try http.post("/api/alarms/work/skip")
        #expect(skipped.status == 200)
        #expect(skipped.object["skip_next"] as? Bool == true)
        #expect((try h.cli("list", "--json")).stdout.contains("\"skip_next\" : true"))
        #expect(skipped.object["next"] as? String != replaced.object["next"] as? String)
        let unskipped = try http.post("/api/alarms/work/unskip")
        #expect(unskipped.object["skip_next"] as? Bool == false)

        // Remove.
        let removed = try http.send("DELETE", "/api/alarms/alarm-1")
        #expect(removed.status == 200)
        #expect(removed.object["removed"] as? String == "alarm-1")
        #expect(try http.get("/api/alarms/alarm-1").status == 404)
        #expect(try http.send("DELETE", "/api/alarms/alarm-1").status == 404)

        // Ring, snooze with a duration, ring is heard; stop; stop again is a 409.
        let ring = try http.post("/api/ring")
        #expect(ring.status == 200, "\(ring.text)")
        #expect(ring.object["state"] as? String == "ringing")
        let recorder = try #require(h.recorder)
        #expect(recorder.waitForSound(from: 0, timeout: 15) != nil, "the ring was not heard on the sink")
        let snoozed = try http.post("/api/snooze", #"{"duration": "5m"}"#)
        #expect(snoozed.status == 200, "\(snoozed.text)")
        #expect(snoozed.object["state"] as? String == "snoozed")
        #expect(snoozed.object["snoozed_until"] as? String != nil)
        let stopped = try http.post("/api/stop")
        #expect(stopped.status == 200)
        #expect(stopped.object["state"] as? String == "idle")
        let again = try http.post("/api/stop")
        #expect(again.status == 409)
        #expect(again.error?.hasPrefix("nothing to stop") == true)
        let notRinging = try http.post("/api/snooze")
        #expect(notRinging.status == 409)
        #expect(notRinging.error?.hasPrefix("nothing was snoozed") == true)

        // History: what alarm history --json prints.
        #expect(h.wait(10) { (try? http.get("/api/history"))?.text.contains("\"outcome\"") == true })
        let history = try http.get("/api/history")
        #expect(history.status == 200)
        #expect(history.text == (try h.cli("history", "--json")).stdout)

        // HEAD works where GET does, without a body.
        let head = try http.send("HEAD", "/api/status")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)

        // The token is in no log.
        #expect(!h.webLog.contains(h.token))
        #expect(!h.daemonLog.contains(h.token))
    }

    @Test func errorsAndHostileInput() throws {
        let h = try WebHarness(withDaemon: true)
        defer { h.shutdown() }
        let http = h.http

        // Bad bodies: 400 with a message; nothing stored.
        for (body, wanted) in [
            ("{", "not an alarm"), ("[]", "one alarm"), ("\"x\"", "one alarm"), ("", "empty"), ("{}", "id"),
            (#"{"id": "a"}"#, "expression"), (#"{"id": "a", "expression": 5}"#, "expression"),
            (#"{"id": "a", "expression": "Mon..Fri 25:00"}"#, "expression"),
            (#"{"id": "a", "expression": "07:00", "zone": "Mars/Olympus"}"#, "Mars/Olympus"),
            (#"{"id": "a", "at": "yesterday"}"#, "RFC 3339"),
            (#"{"id": "a", "at": "2001-01-01T07:00:00Z"}"#, "this alarm would never ring"),
            (#"{"id": "../etc/passwd", "expression": "07:00"}"#, "alarm id '../etc/passwd' must be"),
            (#"{"id": "a", "expression": "07:00", "volume": 300}"#, "volume must be 0-100"),
            (#"{"id": "a", "expression": "07:00", "sound": "../../etc/shadow"}"#, "sound:"),
            (#"{"id": "a", "expression": "07:00"}, {"id": "b", "expression": "08:00"}"#, "one alarm"),
            ("{\"id\": \"a\", \"expression\": \"07:00\"}\u{0}", "not an alarm"),
            (String(repeating: "[", count: 5000), "one alarm"),
            (#"{"id": "a", "expression": "07:00", "snooze": -5}"#, "snooze"),
        ] {
            let r = try http.post("/api/alarms", body)
            #expect(r.status == 400, "\(body.prefix(60)): \(r.status) \(r.text)")
            #expect(r.error?.contains(wanted) == true, "\(body.prefix(60)): \(r.text)")
            #expect(r.header("Content-Type")?.hasPrefix("application/json") == true)
        }
        #expect(try http.get("/api/alarms").text == "[\n\n]\n")

        // The CLI's messages: the same text as alarm add prints for the same mistake.
        let cli = try h.cli("add", "Mon..Fri 25:00", "--id", "a")
        let api = try http.post("/api/alarms", #"{"id": "a", "expression": "Mon..Fri 25:00"}"#)
        let cliMessage = cli.stderr.replacingOccurrences(of: "Error: ", with: "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(!cliMessage.isEmpty && api.error?.contains(cliMessage) == true, "CLI: \(cli.stderr) API: \(api.text)")
        let cliNever = try h.cli("add", "--at", "2001-01-01T07:00:00Z", "--id", "a")
        let apiNever = try http.post("/api/alarms", #"{"id": "a", "at": "2001-01-01T07:00:00Z"}"#)
        #expect(
            apiNever.error
                == cliNever.stderr.replacingOccurrences(of: "Error: ", with: "").trimmingCharacters(
                    in: .whitespacesAndNewlines))

        // Bodies over 64 KiB: 413, declared or chunked; just under is read (and refused as JSON).
        let big =
            "{\"id\": \"a\", \"label\": \"" + String(repeating: "x", count: 70 * 1024)
            + "\", \"expression\": \"07:00\"}"
        let tooLarge = try http.post("/api/alarms", big)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.error?.contains("64 KiB") == true)
        var chunked = Data()
        for _ in 0..<20 {
            let piece = String(repeating: "y", count: 4096)
            chunked.append(Data((String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n").utf8))
        }
        chunked.append(Data("0\r\n\r\n".utf8))
        let chunkedAnswer = try http.send(
            "POST", "/api/alarms", headers: [("Transfer-Encoding", "chunked")], body: chunked)
        #expect(chunkedAnswer.status == 413)
        let justUnder = try http.post("/api/alarms", String(repeating: " ", count: 64 * 1024 - 10) + "{}")
        #expect(justUnder.status == 400)
        let hugeHeaderless = try http.exchange(
            Data(
                "POST /api/alarms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(h.token)\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n{"
                    .utf8))
        #expect(hugeHeaderless.status == 413)

        // Malformed HTTP: 400 (or 501 for a transfer coding it does not know), never a crash.
        for (raw, want) in [
            ("GARBAGE\r\n\r\n", 400), ("GET /api/status HTTP/9.9\r\nHost: x\r\n\r\n", 400),
            ("GET api/status HTTP/1.1\r\n\r\n", 400),
            ("GET /api/status HTTP/1.1\r\nno colon here\r\n\r\n", 400),
            ("GET /api/status HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
            ("POST /api/alarms HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400),
            ("POST /api/alarms HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x", 400),
            ("POST /api/alarms HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST /api/alarms HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("POST /api/alarms HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            // A signed chunk size once crashed the server (an index before the buffer).
            ("POST /api/alarms HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n0\r\n\r\n", 400),
            ("GET /api/status HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 20_000) + "\r\n\r\n", 400),
        ] {
            let r = try http.exchange(Data(raw.utf8))
            #expect(r.status == want, "\(raw.prefix(60)): \(r.status) \(r.text)")
            #expect(r.error != nil)
        }
        // The server lived through all of that.
        #expect(try http.send("GET", "/api/status").status == 200)
        // A chunked body under the limit is read like any other.
        let chunkedAlarm = Data("{\"id\": \"chunked\", \"expression\": \"07:00\"}".utf8)
        var small = Data((String(chunkedAlarm.count, radix: 16) + "\r\n").utf8)
        small.append(chunkedAlarm)
        small.append(Data("\r\n0\r\n\r\n".utf8))
        #expect(
            try http.send("POST", "/api/alarms", headers: [("Transfer-Encoding", "chunked")], body: small).status == 201
        )
        #expect(try http.send("DELETE", "/api/alarms/chunked").status == 200)

        // Odd ids in paths: no such alarm (404), a broken escape (400), never a file.
        for path in [
            "/api/alarms/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/api/alarms/..", "/api/alarms/%00",
            "/api/alarms/" + String(repeating: "a", count: 4000),
            "/api/alarms/%E2%80%AE", "/api/alarms/x%22%3Cscript%3E",
        ] {
            let r = try http.get(path)
            #expect(r.status == 404, "\(path.prefix(60)): \(r.status)")
            #expect(
                r.error?.hasPrefix("no alarm with id") == true || r.error?.hasPrefix("no such") == true,
                "\(path.prefix(60)): \(r.text)")
        }
        #expect(try http.post("/api/alarms/a%20b/skip").status == 404)
        #expect(try http.post("/api/alarms/nope/skip").status == 404)
        #expect(try http.post("/api/alarms/nope/unskip").status == 404)
        #expect(try http.send("DELETE", "/api/alarms/nope").status == 404)
        let broken = try http.get("/api/alarms/%zz")
        #expect(broken.status == 400)
        let echoed = try http.get("/api/alarms/x%22%3Cscript%3E")
        #expect(!echoed.text.contains("<script>"))

        // Unknown endpoints 404, wrong methods 405 (with Allow).
        #expect(try http.get("/api/nothing").status == 404)
        #expect(try http.get("/etc/passwd").status == 404)
        #expect(try http.get("/api/alarms/a/b/c").status == 404)
        let wrong = try http.send("PUT", "/api/alarms")
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, POST")
        #expect(try http.get("/api/stop").status == 405)

        // Preview's input.
        for (query, wanted) in [
            ("", "give a calendar expression"), ("expr=07:00&count=0", "count"), ("expr=07:00&count=abc", "count"),
            ("expr=07:00&count=10001", "count"), ("expr=07:00&zone=Mars/Olympus", "Mars/Olympus"),
            ("expr=25:00", "25"), ("expr=2001-01-01%2007:00", "never rings"), ("expr=%zz", "escape"),
        ] {
            let r = try http.get("/api/preview?" + query)
            #expect(r.status == 400, "\(query): \(r.text)")
            #expect(r.error?.contains(wanted) == true, "\(query): \(r.text)")
        }

        // Control bodies.
        #expect(try http.post("/api/snooze", #"{"duration": "soon"}"#).status == 400)
        #expect(try http.post("/api/snooze", "{").status == 400)
        #expect(try http.post("/api/snooze", #"{"duration": 5}"#).status == 400)
        #expect(try http.post("/api/ring", #"{"sound": "../x"}"#).status == 400)
        #expect(try http.post("/api/ring", #"{"sound": "a\nstop"}"#).status == 400)

        // No, wrong or malformed credentials: 401 with a JSON error, on every endpoint.
        let anonymous = RawHTTP(port: h.port, token: nil)
        for (method, path) in [
            ("GET", "/api/status"), ("GET", "/api/alarms"), ("GET", "/api/alarms/x"), ("GET", "/api/next"),
            ("GET", "/api/history"),
            ("GET", "/api/preview?expr=07:00"), ("POST", "/api/alarms"), ("DELETE", "/api/alarms/x"),
            ("POST", "/api/alarms/x/skip"),
            ("POST", "/api/alarms/x/unskip"), ("POST", "/api/snooze"), ("POST", "/api/stop"), ("POST", "/api/ring"),
        ] {
            let r = try anonymous.send(method, path, body: method == "POST" ? Data("{}".utf8) : nil)
            #expect(r.status == 401, "\(method) \(path)")
            #expect(r.error != nil)
        }
        #expect(
            try anonymous.send("GET", "/api/status", headers: [("Authorization", "Basic YWxhcm06eA==")]).status == 401)
        #expect(h.status()?["state"] as? String == "idle")
    }

    @Test func thePagesSessionNeedsItsCSRFTokenForChanges() throws {
        let h = try WebHarness(withDaemon: true)
        defer { h.shutdown() }
        let anonymous = RawHTTP(port: h.port, token: nil)

        let wrong = try anonymous.post("/api/session", #"{"token": "not-it"}"#)
        #expect(wrong.status == 401)
        #expect(wrong.header("Set-Cookie") == nil)
        #expect(try anonymous.post("/api/session", "{").status == 400)

        let signIn = try anonymous.post("/api/session", "{\"token\": \"\(h.token)\"}")
        #expect(signIn.status == 200)
        let cookie = try #require(signIn.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(cookie.contains("Path=/"))
        #expect(!cookie.contains(h.token))
        #expect(!signIn.text.contains(h.token))
        let session = String(cookie.split(separator: ";")[0])
        let csrf = try #require(signIn.object["csrf"] as? String)

        // Reads with the cookie alone; the CSRF token again for a reloaded page.
        #expect(try anonymous.send("GET", "/api/alarms", headers: [("Cookie", session)]).status == 200)
        #expect(
            try anonymous.send("GET", "/api/session", headers: [("Cookie", session)]).object["csrf"] as? String == csrf)

        // Changes: without the CSRF token, or with a wrong one, 401 and nothing changes.
        let body = Data(#"{"id": "csrf", "expression": "07:00"}"#.utf8)
        let noCSRF = try anonymous.send("POST", "/api/alarms", headers: [("Cookie", session)], body: body)
        #expect(noCSRF.status == 401)
        #expect(noCSRF.error?.contains("CSRF") == true)
        #expect(
            try anonymous.send(
                "POST", "/api/alarms", headers: [("Cookie", session), ("X-CSRF-Token", String(csrf.reversed()))],
                body: body
            ).status == 401)
        #expect(try anonymous.send("DELETE", "/api/session", headers: [("Cookie", session)]).status == 401)
        #expect(try anonymous.send("POST", "/api/stop", headers: [("Cookie", session)]).status == 401)
        #expect(try h.cli("list", "--json").stdout == "[\n\n]\n")
        let ok = try anonymous.send(
            "POST", "/api/alarms", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], body: body)
        #expect(ok.status == 201)

        // A forged cookie is nobody.
        #expect(
            try anonymous.send(
                "GET", "/api/alarms", headers: [("Cookie", "alarm_session=" + String(repeating: "A", count: 43))]
            ).status == 401)

        // Rotating the token ends the session and the old token at once.
        let old = h.token
        let rotated = try h.cli("web-token", "--rotate")
        #expect(rotated.status == 0)
        let fresh = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(fresh != old)
        #expect(try anonymous.send("GET", "/api/alarms", headers: [("Cookie", session)]).status == 401)
        #expect(try RawHTTP(port: h.port, token: old).get("/api/alarms").status == 401)
        #expect(try RawHTTP(port: h.port, token: fresh).get("/api/alarms").status == 200)
        #expect(try h.cli("web-token").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == fresh)

        // Signing out ends it too.
        let again = try anonymous.post("/api/session", "{\"token\": \"\(fresh)\"}")
        let session2 = String(try #require(again.header("Set-Cookie")).split(separator: ";")[0])
        let csrf2 = try #require(again.object["csrf"] as? String)
        let out = try anonymous.send(
            "DELETE", "/api/session", headers: [("Cookie", session2), ("X-CSRF-Token", csrf2)])
        #expect(out.status == 200)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try anonymous.send("GET", "/api/alarms", headers: [("Cookie", session2)]).status == 401)
        #expect(!h.webLog.contains(old) && !h.webLog.contains(fresh))
    }

    /// Five failed sign-ins in a minute make that address's wrong tokens 429; the right token
    /// is still let in (issue #42: it used to be refused too, so anyone on the machine could
    /// keep the owner out by guessing from 127.0.0.1).
    @Test func fiveFailedSignInsInAMinuteAnswer429ToWrongTokensOnly() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        let anonymous = RawHTTP(port: h.port, token: nil)
        for i in 0..<3 { #expect(try anonymous.post("/api/session", "{\"token\": \"guess\(i)\"}").status == 401) }
        for i in 0..<2 {
            #expect(try RawHTTP(port: h.port, token: "guess-bearer-\(i)").get("/api/status").status == 401)
        }
        let limited = try anonymous.post("/api/session", "{\"token\": \"guess3\"}")
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        #expect(limited.error?.contains("too many failed sign-ins") == true)
        #expect(try RawHTTP(port: h.port, token: "guess-bearer-2").get("/api/status").status == 429)
        #expect(try anonymous.get("/api/status").status == 429, "no credentials from a throttled address")
        // The right token, from the same address, within the minute: on the form and as Bearer.
        let signedIn = try anonymous.post("/api/session", "{\"token\": \"\(h.token)\"}")
        #expect(signedIn.status == 200, "\(signedIn.status) \(signedIn.text)")
        let cookie = String(try #require(signedIn.header("Set-Cookie")).split(separator: ";")[0])
        #expect(try anonymous.send("GET", "/api/session", headers: [("Cookie", cookie)]).status == 200)
        #expect(try h.http.get("/api/status").status == 200)
        // The page and the description are served.
        #expect(try anonymous.get("/").status == 200)
        #expect(h.webLog.contains("refused 127.0.0.1: failed sign-in"), "\(h.webLog)")
        #expect(!h.webLog.contains(h.token))
    }

    /// Issue #42, end to end: ten wrong Bearer tokens from 127.0.0.1 (any local user can send
    /// them), then the owner's request with the right token is answered 200, not 429.
    @Test func tenWrongTokensFromLocalhostDoNotLockTheOwnerOut() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        let guesser = RawHTTP(port: h.port, token: "not-the-token", source: "127.0.0.1")
        let answers = try (0..<10).map { _ in try guesser.get("/api/status").status }
        #expect(answers == Array(repeating: 401, count: 5) + Array(repeating: 429, count: 5), "\(answers)")
        let owner = try h.http.get("/api/status")
        #expect(owner.status == 200, "\(owner.status) \(owner.text)")
        #expect(owner.object["running"] as? Bool == false)
        // The guesser is still throttled after the owner got in.
        #expect(try guesser.get("/api/status").status == 429)
    }

    @Test func withoutAlarmdControlIs503AndTheRestWorks() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        let http = h.http
        #expect(try http.get("/api/status").object["running"] as? Bool == false)
        let stop = try http.post("/api/stop")
        #expect(stop.status == 503)
        #expect(stop.error?.contains("alarmd is not running") == true)
        #expect(try http.post("/api/alarms", #"{"id": "a", "expression": "07:00"}"#).status == 201)
        #expect(try h.cli("list", "--json").stdout.contains("\"id\" : \"a\""))
        // SIGTERM ends it cleanly.
        #expect(h.stopWeb() == 0)
    }

    /// Issue #13's snooze limit through the API: the refusal is alarmd's, answered 409 with the
    /// CLI's message, and the ring goes on; stop still works.
    @Test func aSnoozePastTheLimitIs409AndTheRingGoesOn() throws {
        let h = try WebHarness(withDaemon: true, config: "max_snoozes = 1\n")
        defer { h.shutdown() }
        let http = h.http
        #expect(try http.post("/api/ring").status == 200)
        #expect(h.wait(10) { h.status()?["state"] as? String == "ringing" }, "\(h.status() ?? [:])")
        let first = try http.post("/api/snooze", #"{"duration": "2s"}"#)
        #expect(first.status == 200, "\(first.text)")
        #expect(h.wait(10) { h.status()?["state"] as? String == "snoozed" })
        #expect(
            h.wait(15) { h.status()?["state"] as? String == "ringing" }, "rings again after 2 s: \(h.status() ?? [:])")
        let refused = try http.post("/api/snooze")
        #expect(refused.status == 409, "\(refused.text)")
        #expect(
            refused.error?.contains("snooze refused") == true
                && refused.error?.contains("the alarm keeps ringing") == true, "\(refused.text)")
        Thread.sleep(forTimeInterval: 1)
        #expect(h.status()?["state"] as? String == "ringing", "the ring goes on")
        #expect(try http.post("/api/stop").status == 200)
        #expect(h.wait(10) { h.status()?["state"] as? String == "idle" })
    }

    @Test func idleConnectionsAreBoundedPerAddressAndTimedOut() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        // 16 connections from one address that began a request and stalled: the 17th from it is
        // closed at once, unread; other addresses are answered as if nothing were open.
        var stalled: [Int32] = []
        defer { for fd in stalled { close(fd) } }
        for _ in 0..<16 {
            let fd = try RawHTTP.connect(port: h.port, from: "127.0.0.1")
            sendText(fd, "G")
            stalled.append(fd)
        }
        #expect(
            h.wait(5) {
                guard let fd = try? RawHTTP.connect(port: h.port, from: "127.0.0.1") else { return false }
                defer { close(fd) }
                sendText(fd, "G")
                return !isOpen(fd, wait: 0.5)
            }, "a 17th connection from the same address is closed at once")
        var other = h.http
        other.source = "127.0.0.2"
        #expect(try other.get("/api/status").status == 200)
        // A connection that sends nothing at all: the kernel hands it to alarm-web only after a
        // few seconds (TCP_DEFER_ACCEPT), which gives up on it 10 s later.
        let silent = try RawHTTP.connect(port: h.port, from: "127.0.0.3")
        defer { close(silent) }
        // The stalled ones are closed at their head deadline; then that address is answered again.
        #expect(h.wait(25) { stalled.allSatisfy { !isOpen($0) } }, "the stalled connections were closed by the server")
        #expect(try h.http.get("/api/status").status == 200)
        #expect(h.wait(10) { h.webLog.contains("refused 127.0.0.1: more than 16 connections from this address") })
        #expect(h.webLog.contains("refused 127.0.0.1: timed out: request head not complete within 5 s"))
        #expect(h.wait(30) { !isOpen(silent) }, "the silent connection was closed by the server")
        #expect(h.webLog.contains("refused 127.0.0.3: timed out: sent no request within 10 s of connecting"))
    }

    /// Issue #12's rules in the preview, as the add form sends them: what `alarm preview` with
    /// the same options prints, holidays from the config's file.
    @Test func previewTakesEveryFromUntilAndSkipHolidays() throws {
        let holidays = FileManager.default.temporaryDirectory.path + "/alarm-web-holidays-\(UUID().uuidString)"
        try "2026-12-25 Christmas\n2027-01-01 New Year\n".write(toFile: holidays, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: holidays) }
        let h = try WebHarness(withDaemon: false, config: "holidays = \(holidays)\n")
        defer { h.shutdown() }
        let http = h.http
        for (query, args) in [
            (
                "expr=Mon%2006:30&every=2w&from=2026-11-23&count=4",
                ["Mon 06:30", "--every", "2w", "--from", "2026-11-23", "--count", "4"]
            ),
            ("expr=07:00&every=3d&count=3", ["07:00", "--every", "3d", "--count", "3"]),
            (
                "expr=07:00&from=2099-03-01&until=2099-03-04&count=10",
                ["07:00", "--from", "2099-03-01", "--until", "2099-03-04", "--count", "10"]
            ),
            (
                "expr=*-12-24..26%2008:00&skip_holidays=true&count=3",
                ["*-12-24..26 08:00", "--skip-holidays", "--count", "3"]
            ),
            ("expr=*-12-24..26%2008:00&skip_holidays=0&count=3", ["*-12-24..26 08:00", "--count", "3"]),
        ] {
            let r = try http.get("/api/preview?" + query)
            #expect(r.status == 200, "\(query): \(r.text)")
            let cli = try h.cli(["preview"] + args + ["--json"])
            #expect(cli.status == 0, "\(args): \(cli.stderr)")
            #expect(r.text == cli.stdout, "\(query)")
        }
        let every = try http.get("/api/preview?expr=Mon%2006:30&every=2w&from=2026-11-23&count=2").json as? [String]
        #expect(every?.count == 2)
        if let e = every, e.count == 2, let a = RFC3339Test.parse(e[0]), let b = RFC3339Test.parse(e[1]) {
            #expect(abs(b.timeIntervalSince(a) - 14 * 86400) <= 3600, "every other Monday: \(e)")
        }
        let bounded =
            try http.get("/api/preview?expr=07:00&from=2099-03-01&until=2099-03-04&count=10").json as? [String]
        #expect(bounded?.count == 4, "four days from 1 to 4 March: \(bounded ?? [])")
        let skipped =
            try http.get("/api/preview?expr=*-12-24..26%2008:00&skip_holidays=1&count=3").json as? [String] ?? []
        #expect(skipped.count == 3 && !skipped.contains { $0.hasPrefix("2026-12-25") }, "\(skipped)")

        for (query, wanted) in [
            ("expr=07:00&every=2", "a number needs a unit"), ("expr=07:00&every=1.5d", "36h"),
            ("expr=07:00&from=2026-02-30", "'2026-02-30' is not a date"),
            ("expr=07:00&skip_holidays=maybe", "skip_holidays must be true or false"),
            ("expr=07:00&until=2001-01-01", "never rings"),
        ] {
            let r = try http.get("/api/preview?" + query)
            #expect(r.status == 400, "\(query): \(r.text)")
            #expect(r.error?.contains(wanted) == true, "\(query): \(r.text)")
        }
        // The add form's more options, posted: days and weeks count from today, as `alarm add
        // --every 2w` counts them, so the alarm stored rings what the preview showed.
        let posted = try http.post(
            "/api/alarms",
            #"{"id": "bi", "expression": "Mon 06:30", "every": "2w", "skip_holidays": true, "max_snoozes": 2, "when_ignored": "silence"}"#
        )
        #expect(posted.status == 201, "\(posted.text)")
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let d = berlin.dateComponents([.year, .month, .day], from: Date())
        #expect(
            posted.object["from"] as? String == String(format: "%04d-%02d-%02d", d.year!, d.month!, d.day!),
            "\(posted.text)")
        #expect(posted.object["every"] as? String == "2w")
        #expect(posted.object["skip_holidays"] as? Bool == true)
        #expect(posted.object["max_snoozes"] as? Int == 2)
        #expect(posted.object["when_ignored"] as? String == "silence")
        let shown = try http.get("/api/preview?expr=Mon%2006:30&every=2w&skip_holidays=true&count=1").json as? [String]
        #expect(
            shown?.first != nil && shown?.first == posted.object["next"] as? String, "\(shown ?? []) vs \(posted.text)")

        // Without a holidays file, skipping holidays cannot be previewed: said, not ignored.
        let bare = try WebHarness(withDaemon: false)
        defer { bare.shutdown() }
        let none = try bare.http.get("/api/preview?expr=07:00&skip_holidays=true")
        #expect(none.status == 400)
        #expect(none.error?.contains("no holidays file") == true, "\(none.text)")
    }

    @Test func aMissingTokenFileLetsNobodyIn() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        try FileManager.default.removeItem(atPath: h.tokenPath)
        let r = try h.http.get("/api/status")
        #expect(r.status == 503)
        #expect(r.error?.contains("alarm web-token --rotate") == true)
        let made = try h.cli("web-token", "--rotate")
        #expect(
            try RawHTTP(port: h.port, token: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).get(
                "/api/status"
            ).status == 200)
    }

    @Test func webURLNamesTheAddressToOpen() throws {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-weburl-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func url(_ conf: String) throws -> Binaries.Result {
            try conf.write(toFile: root + "/alarm.conf", atomically: true, encoding: .utf8)
            return try Binaries.run("alarm", ["web-url", "--config", root + "/alarm.conf"])
        }
        let loopback = try url("")
        #expect(loopback.stdout == "http://127.0.0.1:8475/\n")
        #expect(loopback.stderr.contains("web_listen = 0.0.0.0:8475"))
        #expect(try url("web_listen = 192.168.7.2:9000\n").stdout == "http://192.168.7.2:9000/\n")
        let all = try url("web_listen = 0.0.0.0:8475\n")
        #expect(all.status == 0)
        #expect(all.stdout.hasPrefix("http://") && all.stdout.contains(":8475/"))
        #expect(!all.stdout.contains("127.0.0.1") || all.stderr.contains("no network address"))
        let bad = try url("web_listen = nonsense\n")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("web_listen 'nonsense'"))
    }
}

/// RFC 3339 as alarm prints it, read back with Foundation.
enum RFC3339Test {
    static func parse(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        return f.date(from: text)
    }
}

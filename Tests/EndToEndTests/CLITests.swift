import AlarmTestSupport
import Foundation
import Testing

/// The alarm-management commands as a user runs them: the built `alarm`, a temporary state
/// directory, no daemon needed.
@Suite("alarm CLI: managing alarms (the built binary)")
struct CLITests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-cli-" + UUID().uuidString
        var environment: [String: String] {
            [
                "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null",
                "ALARM_SOUNDS_DIR": root + "/sounds", "TZ": "Europe/Berlin",
            ]
        }
        init() throws {
            try FileManager.default.createDirectory(atPath: root + "/sounds", withIntermediateDirectories: true)
        }
        func run(_ args: String...) throws -> Binaries.Result {
            try Binaries.run("alarm", args, environment: environment)
        }
        func list() throws -> [[String: Any]] {
            let r = try run("list", "--json")
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("alarm, alarmd and alarm-hooks --version print one version, a Debian version string")
    func version() throws {
        var seen: Set<String> = []
        for name in ["alarm", "alarmd", "alarm-hooks"] {
            let r = try Binaries.run(name, ["--version"])
            #expect(r.status == 0, "\(name) --version: \(r.stderr)")
            let v = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                v.range(of: #"^[0-9][A-Za-z0-9.+~-]*$"#, options: .regularExpression) != nil,
                "\(name) --version: '\(r.stdout)'")
            seen.insert(v)
        }
        #expect(seen.count == 1, "the entry points disagree: \(seen)")
        if let expected = ProcessInfo.processInfo.environment["ALARM_VERSION"], !expected.isEmpty {
            #expect(seen == [expected], "built with ALARM_VERSION=\(expected)")
        }
    }

    @Test("add prints the id and the next ring; list --json shows every field")
    func addAndList() throws {
        let e = try Env()
        let r = try e.run(
            "add", "Mon..Fri 06:30", "--id", "work", "--label", "Work", "--snooze", "5m", "--ring", "15m",
            "--volume", "80", "--fade-in", "30s")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("added work: next ring "), "\(r.stdout)")
        #expect(r.stdout.contains("+01:00") || r.stdout.contains("+02:00"))
        let alarms = try e.list()
        #expect(alarms.count == 1)
        let a = try #require(alarms.first)
        #expect(a["id"] as? String == "work")
        #expect(a["expression"] as? String == "Mon..Fri *-*-* 06:30:00")
        #expect(a["mode"] as? String == "floating")
        #expect(a["label"] as? String == "Work")
        #expect(a["snooze"] as? Double == 300)
        #expect(a["ring"] as? Double == 900)
        #expect(a["volume"] as? Int == 80)
        #expect(a["fade_in"] as? Double == 30)
        #expect((a["next"] as? String)?.contains("T06:30:00") == true)
        // --fade-in also takes plain seconds, as alarm play does.
        #expect(try e.run("add", "07:00", "--id", "plain", "--fade-in", "45").status == 0)
        #expect(try e.list().first { $0["id"] as? String == "plain" }?["fade_in"] as? Double == 45)
        // The human table names it too.
        #expect(try e.run("list").stdout.contains("work"))
    }

    @Test("systemd's forms (issue #12): list shows and stores systemd's normalized form")
    func systemdForms() throws {
        let e = try Env()
        for (expr, id) in [
            ("*-*~01 09:00", "month-end"), ("Mon *-05~07/1 07:00", "last-monday"), ("monthly", "rent"),
            ("2027-12-24", "eve"),
        ] {
            let r = try e.run("add", expr, "--id", id)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let byID = Dictionary(uniqueKeysWithValues: try e.list().map { ($0["id"] as! String, $0) })
        #expect(byID["month-end"]?["expression"] as? String == "*-*~01 09:00:00")
        #expect(byID["last-monday"]?["expression"] as? String == "Mon *-05~07/1 07:00:00")
        #expect(byID["rent"]?["expression"] as? String == "*-*-01 00:00:00")
        #expect(byID["eve"]?["expression"] as? String == "2027-12-24 00:00:00")
        #expect((byID["month-end"]?["next"] as? String)?.contains("T09:00:00") == true)
        let table = try e.run("list").stdout
        #expect(table.contains("*-*~01 09:00:00") && table.contains("Mon *-05~07/1 07:00:00"), "\(table)")
        // What systemd refuses is refused, saying why.
        let bad = try e.run("add", "20/4:00")
        #expect(bad.status != 0 && bad.stderr.contains("never repeats"), "\(bad.stderr)")
    }

    @Test("adding an existing id replaces it; ids are generated when not given")
    func replace() throws {
        let e = try Env()
        #expect(try e.run("add", "07:00", "--id", "x").status == 0)
        let r = try e.run("add", "08:15", "--id", "x")
        #expect(r.stdout.hasPrefix("replaced x"))
        #expect(try e.list().map { $0["expression"] as? String } == ["*-*-* 08:15:00"])
        #expect(try e.run("add", "09:00").stdout.hasPrefix("added alarm-1"))
        #expect(try e.run("add", "10:00").stdout.hasPrefix("added alarm-2"))
    }

    @Test("zones: --zone and a zone in the expression pin it; --in and --at are absolute")
    func modes() throws {
        let e = try Env()
        #expect(try e.run("add", "07:00", "--zone", "america/new_york", "--id", "ny").status == 0)
        #expect(try e.run("add", "07:00 Asia/Tokyo", "--id", "tokyo").status == 0)
        #expect(try e.run("add", "--in", "1h30m", "--id", "tea").status == 0)
        #expect(try e.run("add", "--at", "2030-01-01T07:00:00+01:00", "--id", "new-year").status == 0)
        let byID = Dictionary(uniqueKeysWithValues: try e.list().map { ($0["id"] as! String, $0) })
        #expect(byID["ny"]?["mode"] as? String == "pinned")
        #expect(byID["ny"]?["zone"] as? String == "America/New_York")
        #expect(
            (byID["ny"]?["next"] as? String)?.hasSuffix("-05:00") == true
                || (byID["ny"]?["next"] as? String)?.hasSuffix("-04:00") == true)
        #expect(byID["tokyo"]?["zone"] as? String == "Asia/Tokyo")
        #expect(byID["tea"]?["mode"] as? String == "absolute")
        #expect(byID["new-year"]?["at"] as? String == "2030-01-01T06:00:00+00:00")
    }

    @Test("--in 1m says 'in 1 min', --in 2m 'in 2 min': the time left is rounded to the nearest minute (issue #30)")
    func inSpoken() throws {
        let e = try Env()
        for (duration, spoken) in [("1m", "1 min"), ("2m", "2 min"), ("90m", "1 h 30 min"), ("45s", "45 s")] {
            let r = try e.run("add", "--in", duration, "--id", "in" + duration)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasSuffix("(in \(spoken))\n"), "--in \(duration): \(r.stdout)")
        }
    }

    @Test(
        "bad input is refused with a clear message and stores nothing",
        arguments: [
            (["add", "*-02-30 07:00"], "February has no day 30"),
            (["add", "07:00 Mars/Olympus"], "unknown time zone"),
            (["add", "07:00", "--zone", "Nowhere/Town"], "unknown time zone"),
            (["add", "07:61"], "minute 61"),
            // As systemd refuses them (issue #23), shown on one line: a script's trailing newline, a tab.
            (["add", "Mon 06:30\n"], "invalid calendar expression 'Mon 06:30\\n': it holds a line break"),
            (["add", "Mon\t06:30"], "'Mon\\t06:30': it holds a tab"),
            (["add", "2020-01-01 07:00"], "never ring"),
            (["add", "--in", "soon"], "invalid duration"),
            (["add", "--at", "tomorrow"], "RFC 3339"),
            (["add", "07:00", "--in", "5m"], "exactly one"),
            (["add"], "exactly one"),
            (["add", "07:00", "--volume", "150"], "0-100"),
            (["add", "07:00", "--id", "../etc"], "alarm id"),
            (["add", "07:00", "--sound", "../../etc/passwd"], "--sound"),
            (["add", "--in", "5m", "--zone", "UTC"], "--zone applies to an expression"),
            (["remove"], "--all"),
            (["remove", "ghost"], "no alarm with id 'ghost'"),
            (["skip", "ghost"], "no alarm with id 'ghost'"),
            (["snooze", "banana"], "invalid duration"),
        ])
    func refusals(args: [String], message: String) throws {
        let e = try Env()
        let r = try Binaries.run("alarm", args, environment: e.environment)
        #expect(r.status != 0)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(try e.list().isEmpty)
    }

    @Test("a sound that will not play is a warning at add, not an error")
    func soundWarning() throws {
        let e = try Env()
        let r = try e.run("add", "07:00", "--sound", "missing.wav", "--id", "m")
        #expect(r.status == 0)
        #expect(
            r.stderr.contains("warning") && r.stderr.contains("missing.wav") && r.stderr.contains("default tone"),
            "\(r.stderr)")
        #expect(try e.list().first?["sound"] as? String == "missing.wav")
    }

    @Test("remove by id and --all")
    func remove() throws {
        let e = try Env()
        for id in ["a", "b", "c"] { #expect(try e.run("add", "07:00", "--id", id).status == 0) }
        #expect(try e.run("remove", "b").stdout.contains("removed b"))
        #expect(try e.list().map { $0["id"] as? String } == ["a", "c"])
        let partly = try e.run("remove", "a", "zz")
        #expect(partly.status != 0)
        #expect(try e.list().map { $0["id"] as? String } == ["c"], "known ids are removed even when another is unknown")
        #expect(try e.run("remove", "--all").stdout.contains("removed 1"))
        #expect(try e.list().isEmpty)
    }

    @Test("skip passes over exactly the next occurrence; unskip undoes it; next honours it")
    func skip() throws {
        let e = try Env()
        #expect(try e.run("add", "07:00", "--id", "daily").status == 0)
        let before = try #require(try e.list().first?["next"] as? String)
        let s = try e.run("skip", "daily")
        #expect(s.status == 0)
        #expect(s.stdout.contains("skipping \(before)"), "\(s.stdout)")
        let after = try #require(try e.list().first?["next"] as? String)
        #expect(after > before)
        #expect(try e.list().first?["skip_next"] as? Bool == true)
        #expect(try e.run("next").stdout.contains(String(after.prefix(10))))
        #expect(try e.run("unskip", "daily").status == 0)
        #expect(try e.list().first?["next"] as? String == before)
    }

    @Test("next says which alarm and in how long")
    func next() throws {
        let e = try Env()
        #expect(try e.run("next").stdout.contains("no alarm scheduled"))
        #expect(try e.run("add", "--in", "2h", "--id", "later").status == 0)
        #expect(try e.run("add", "--in", "7h12m", "--id", "much-later").status == 0)
        let r = try e.run("next")
        #expect(r.stdout.hasPrefix("later in 2 h"), "\(r.stdout)")
        let json =
            try JSONSerialization.jsonObject(with: Data(try e.run("next", "--json").stdout.utf8)) as? [String: Any]
        #expect(json?["id"] as? String == "later")
        #expect((json?["in"] as? Int).map { abs($0 - 7200) < 5 } == true)
    }

    @Test("export then import round-trips; a bad file imports nothing")
    func importExport() throws {
        let e = try Env()
        #expect(try e.run("add", "Mon..Fri 06:30", "--id", "work", "--sound", "x.wav", "--once").status == 0)
        #expect(try e.run("add", "09:00 Europe/London", "--id", "london").status == 0)
        let exported = try e.run("export").stdout
        let file = e.root + "/export.json"
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try e.run("remove", "--all").status == 0)
        let r = try e.run("import", file)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("imported 2"))
        #expect(try e.run("export").stdout == exported)
        // Garbage and a bad expression change nothing.
        try "not json".write(toFile: e.root + "/bad.json", atomically: true, encoding: .utf8)
        #expect(try e.run("import", e.root + "/bad.json").status != 0)
        try #"[{"id":"x","expression":"*-02-30 07:00"}]"#.write(
            toFile: e.root + "/bad2.json", atomically: true, encoding: .utf8)
        let bad = try e.run("import", e.root + "/bad2.json")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("February has no day 30"), "\(bad.stderr)")
        #expect(try e.run("export").stdout == exported)
    }

    @Test("history and status without a daemon")
    func historyAndStatus() throws {
        let e = try Env()
        #expect(try e.run("history").stdout.contains("no history yet"))
        #expect(
            try e.run("history", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]"
                || (try JSONSerialization.jsonObject(with: Data(try e.run("history", "--json").stdout.utf8)) as? [Any])?
                    .isEmpty == true
        )
        let s = try e.run("status", "--json")
        #expect(s.status != 0)
        let object = try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any]
        #expect(object?["running"] as? Bool == false)
    }

    @Test("alarm sounds reads the sound directories from the config file like every other setting")
    func soundsFromConfig() throws {
        let e = try Env()
        let dir = e.root + "/my-sounds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/empty.wav", contents: Data())
        try "sounds_dir = \(dir)\n".write(toFile: e.root + "/alarm.conf", atomically: true, encoding: .utf8)
        var env = e.environment
        env["ALARM_CONFIG"] = e.root + "/alarm.conf"
        env["ALARM_SOUNDS_DIR"] = nil
        let r = try Binaries.run("alarm", ["sounds", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let entries = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.map { $0["name"] as? String } == ["empty.wav"])
        #expect(entries?.first?["playable"] as? Bool == false)
        #expect((entries?.first?["reason"] as? String)?.contains("empty.wav") == true)
    }

    @Test("a corrupt store is reported, never overwritten")
    func corruptStore() throws {
        let e = try Env()
        try FileManager.default.createDirectory(atPath: e.root + "/state", withIntermediateDirectories: true)
        try "{ not an alarm list".write(toFile: e.root + "/state/alarms.json", atomically: true, encoding: .utf8)
        let r = try e.run("add", "07:00", "--id", "x")
        #expect(r.status != 0)
        #expect(r.stderr.contains("alarms.json"), "\(r.stderr)")
        #expect(try String(contentsOfFile: e.root + "/state/alarms.json", encoding: .utf8) == "{ not an alarm list")
        #expect(try e.run("list").status != 0)
    }

    @Test("alarm ring offers no --device, which its request to alarmd cannot carry (issue #32)")
    func ringHasNoDevice() throws {
        let help = try Binaries.run("alarm", ["ring", "--help"])
        #expect(help.status == 0)
        // Offered as an option it would read "--device <pcm>"; the text names alarm play's instead.
        #expect(!help.stdout.contains("--device <"), "\(help.stdout)")
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("alarm play --device"), "\(help.stdout)")
        let refused = try Binaries.run("alarm", ["ring", "--device", "hw:0"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(try Binaries.run("alarm", ["play", "--help"]).stdout.contains("--device"))
    }
}

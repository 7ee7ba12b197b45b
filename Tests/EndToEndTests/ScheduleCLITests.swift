import AlarmTestSupport
import Foundation
import Testing

/// Issue #12 through the built `alarm`, without a daemon: `--every`, `--from`, `--until`,
/// `--skip-holidays` on add and preview, `pause` / `resume`, and how list, next, export and
/// preview show them.
@Suite("alarm CLI: schedules beyond systemd (the built binary)")
struct ScheduleCLITests {
    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-sched-" + UUID().uuidString
        var config: String { root + "/alarm.conf" }
        var environment: [String: String] {
            [
                "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": config,
                "ALARM_SOUNDS_DIR": root + "/sounds", "TZ": "Europe/Berlin",
            ]
        }
        init(config text: String = "") throws {
            try FileManager.default.createDirectory(atPath: root + "/sounds", withIntermediateDirectories: true)
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }
        func run(_ args: String...) throws -> Binaries.Result {
            try Binaries.run("alarm", args, environment: environment)
        }
        func list() throws -> [[String: Any]] {
            let r = try run("list", "--json")
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
        }
        func alarm(_ id: String) throws -> [String: Any]? { try list().first { $0["id"] as? String == id } }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("add takes --every, --from, --until and --skip-holidays; list --json and export show them")
    func addAndList() throws {
        let e = try Env()
        let r = try e.run("add", "Mon 06:30", "--every", "2w", "--from", "2026-11-23", "--id", "biweekly")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try e.run("add", "06:00", "--every", "3d", "--from", "2026-11-23", "--id", "third").status == 0)
        #expect(
            try e.run("add", "weekdays 06:30", "--skip-holidays", "--until", "2099-06-30", "--id", "work").status == 0)
        let often = try e.run("add", "--every", "90m", "--id", "often")
        #expect(often.status == 0, "\(often.stderr)")
        let b = try #require(try e.alarm("biweekly"))
        #expect(b["every"] as? String == "2w")
        #expect(b["from"] as? String == "2026-11-23")
        #expect(b["until"] == nil, "left out when unset")
        #expect(b["skip_holidays"] == nil)
        #expect(b["paused"] as? Bool == false)
        #expect(b["paused_until"] == nil)
        #expect(b["expression"] as? String == "Mon *-*-* 06:30:00")
        #expect(
            (b["next"] as? String)?.hasSuffix("T06:30:00+01:00") == true
                || (b["next"] as? String)?.hasSuffix("T06:30:00+02:00") == true)
        let w = try #require(try e.alarm("work"))
        #expect(w["skip_holidays"] as? Bool == true)
        #expect(w["until"] as? String == "2099-06-30")
        let o = try #require(try e.alarm("often"))
        #expect(o["every"] as? String == "90m")
        #expect(o["mode"] as? String == "absolute")
        // The next ring of `often` is 90 minutes from now.
        let next = try #require((o["next"] as? String).flatMap(parseRFC3339))
        #expect(abs(next.timeIntervalSinceNow - 5400) < 30)
        let table = try e.run("list").stdout
        #expect(table.contains("every 2w from 2026-11-23"), "\(table)")
        #expect(table.contains("until 2099-06-30, skipping holidays"), "\(table)")
        // Export and import keep every field.
        let exported = try e.run("export").stdout
        let file = e.root + "/export.json"
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try e.run("remove", "--all").status == 0)
        #expect(try e.run("import", file).status == 0)
        #expect(try e.run("export").stdout == exported)
    }

    @Test(
        "refusals say what to do",
        arguments: [
            (["add", "--every", "3d"], "needs the time of day"),
            (["add", "07:00", "--every", "2"], "a number needs a unit"),
            (["add", "07:00", "--every", "1.5d"], "36h"),
            (["add", "07:00", "--from", "2026-02-30"], "--from: '2026-02-30' is not a date"),
            (["add", "07:00", "--until", "2020-01-01"], "would never ring"),
            (["add", "Mon 07:00", "--every", "7d", "--from", "2030-01-01"], "would never ring"),
            (["pause", "nope"], "no alarm with id 'nope'"),
            (["pause"], "give the ids to pause, or --all"),
            (["resume"], "give the ids to resume, or --all"),
        ])
    func refusals(args: [String], message: String) throws {
        let e = try Env()
        let r = try Binaries.run("alarm", args, environment: e.environment)
        #expect(r.status != 0)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test("a refused pause or resume changes no alarm")
    func refusedPauseChangesNothing() throws {
        let e = try Env()
        #expect(try e.run("add", "06:30", "--id", "a").status == 0)
        #expect(try e.run("add", "07:30", "--id", "b").status == 0)
        let over = try Binaries.run("alarm", ["pause", "--all", "--until", "2001-01-01"], environment: e.environment)
        #expect(over.status != 0)
        #expect(over.stderr.contains("the pause would already be over for 'a'"), "\(over.stderr)")
        let mixed = try Binaries.run("alarm", ["pause", "a", "nope"], environment: e.environment)
        #expect(mixed.stderr.contains("no alarm with id 'nope'; nothing was paused"), "\(mixed.stderr)")
        for id in ["a", "b"] { #expect(try e.alarm(id)?["paused"] as? Bool == false, "\(id)") }
        #expect(try e.run("pause", "b").status == 0)
        let resume = try Binaries.run("alarm", ["resume", "b", "nope"], environment: e.environment)
        #expect(resume.stderr.contains("no alarm with id 'nope'; nothing was resumed"), "\(resume.stderr)")
        #expect(try e.alarm("b")?["paused"] as? Bool == true)
    }

    @Test("pause and resume: list, next and preview show the pause; resume ends it")
    func pauseAndResume() throws {
        let e = try Env()
        #expect(try e.run("add", "06:30", "--id", "work").status == 0)
        #expect(try e.run("add", "07:00", "--id", "gym").status == 0)
        let p = try e.run("pause", "work", "--until", "2099-12-01")
        #expect(p.status == 0, "\(p.stderr)")
        #expect(
            p.stdout.hasPrefix("paused work until 2099-12-01T00:00:00+01:00; next ring 2099-12-01T06:30:00+01:00"),
            "\(p.stdout)")
        let w = try #require(try e.alarm("work"))
        #expect(w["paused"] as? Bool == true)
        #expect(w["paused_until"] as? String == "2099-12-01")
        #expect(w["next"] as? String == "2099-12-01T06:30:00+01:00")
        #expect(try e.run("pause", "gym").stdout == "paused gym until alarm resume\n")
        #expect(try e.alarm("gym")?["paused"] as? Bool == true)
        #expect(try e.alarm("gym")?["paused_until"] is NSNull, "paused until alarm resume")
        #expect(try e.alarm("gym")?["next"] is NSNull)
        let list = try e.run("list").stdout
        #expect(list.contains("paused (until alarm resume)"), "\(list)")
        #expect(list.contains("(paused until 2099-12-01 00:00)"), "\(list)")
        let next = try e.run("next")
        #expect(next.stdout.hasPrefix("work in "), "the next ring is the first after the pause: \(next.stdout)")
        #expect(next.stdout.contains("2099-12-01T06:30:00+01:00"), "\(next.stdout)")
        #expect(
            next.stdout.contains("paused: work (until 2099-12-01 00:00), gym (until alarm resume)"), "\(next.stdout)")
        let preview = try e.run("preview", "work", "--count", "1")
        #expect(
            preview.lines == ["work is paused until 2099-12-01T00:00:00+01:00", "2099-12-01T06:30:00+01:00"],
            "\(preview.stdout) \(preview.stderr)")
        let verbose = try e.run("preview", "gym", "--verbose", "--count", "1")
        // --verbose first prints the expression's normal form (systemd's), then the pause.
        #expect(verbose.lines.first == "normal form: *-*-* 07:00:00")
        #expect(verbose.lines.dropFirst().first == "gym is paused until alarm resume")
        #expect(
            verbose.lines.dropFirst(2).allSatisfy {
                $0.hasSuffix("T07:00:00+01:00  paused until alarm resume")
                    || $0.hasSuffix("T07:00:00+02:00  paused until alarm resume")
            })
        // alarm check says why it will not ring.
        let check = try e.run("check", "gym", "--json")
        #expect(check.status == 2)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any], "\(check.stdout)")
        let alarmCheck = (report["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "alarm" }
        #expect(
            (alarmCheck?["message"] as? String)?.contains("is paused until alarm resume") == true, "\(check.stdout)")
        let r = try e.run("resume", "--all")
        #expect(r.stdout.contains("resumed work: next ring "), "\(r.stdout)")
        #expect(r.stdout.contains("resumed gym: next ring "), "\(r.stdout)")
        #expect(try e.alarm("work")?["paused"] as? Bool == false)
        #expect(try e.alarm("work")?["paused_until"] == nil)
        #expect(!(try e.run("next").stdout.contains("paused")))
        // --for and --all.
        let all = try e.run("pause", "--all", "--for", "2w")
        #expect(all.lines.count == 2 && all.lines.allSatisfy { $0.hasPrefix("paused ") }, "\(all.stdout)")
        let until = try #require((try e.alarm("gym")?["paused_until"] as? String).flatMap(parseRFC3339))
        #expect(abs(until.timeIntervalSinceNow - 14 * 86400) < 60)
        // A pause that is over is no pause.
        let f = ISO8601DateFormatter()
        let soon = f.string(from: Date(timeIntervalSinceNow: 2))
        #expect(try e.run("pause", "work", "--until", soon).status == 0)
        #expect(try e.alarm("work")?["paused"] as? Bool == true)
        Thread.sleep(forTimeInterval: 3)
        #expect(try e.alarm("work")?["paused"] as? Bool == false)
        #expect(!(try e.run("list").stdout.contains("work      paused")))
    }

    @Test("preview takes add's flags; --verbose shows skipped occurrences and why")
    func previewFlags() throws {
        let e = try Env()
        let holidays = e.root + "/holidays.txt"
        try "# test\n2026-12-07 St. Nicholas, late\n2026-12-21..2026-12-22 Winter break\n".write(
            toFile: holidays, atomically: true, encoding: .utf8)
        let base = [
            "preview", "Mon 06:30", "--every", "2w", "--from", "2026-11-23", "--after", "2026-11-20T00:00:00Z",
            "--count", "3",
        ]
        #expect(
            try Binaries.run("alarm", base, environment: e.environment).lines
                == ["2026-11-23T06:30:00+01:00", "2026-12-07T06:30:00+01:00", "2026-12-21T06:30:00+01:00"])
        let skipping = try Binaries.run(
            "alarm", base + ["--skip-holidays", "--holidays", holidays], environment: e.environment)
        #expect(
            skipping.lines == ["2026-11-23T06:30:00+01:00", "2027-01-04T06:30:00+01:00", "2027-01-18T06:30:00+01:00"],
            "\(skipping.stderr)")
        let verbose = try Binaries.run(
            "alarm", base + ["--skip-holidays", "--holidays", holidays, "--verbose"], environment: e.environment)
        #expect(verbose.lines.first?.hasPrefix("normal form: ") == true)
        #expect(
            Array(verbose.lines.dropFirst()) == [
                "2026-11-23T06:30:00+01:00", "2026-12-07T06:30:00+01:00  skipped (holiday: St. Nicholas, late)",
                "2026-12-21T06:30:00+01:00  skipped (holiday: Winter break)", "2027-01-04T06:30:00+01:00",
                "2027-01-18T06:30:00+01:00",
            ])
        let json = try Binaries.run(
            "alarm", base + ["--skip-holidays", "--holidays", holidays, "--verbose", "--json"],
            environment: e.environment)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["outcome"] as? String } == ["rings", "skipped", "skipped", "rings", "rings"])
        #expect(objects[1]["reason"] as? String == "holiday: St. Nicholas, late")
        // The config's holidays file is the default.
        try "holidays = holidays.txt\n".write(toFile: e.config, atomically: true, encoding: .utf8)
        #expect(
            try Binaries.run("alarm", base + ["--skip-holidays"], environment: e.environment).lines == skipping.lines)
        // --until ends it; every 90 minutes from a local time.
        #expect(
            try Binaries.run("alarm", base + ["--until", "2026-12-07"], environment: e.environment).lines
                == ["2026-11-23T06:30:00+01:00", "2026-12-07T06:30:00+01:00"])
        #expect(
            try e.run(
                "preview", "--every", "90m", "--from", "2026-11-23T08:00", "--after", "2026-11-23T00:00:00Z", "--count",
                "3"
            ).lines
                == ["2026-11-23T08:00:00+01:00", "2026-11-23T09:30:00+01:00", "2026-11-23T11:00:00+01:00"])
        // A malformed holidays file is refused with its line and reason.
        try "2026-12-25 Christmas\n2026-12-32 typo\n".write(toFile: holidays, atomically: true, encoding: .utf8)
        let bad = try Binaries.run("alarm", base + ["--skip-holidays"], environment: e.environment)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("holidays file \(holidays): line 2: '2026-12-32' is not a date"), "\(bad.stderr)")
        // ... while alarm add and list warn and go on: alarms keep ringing; alarm check warns.
        let added = try e.run("add", "07:00", "--skip-holidays", "--id", "x")
        #expect(added.status == 0)
        #expect(added.stderr.contains("line 2") && added.stderr.contains("holidays are not skipped"), "\(added.stderr)")
        let check = try e.run("check", "x", "--json")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any], "\(check.stdout)")
        let holidaysCheck = (report["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "holidays" }
        #expect(holidaysCheck?["status"] as? String == "warning")
        #expect(
            (holidaysCheck?["message"] as? String)?.contains("line 2: '2026-12-32' is not a date") == true,
            "\(check.stdout)")
    }

    @Test("an iCalendar file written by Python's icalendar skips its holidays")
    func icalendarFromPython() throws {
        let e = try Env()
        let ics = e.root + "/feiertage.ics"
        let script = #"""
            import datetime, sys
            from icalendar import Calendar, Event
            cal = Calendar(); cal.add('prodid', '-//alarm tests//x//'); cal.add('version', '2.0')
            e = Event(); e.add('uid', 'xmas@x'); e.add('summary', 'Weihnachten')
            e.add('dtstart', datetime.date(2020, 12, 25)); e.add('dtend', datetime.date(2020, 12, 27)); e.add('rrule', {'freq': 'yearly'})
            cal.add_component(e)
            e = Event(); e.add('uid', 'tg@x'); e.add('summary', 'Thanksgiving')
            e.add('dtstart', datetime.date(2020, 11, 26)); e.add('rrule', {'freq': 'yearly', 'bymonth': 11, 'byday': '4TH'})
            cal.add_component(e)
            open(sys.argv[1], 'wb').write(cal.to_ical())
            """#
        // Debian's python3, where scripts/deps installs python3-icalendar.
        let py = Process()
        py.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        py.arguments = ["-c", script, ics]
        try py.run()
        py.waitUntilExit()
        #expect(py.terminationStatus == 0)
        let r = try e.run(
            "preview", "weekdays 07:00", "--skip-holidays", "--holidays", ics, "--after", "2027-11-24T12:00:00Z",
            "--count", "2", "--verbose")
        #expect(
            Array(r.lines.dropFirst()) == [
                "2027-11-25T07:00:00+01:00  skipped (holiday: Thanksgiving)", "2027-11-26T07:00:00+01:00",
                "2027-11-29T07:00:00+01:00",
            ],
            "\(r.stdout) \(r.stderr)")
        let xmas = try e.run(
            "preview", "daily 07:00", "--skip-holidays", "--holidays", ics, "--after", "2031-12-24T12:00:00Z",
            "--count", "1")
        #expect(xmas.lines == ["2031-12-27T07:00:00+01:00"])
    }
}

import AlarmTestSupport
import Foundation
import Testing

@Suite("alarm preview (the built binary)")
struct PreviewTests {
    @Test(
        "prints the next rings in RFC 3339 with the offset in force: a gap shifted forward; a pinned zone wins over --zone and is shown in its own offset",
        arguments: [
            (
                ["daily 02:30", "--after", "2026-03-07T12:00:00-05:00", "--count", "3", "--zone", "America/New_York"],
                ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"]
            ),
            (
                ["07:00 Europe/Berlin", "--after", "2026-07-01T00:00:00Z", "--count", "1", "--zone", "Asia/Tokyo"],
                ["2026-07-01T07:00:00+02:00"]
            ),
        ])
    func lines(args: [String], expected: [String]) throws {
        let r = try Binaries.run("alarm", ["preview"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == expected)
    }

    @Test("defaults: five rings, the system zone from TZ")
    func defaults() throws {
        let r = try Binaries.run(
            "alarm", ["preview", "Mon..Fri 06:30", "--after", "2026-11-20T00:00:00Z"],
            environment: ["TZ": "Asia/Kolkata"])
        #expect(r.status == 0)
        #expect(r.lines.count == 5)
        #expect(r.lines.first == "2026-11-20T06:30:00+05:30")
        #expect(r.lines.last == "2026-11-26T06:30:00+05:30")
    }

    @Test("--json prints an array")
    func json() throws {
        let r = try Binaries.run(
            "alarm",
            ["preview", "*-12-25 08:00", "--after", "2026-01-01T00:00:00Z", "--count", "2", "--zone", "UTC", "--json"])
        #expect(r.status == 0)
        let array = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String]
        #expect(array == ["2026-12-25T08:00:00+00:00", "2027-12-25T08:00:00+00:00"])
    }

    @Test("--verbose first prints systemd's normalized form; the last day of each month")
    func verbose() throws {
        let r = try Binaries.run(
            "alarm",
            ["preview", "--verbose", "*-*~1 9:00", "--after", "2028-01-31T10:00:00Z", "--count", "2", "--zone", "UTC"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == ["normal form: *-*~01 09:00:00", "2028-02-29T09:00:00+00:00", "2028-03-31T09:00:00+00:00"])
        let shortcut = try Binaries.run(
            "alarm",
            ["preview", "--verbose", "weekly", "Europe/Berlin", "--after", "2026-11-20T00:00:00Z", "--count", "1"])
        #expect(shortcut.lines == ["normal form: Mon *-*-* 00:00:00 Europe/Berlin", "2026-11-23T00:00:00+01:00"])
    }

    @Test(
        "bad input: a clear error on stderr and a non-zero exit",
        arguments: [
            (["preview", "*-02-30 07:00"], "February has no day 30"),
            (["preview", "07:00", "--zone", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
            (["preview", "07:00 Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
            (["preview", "25:00"], "hour 25 is out of range"),
            (["preview", "07:00", "--after", "yesterday"], "not an RFC 3339 timestamp"),
            (["preview", "2020-01-01 07:00"], "never rings after"),
            (["preview", "00:00/60"], "step 60"),
            (["preview", "1,*:00"], "'*' cannot be part of a list"),
            (["preview", "00:00:01.5"], "fractional seconds"),
        ])
    func refusals(args: [String], message: String) throws {
        let r = try Binaries.run("alarm", args)
        #expect(r.status != 0)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }
}

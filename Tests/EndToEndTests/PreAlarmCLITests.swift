import AlarmTestSupport
import Foundation
import Testing

/// Issue #43: `alarm add --pre-alarm` as a user types it (the built binary, no daemon): the
/// leads are stored and shown, bad ones refused with a message naming the problem.
@Suite("alarm add --pre-alarm (issue #43)")
struct PreAlarmCLITests {
    @Test(
        "--pre-alarm 10m,30m is stored longest first and shown by list; zero, duplicate, over 24h and bare numbers are refused"
    )
    func preAlarmOption() throws {
        let e = try CLITests.Env()
        let r = try e.run("add", "Mon..Fri 06:30", "--id", "work", "--pre-alarm", "10m,30m")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try e.list().first?["pre_alarm"] as? String == "30m,10m")
        let shown = try e.run("list")
        #expect(shown.stdout.contains("pre-alarm 30m,10m"), "\(shown.stdout)")
        // Without the option: null in the list form.
        #expect(try e.run("add", "07:00", "--id", "plain").status == 0)
        #expect(try e.list().first { $0["id"] as? String == "plain" }.map { $0["pre_alarm"] is NSNull } == true)
        for (bad, message) in [
            ("0s", "it must be more than 0"), ("10m,10m", "the lead 10m is given twice"),
            ("25h", "a lead must be at most 1d"), ("5", "a number needs a unit"), ("10m,", "empty duration"),
        ] {
            let refused = try e.run("add", "08:00", "--id", "bad", "--pre-alarm", bad)
            #expect(refused.status != 0, "--pre-alarm \(bad) was accepted")
            #expect(refused.stderr.contains(message), "--pre-alarm \(bad): \(refused.stderr)")
        }
        #expect(try e.list().count == 2, "no refused alarm was stored")
    }
}

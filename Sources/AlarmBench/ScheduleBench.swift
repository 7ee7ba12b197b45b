import AlarmCore
import Foundation

/// How long computing the next ring of 10,000 alarms takes: the daemon does this at start, on
/// every clock or zone change and on every reload.
enum ScheduleBench {
    static func run() {
        let zones = [
            "America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Chatham",
            "America/St_Johns", "Asia/Kolkata", "Pacific/Apia", "Australia/Sydney", "UTC",
        ]
        let shapes = [
            "Mon..Fri 06:30", "daily 07:00", "weekends 09:15", "*-12-25 08:00", "Fri *-*-13 09:00",
            "*-02-29 07:00", "*:0/15", "Mon,Wed 1/6:00:30", "*-*-31 08:00", "2027-01-01 00:00",
        ]
        var alarms: [Alarm] = []
        let parseStart = DispatchTime.now()
        for i in 0..<10_000 {
            let text = shapes[i % shapes.count] + (i % 3 == 0 ? " " + zones[i % zones.count] : "")
            alarms.append(Alarm(id: "a\(i)", trigger: .calendar(try! CalendarExpression(text))))
        }
        let parseSeconds = seconds(since: parseStart)
        let system = try! Zones.zone(named: "America/New_York")
        timeNextRings(of: "10,000 alarms") { instant in
            alarms.lazy.filter { $0.nextRing(after: instant, systemZone: system) != nil }.count
        }
        print(String(format: "schedule: parsing 10,000 expressions: %.1f ms", parseSeconds * 1000))
        withRules(alarms, system: system)
    }

    /// Issue #12: the same 10,000 alarms, every fifth repeating `--every` 2w or 3d from a date,
    /// a third skipping holidays (a holiday calendar of yearly rules and days in the coming
    /// weeks), every twentieth an instant repeating every 90 minutes: the next ring that sounds
    /// (`Alarm.nextSounding`), as alarmd, `alarm list` and `next` compute it.
    static func withRules(_ plain: [Alarm], system: Zone) {
        var text = "BEGIN:VCALENDAR\nVERSION:2.0\n"
        for (k, rule) in ["FREQ=YEARLY", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO"]
            .enumerated()
        {
            text +=
                "BEGIN:VEVENT\nDTSTART;VALUE=DATE:2020\(11 + k % 2)2\(4 + k)\nSUMMARY:yearly \(k)\nRRULE:\(rule)\nEND:VEVENT\n"
        }
        for day in stride(from: 23, through: 30, by: 3) {
            text += "BEGIN:VEVENT\nDTSTART;VALUE=DATE:202611\(day)\nSUMMARY:day \(day)\nEND:VEVENT\n"
        }
        text += "END:VCALENDAR\n"
        let holidays = try! HolidayCalendar.parse(text)
        var alarms = plain
        for i in alarms.indices {
            if case .calendar = alarms[i].trigger, i % 5 == 1 {
                alarms[i].every = i % 10 == 1 ? .weeks(2) : .days(3)
                alarms[i].from = .day(CivilTime(year: 2026, month: 11, day: 16))
            }
            if i % 3 == 0 { alarms[i].skipHolidays = true }
            if i % 20 == 19 {
                alarms[i] = Alarm(
                    id: alarms[i].id, trigger: .instant(RFC3339.parse("2026-11-24T06:00:00Z")!), every: .seconds(5400))
            }
        }
        timeNextRings(of: "10,000 alarms with intervals and holidays") { instant in
            alarms.lazy.filter { $0.nextSounding(after: instant, systemZone: system, holidays: holidays) != nil }.count
        }
    }

    /// Times `nextRings` (how many of the alarms ring after the instant) five times on an ordinary
    /// day and on a spring-forward day (transitions nearby take the slower path), and prints the
    /// median, minimum and maximum.
    static func timeNextRings(of what: String, _ nextRings: (Date) -> Int) {
        for (label, after) in [("ordinary day", "2026-11-22T05:00:00Z"), ("DST change day", "2026-03-08T05:00:00Z")] {
            let instant = RFC3339.parse(after)!
            var samples: [Double] = []
            var found = 0
            for _ in 0..<5 {
                let start = DispatchTime.now()
                found = nextRings(instant)
                samples.append(seconds(since: start))
            }
            samples.sort()
            print(
                String(
                    format:
                        "schedule: next ring of %@ (%@): median %.1f ms, min %.1f ms, max %.1f ms over 5 runs (%d found)",
                    what, label, samples[2] * 1000, samples[0] * 1000, samples[4] * 1000, found))
        }
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

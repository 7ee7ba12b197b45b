import AlarmState
import AlarmCore
import ArgumentParser
import FoundationEssentials

/// The schedule options `alarm add` and `alarm preview` share (issue #12): `--every`, `--from`,
/// `--until`, `--skip-holidays`. What they mean is `Alarm`'s (AlarmOccurrences.swift); this
/// turns what was typed into an alarm's fields.
struct ScheduleOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Repeat: 2w (every other week), 3d (every third day), in calendar days from --from; or an exact interval such as 90m.",
            valueName: "duration"))
    var every: String?

    @Option(
        help: ArgumentHelp(
            "No ring before this date (YYYY-MM-DD, YYYY-MM-DDTHH:MM in the alarm's zone, or RFC 3339); --every counts from it (default: today).",
            valueName: "date"))
    var from: String?

    @Option(
        help: ArgumentHelp(
            "No ring after this date (a date counts whole); after its last ring the alarm ends and leaves the list.",
            valueName: "date"))
    var until: String?

    @Flag(
        help:
            "Do not ring on the days of the holidays file (config 'holidays'); those occurrences are recorded as skipped."
    )
    var skipHolidays = false

    /// What was typed, as the rules every front end applies.
    var rules: ScheduleRules { ScheduleRules(every: every, from: from, until: until, skipHolidays: skipHolidays) }

    func apply(to trigger: AlarmTrigger?, zone: Zone, now: Date) throws -> (AlarmTrigger, ScheduleRules.Parsed) {
        try rules.apply(to: trigger, zone: zone, now: now)
    }

    func previewAlarm(_ trigger: AlarmTrigger?, zone: Zone, now: Date) throws -> Alarm {
        try rules.previewAlarm(trigger, zone: zone, now: now)
    }
}

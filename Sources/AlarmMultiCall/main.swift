import AlarmButton
import AlarmCLI
import AlarmHooks
import AlarmdCommand

// One binary for the package `alarm` (`/usr/bin/alarm`, with `/usr/bin/alarmd`,
// `/usr/bin/alarm-hooks` and `/usr/bin/alarm-button` links to it): the programs share nearly all
// their code and the Swift runtime, so one copy on a Pi's SD card instead of four. alarm-web is a binary of its own, in
// the package `alarm-web`. Which program runs is the name it was called by, as busybox does.
let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "alarm"
if name == "alarmd" {
    Alarmd.main()
} else if name == "alarm-hooks" {
    AlarmHooksCommand.main()
} else if name == "alarm-button" {
    AlarmButtonCommand.main()
} else {
    AlarmCommand.start()
}

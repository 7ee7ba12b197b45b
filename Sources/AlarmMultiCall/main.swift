import AlarmCLI
import AlarmHooks
import AlarmWeb
import AlarmdCommand

// One binary for the package (`/usr/bin/alarm`, with `/usr/bin/alarmd`, `/usr/bin/alarm-hooks` and
// `/usr/bin/alarm-web` links to it): the programs share nearly all their code and the Swift
// runtime, so one copy on a Pi's SD card instead of four. Which program runs is the name it was
// called by, as busybox does.
let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "alarm"
if name == "alarmd" {
    Alarmd.main()
} else if name == "alarm-hooks" {
    AlarmHooksCommand.main()
} else if name == "alarm-web" {
    AlarmWebCommand.main()
} else {
    AlarmCommand.main()
}

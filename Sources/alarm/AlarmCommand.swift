import ArgumentParser

@main
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: "A bedside alarm clock for Linux: manage alarms and talk to alarmd.",
        subcommands: [Preview.self, Sounds.self, Play.self])
}

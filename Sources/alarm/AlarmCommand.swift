import ArgumentParser

@main
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: "A headless alarm clock.",
        subcommands: [Sounds.self, Play.self]
    )
}

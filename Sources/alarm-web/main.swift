import AlarmWeb
import ArgumentParser

// AsyncParsableCommand.main() as ArgumentParser's own: on Linux, top-level code resolves
// `AlarmWebCommand.main()` to the synchronous one, which refuses an async command.
do {
    var command = try AlarmWebCommand.parseAsRoot()
    if let server = command as? AlarmWebCommand {  // serves, or prints its licences
        try await server.run()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    AlarmWebCommand.exit(withError: error)
}

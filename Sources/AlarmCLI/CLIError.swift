import ArgumentParser

/// A failure the user can act on. ArgumentParser prints it as `Error: <message>` and exits 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
    init(_ error: Error) { description = "\(error)" }
}

/// A failure the user can act on, with the message a front end shows: the CLI (ArgumentParser)
/// prints it as `Error: <message>` and exits 1; alarm-web answers with it.
package struct UserError: Error, CustomStringConvertible {
    package var description: String
    package init(_ message: String) { description = message }
    package init(_ error: Error) { description = "\(error)" }
}

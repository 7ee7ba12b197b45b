import ArgumentParser

/// A failure the user can act on. ArgumentParser prints it as `Error: <message>` and exits 1.
package struct UserError: Error, CustomStringConvertible {
    package var description: String
    package init(_ message: String) { description = message }
    package init(_ error: Error) { description = "\(error)" }
}

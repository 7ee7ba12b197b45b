import Foundation

/// Polls `condition` every `poll` seconds for up to `timeout` seconds, scaled by `Slowdown`;
/// whether it came true (checked once more at the deadline). The one wait of the test targets:
/// a slow machine gets more time, never a weaker assertion.
@discardableResult
public func waitUntil(timeout: Double, poll: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(Slowdown.scaled(timeout))
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: poll)
    }
    return try condition()
}

import Foundation

/// A new empty directory under the temporary directory, for a store, a history or a hooks
/// directory of one test.
public func stateDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "alarm-store-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

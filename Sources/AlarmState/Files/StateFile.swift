import AlarmCore
import AlarmSystem
import FoundationEssentials

/// The engine's persistent state in `<state-dir>/state.json`, rewritten atomically whenever the
/// engine asks (`persistState`). Only the daemon writes it.
public struct StateFile: Sendable {
    public let path: String

    public init(stateDir: String) {
        path = stateDir + "/state.json"
    }

    /// The saved state, or nil when there is none yet. Throws `StoreError` when the file does
    /// not decode; the daemon then calls `setAside()` and starts without it (logging why).
    public func load() throws -> EngineState? {
        guard let bytes = try AtomicFile.read(path) else { return nil }
        do {
            return try EngineStateJSON.decode(bytes)
        } catch {
            throw StoreError(path: path, message: "cannot read the saved ring state (\(JSONProblem.describe(error)))")
        }
    }

    public func save(_ state: EngineState) throws {
        try AtomicFile.write(try EngineStateJSON.encode(state) + [UInt8(ascii: "\n")], to: path)
    }

    /// Moves an unreadable state file to `state.json.corrupt` (replacing an older one) so that it
    /// can be inspected and is not read again. Returns the new path.
    @discardableResult
    public func setAside() throws -> String {
        let aside = path + ".corrupt"
        if let bytes = try AtomicFile.read(path) {
            try AtomicFile.write(bytes, to: aside)
            try FileManager.default.removeItem(atPath: path)
        }
        return aside
    }
}

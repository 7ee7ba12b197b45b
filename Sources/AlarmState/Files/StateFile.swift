import AlarmCore
import AlarmSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The engine's persistent state in `<state-dir>/state.json`, rewritten atomically whenever the
/// engine asks (`persistState`). Only the daemon writes it: mode 0640 whatever the umask, opened
/// as `StateFiles` says.
public struct StateFile: Sendable {
    public let path: String

    public init(stateDir: String) {
        path = stateDir + "/state.json"
    }

    /// The saved state, or nil when there is none yet. Throws `StoreError` when the file does
    /// not decode; the daemon then calls `setAside()` and starts without it (logging why).
    public func load() throws -> EngineState? {
        let read = try StoreError.refusing("a ring state") { try AtomicFile.read(path, limit: StateFiles.maxBytes) }
        guard let bytes = read else { return nil }
        do {
            return try EngineStateJSON.decode(bytes)
        } catch {
            throw StoreError(path: path, message: "cannot read the saved ring state (\(JSONProblem.describe(error)))")
        }
    }

    public func save(_ state: EngineState) throws {
        try AtomicFile.write(
            try EngineStateJSON.encode(state) + [UInt8(ascii: "\n")], to: path, permissions: StateFiles.daemonMode,
            ignoringUmask: true)
    }

    /// Moves an unreadable state file to `state.json.corrupt` (replacing an older one) so that it
    /// can be inspected and is not read again. Returns the new path. What is in the way, a FIFO or
    /// a link as much as a file, is renamed, never read.
    @discardableResult
    public func setAside() throws -> String {
        let aside = path + ".corrupt"
        do { try FileIdentity.rename(path, to: aside) } catch let e as SystemError where e.errno == ENOENT {}
        return aside
    }
}

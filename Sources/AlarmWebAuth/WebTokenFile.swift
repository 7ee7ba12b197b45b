import AlarmCore
import AlarmSystem
import Glibc
import FoundationEssentials
import Synchronization

/// A problem with the token file, in words a user can act on.
public struct WebSetupError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The access token of alarm-web: one line in `/etc/alarm/web-token` (config `web_token_file`),
/// mode 0640, owner root, group alarm: readable by alarm-web (which runs in the group) and by the
/// group's members (`alarm web-token`), by nobody else. The package makes it at install when
/// it is missing; `alarm web-token --rotate` replaces it.
public struct WebTokenFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The token. Throws when there is no file, it cannot be read, or it holds no token.
    public func read() throws -> String {
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path) } catch let e as SystemError where e.errno == EACCES {
            throw WebSetupError("cannot read \(path): permission denied (it is readable by root and the group alarm)")
        } catch {
            throw WebSetupError("cannot read \(path): \(error)")
        }
        guard let bytes else {
            throw WebSetupError("there is no token yet: 'sudo alarm web-token --rotate' makes \(path)")
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingBlanks()
        guard Secret.isWellFormed(text) else {
            throw WebSetupError(
                "\(path) does not hold a token (43 characters of A-Z, a-z, 0-9, '-' and '_'): 'sudo alarm web-token --rotate' writes a new one"
            )
        }
        return text
    }

    /// Writes a new token (mode 0640, group `group` when given) in place of the old one and
    /// returns it. The file is replaced atomically: a reader sees the old token or the new one,
    /// and the new one already with its group and mode (set before the rename, issue #42).
    @discardableResult
    public func rotate(group: UInt32?) throws -> String {
        let token = Secret.make()
        let dir = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !dir.isEmpty && !FileManager.default.fileExists(atPath: dir) {
            do { try Directories.create(dir, mode: 0o755) } catch {
                throw WebSetupError("cannot create \(dir): \(error)")
            }
        }
        do {
            try AtomicFile.write(
                Array((token + "\n").utf8), to: path, permissions: 0o640, ignoringUmask: true, group: group)
        } catch let e as SystemError where e.call.hasPrefix("fchown") {
            throw WebSetupError("cannot give \(path) to the group alarm: \(e) (the token file was left as it was)")
        } catch let e as SystemError where e.errno == EACCES || e.errno == EPERM {
            throw WebSetupError(
                "cannot write \(path): permission denied (run it as root: sudo alarm web-token --rotate)")
        } catch {
            throw WebSetupError("cannot write \(path): \(error)")
        }
        return token
    }
}

/// The token in force, read again whenever the file changes (a rotation takes effect at once,
/// without a restart of alarm-web). Thread-safe.
///
/// Only a token is remembered, never a failure: a file that could not be read (missing,
/// refused, not a token) is read again at the next request. A failure kept until the file's
/// identity changed stayed after the cause was gone, since a `chown` or `chmod` leaves the
/// identity as it is: one request that came during a rotation made alarm-web answer 503 until
/// it was restarted (issue #42).
public final class CurrentToken: @unchecked Sendable {
    private let file: WebTokenFile
    /// The file's identity when last read successfully, and the token that read gave.
    private let cache = Mutex<(identity: [Int], token: String)?>(nil)

    public init(file: WebTokenFile) { self.file = file }

    /// The token, or why there is none.
    public func get() -> Result<String, WebSetupError> {
        let now = FileOwnership.identity(file.path)
        return cache.withLock { cache in
            if let cached = cache, let now, now == cached.identity { return .success(cached.token) }
            do {
                let token = try file.read()
                cache = now.map { ($0, token) }
                return .success(token)
            } catch let e as WebSetupError {
                cache = nil
                return .failure(e)
            } catch {
                cache = nil
                return .failure(WebSetupError("\(error)"))
            }
        }
    }
}

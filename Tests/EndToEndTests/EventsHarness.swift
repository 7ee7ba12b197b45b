import AlarmTestSupport
import Foundation

/// A long-running program of ours (`alarm watch`, `alarm-hooks`) next to a `DaemonHarness`: its
/// standard output goes to a file the test reads as it grows.
final class Follower: @unchecked Sendable {
    let process: Spawned
    let outputPath: String

    /// Starts `name args` with the harness's environment (plus `environment`); stdout to
    /// `outputPath` (stderr too when `mergeStderr`).
    init(_ h: DaemonHarness, _ name: String, _ args: [String], output: String, environment: [String: String] = [:], mergeStderr: Bool = false) throws {
        outputPath = output
        let env = h.environment.merging(environment) { $1 }
        if mergeStderr {
            process = try Spawned(Binaries.directory.path + "/" + name, args, environment: env, output: output)
        } else {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(fd) }
            process = try Spawned(Binaries.directory.path + "/" + name, args, environment: env, stdoutFD: fd)
        }
    }

    var text: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// The JSON objects among the lines.
    var objects: [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits until the process has an inotify watch (it sets one up after opening the log, so
    /// from then on it misses nothing). Nothing in its output says so; the kernel does.
    func waitUntilWatching(timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd")) ?? []
            for fd in fds {
                guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/fd/\(fd)")) == "anon_inode:inotify" else { continue }
                if let info = try? String(contentsOfFile: "/proc/\(process.pid)/fdinfo/\(fd)", encoding: .utf8), info.contains("inotify wd:") {
                    return true
                }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    func stop() { process.terminate() }
}

extension DaemonHarness {
    var eventsPath: String { runtimeDir + "/events.jsonl" }

    /// The event log's lines as JSON objects, as alarmd wrote them.
    func events() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: eventsPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    var lastSeq: Int { events().last?["seq"] as? Int ?? 0 }
}

import AlarmTestSupport
import Foundation

/// A long-running program of ours (`alarm watch`, `alarm-hooks`) next to an `AlarmdHarness`: its
/// standard output goes to a file the test reads as it grows.
final class Follower: @unchecked Sendable {
    let process: Spawned
    let outputPath: String

    /// Starts `name args` with the harness's environment (plus `environment`); stdout to
    /// `outputPath` (stderr too when `mergeStderr`).
    init(
        _ h: AlarmdHarness, _ name: String, _ args: [String], output: String, environment: [String: String] = [:],
        mergeStderr: Bool = false
    ) throws {
        outputPath = output
        if mergeStderr {
            process = try h.spawn(name, args, environment: environment, output: output)
        } else {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(fd) }
            process = try h.spawn(name, args, environment: environment, stdoutFD: fd)
        }
    }

    var text: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// The JSON objects among the lines.
    var objects: [[String: Any]] { AlarmdHarness.jsonLines(outputPath) }

    /// Waits until the process has an inotify watch (it sets one up after opening the log, so
    /// from then on it misses nothing). Nothing in its output says so; the kernel does.
    func waitUntilWatching(timeout: Double = 20) -> Bool {
        waitUntil(timeout: timeout) {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd")) ?? []
            return fds.contains { fd in
                guard
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/fd/\(fd)"))
                        == "anon_inode:inotify"
                else { return false }
                return (try? String(contentsOfFile: "/proc/\(process.pid)/fdinfo/\(fd)", encoding: .utf8))?.contains(
                    "inotify wd:") == true
            }
        }
    }

    func stop() { process.terminate() }
}

extension AlarmdHarness {
    var lastSeq: Int { events().last?["seq"] as? Int ?? 0 }
}

import AlarmTestSupport
import Foundation

/// One alarmd (an `AlarmdHarness`) playing to ALSA's null PCM (instant, no sound server), with
/// the CLI run as child processes that the tests may kill at any moment, and start-up timed.
final class ReliabilityRig: @unchecked Sendable {
    let alarmd: AlarmdHarness
    private(set) var starts = 0

    var root: String { alarmd.root }
    var stateDir: String { alarmd.stateDir }
    var runtimeDir: String { alarmd.runtimeDir }
    var fifoPath: String { alarmd.fifoPath }
    var logPath: String { alarmd.logPath }
    var environment: [String: String] { alarmd.environment }
    var log: String { alarmd.log }
    var pid: pid_t? { alarmd.pid }
    var isRunning: Bool { alarmd.isRunning }

    init(config: String, zone: String = "UTC") throws {
        alarmd = try AlarmdHarness(
            name: "alarm-rel", zone: zone, config: config, audio: .device("null"), directories: ["out"])
        alarmd.shutdownGrace = 2
        // RELIABILITY_KEEP=1 keeps the directories of a run for a post-mortem.
        alarmd.keepRoot = ProcessInfo.processInfo.environment["RELIABILITY_KEEP"] == "1"
    }

    /// Starts alarmd and waits until it reads its FIFO. Returns the seconds it took, or nil when
    /// it exited or did not get there within `timeout` (scaled by `Slowdown`).
    @discardableResult
    func start(timeout: Double = 15) throws -> Double? {
        let t0 = Date()
        starts += 1
        try alarmd.launch()
        let up = waitUntil(timeout: timeout, poll: 0.005) { !alarmd.isRunning || alarmd.listening }
        return up && alarmd.isRunning ? Date().timeIntervalSince(t0) : nil
    }

    /// kill -9, reaped.
    func crash() { alarmd.crash() }

    /// SIGTERM; the exit code, or nil if it did not exit within 10 s (then it is killed).
    func stop() -> Int32? { alarmd.stop() }

    /// Starts `alarm args` without waiting; its output goes to a file in `out/`.
    func spawnCLI(_ args: [String], output: String? = nil) throws -> Spawned {
        try alarmd.spawn("alarm", args, output: output ?? root + "/out/\(UUID().uuidString)")
    }

    /// Runs `alarm args` to completion: the exit code (-1 when killed after `timeout` s) and its output.
    func cliOutput(_ args: String..., timeout: Double = 20) throws -> (code: Int32, output: String) {
        let path = root + "/out/\(UUID().uuidString)"
        let p = try spawnCLI(args, output: path)
        var code = p.wait(timeout: timeout)
        if code == nil {
            p.terminate()
            code = -1
        }
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: path)
        return (code!, text)
    }

    /// Runs `alarm args` to completion (killed after `timeout` s): the exit code (-1 when killed).
    func cli(_ args: String..., timeout: Double = 20) throws -> Int32 {
        let p = try spawnCLI(args)
        if let code = p.wait(timeout: timeout) { return code }
        p.terminate()
        return -1
    }

    /// Appends a line to the log (test-side notes among the daemon's lines).
    func appendTrace(_ line: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? h.close() }
        h.seekToEndOfFile()
        h.write(Data(("## " + line + "\n").utf8))
    }

    func status() -> [String: Any]? { alarmd.status() }

    /// VmRSS of the daemon in KiB, from /proc.
    func residentKiB() -> Int? {
        guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            return nil
        }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    @discardableResult
    func wait(_ timeout: Double, _ condition: () -> Bool) -> Bool { alarmd.wait(timeout, condition) }

    func shutdown() { alarmd.shutdown() }
}

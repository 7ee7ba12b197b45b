import Foundation
import CLinux

/// A private PulseAudio server with one null sink: a *paced* (real-time) output that can be
/// recorded, for tests that care about *when* sound is heard (stop means silence now).
///
/// Shared by the test targets through the AlarmTestSupport module. It needs `pulseaudio` and `parec`
/// (Debian: pulseaudio pulseaudio-utils) and, for ALSA clients, the `pulse` PCM
/// (libasound2-plugins). Each instance runs in its own 0700 runtime directory, so parallel test
/// processes do not meet. Processes are killed in `shutdown()` / `deinit`.
///
/// Clients reach it with `environment` (for subprocesses) or `exportToThisProcess()` (for
/// in-process alsa-lib; only safe in `.serialized` suites).
public final class PulseNullSink: @unchecked Sendable {
    public struct Failed: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let sinkName: String
    public let rate: Int
    public let runtimeDir: String
    private let server: Spawned
    private let log: String

    public var socketPath: String { runtimeDir + "/pulse/native" }

    /// What a client process needs in its environment to play to / record from this server.
    public var environment: [String: String] { Self.environment(runtimeDir) }

    public static func environment(_ dir: String) -> [String: String] {
        ["XDG_RUNTIME_DIR": dir, "PULSE_SERVER": "unix:" + dir + "/pulse/native", "HOME": dir]
    }

    /// Starts `pulseaudio -n` with the native protocol and a null sink `sinkName`, mono at `rate` Hz,
    /// and waits (up to `timeout` s) until `pactl` can talk to it.
    public init(sinkName: String = "alarmtest", rate: Int = 48_000, timeout: Double = 20) throws {
        self.sinkName = sinkName
        self.rate = rate
        runtimeDir = FileManager.default.temporaryDirectory.path + "/alarm-pulse-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: runtimeDir, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        log = runtimeDir + "/pulseaudio.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        server = try Spawned(
            "/usr/bin/pulseaudio",
            [
                // --disable-shm: samples go over the socket, never through shared memory. With
                // memfd, PulseAudio 16 sometimes aborts on a block from a client it has not
                // registered (pulseaudio#824: "Cannot send block reference with non-registered
                // memfd ID", then an assertion in memblock.c); CI saw it kill the server under
                // the arm64 suite's qemu clients.
                "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes",
                "-L", "module-native-protocol-unix",
                "-L", "module-null-sink sink_name=\(sinkName) rate=\(rate) channels=1",
            ],
            environment: Self.environment(runtimeDir), output: log)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if !server.isRunning {
                throw Failed(
                    description:
                        "pulseaudio exited: \(String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))"
                )
            }
            if FileManager.default.fileExists(atPath: socketPath) {
                let check = try Spawned(
                    "/usr/bin/pactl", ["list", "short", "sinks"], environment: environment,
                    output: runtimeDir + "/pactl.out")
                if check.wait(timeout: 5) == 0,
                    String(
                        decoding: FileManager.default.contents(atPath: runtimeDir + "/pactl.out") ?? Data(),
                        as: UTF8.self
                    ).contains(sinkName)
                {
                    break
                }
            }
            if Date() > deadline {
                shutdown()
                throw Failed(
                    description:
                        "pulseaudio did not come up in \(timeout) s: \(String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))"
                )
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// One export at a time in this process (every test target runs in one process): a second
    /// suite's export would send the first one's ALSA clients to the wrong server.
    private static let exported = DispatchSemaphore(value: 1)

    /// Points this process's PulseAudio clients (alsa-lib's `pulse` PCM and control) at this
    /// server. Waits while another sink is exported; undo with `unexportFromThisProcess()`.
    public func exportToThisProcess() {
        Self.exported.wait()
        for (k, v) in environment where k != "HOME" { setenv(k, v, 1) }
    }

    /// Undoes `exportToThisProcess()`, or later tests' `default` PCM goes to a dead server.
    public func unexportFromThisProcess() {
        for key in environment.keys where key != "HOME" { unsetenv(key) }
        Self.exported.signal()
    }

    /// For a failure's message: whether the server still runs, and the end of its log.
    public var diagnosis: String {
        let text = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
        return
            "pulseaudio \(server.ending.map { "not running (\($0))" } ?? "running"); its log ends: \(text.suffix(1500))"
    }

    /// Runs `pactl ARGS` against this server; its output, or a `Failed` with it.
    @discardableResult
    public func pactl(_ args: String...) throws -> String {
        let out = runtimeDir + "/pactl-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let p = try Spawned("/usr/bin/pactl", args, environment: environment, output: out)
        let code = p.wait(timeout: 10)
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard code == 0 else {
            throw Failed(
                description: "pactl \(args.joined(separator: " ")) exited \(code.map(String.init) ?? "late"): \(text)")
        }
        return text
    }

    /// Sets the sink's volume (percent) and mute, as a user would with pactl (what ALSA's `pulse`
    /// control device shows as `Master`).
    public func setLevel(percent: Int, muted: Bool) throws {
        try pactl("set-sink-volume", sinkName, "\(percent)%")
        try pactl("set-sink-mute", sinkName, muted ? "1" : "0")
    }

    /// The sink's volume and mute as pactl reports them ("Volume: mono: 32768 /  50% / …",
    /// "Mute: yes").
    public func level() throws -> (percent: Int, muted: Bool) {
        let volume = try pactl("get-sink-volume", sinkName)
        let mute = try pactl("get-sink-mute", sinkName)
        let field = volume.split(separator: "/").dropFirst().first?.trimmingCharacters(in: .whitespaces)
        guard let field, field.hasSuffix("%"), let percent = Int(field.dropLast()) else {
            throw Failed(description: "no volume in pactl's output: \(volume)")
        }
        return (percent, mute.contains("yes"))
    }

    /// Starts `parec` on the sink's monitor: 16-bit mono at the sink's rate, in real time.
    public func record() throws -> PulseRecorder {
        try PulseRecorder(source: sinkName + ".monitor", rate: rate, environment: environment)
    }

    /// Freezes the server (SIGSTOP), as a sound server that hangs: its socket still accepts, and
    /// nothing answers. alsa-lib's `pulse` PCM then waits for ever in `snd_pcm_open` and
    /// `snd_pcm_drop`, and takes no audio. `thaw()` (SIGCONT) lets it go on.
    public func freeze() { server.signal(SIGSTOP) }
    public func thaw() { server.signal(SIGCONT) }

    public func shutdown() {
        thaw()
        server.terminate()
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    deinit { shutdown() }
}

/// A running `parec`; samples arrive in real time and are kept in memory.
public final class PulseRecorder: @unchecked Sendable {
    /// What the reader thread fills; shared with it, hence its own lock.
    private final class Buffer: @unchecked Sendable {
        let lock = NSLock()
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }

    public let rate: Int
    private let process: Spawned
    private let buffer = Buffer()

    init(source: String, rate: Int, environment: [String: String]) throws {
        self.rate = rate
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PulseNullSink.Failed(description: "pipe: \(errno)") }
        process = try Spawned(
            "/usr/bin/parec",
            ["-d", source, "--format=s16le", "--rate=\(rate)", "--channels=1", "--raw", "--latency-msec=10"],
            environment: environment, stdoutFD: fds[1])
        close(fds[1])
        let handle = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        let buffer = self.buffer
        let reader = Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.lock.lock()
                buffer.data.append(chunk)
                buffer.lock.unlock()
            }
            buffer.done.signal()
        }
        reader.start()
    }

    /// Whether parec still runs (it leaves when the server goes away).
    public var isRunning: Bool { process.isRunning }

    /// Samples received so far.
    public var count: Int {
        buffer.lock.lock()
        defer { buffer.lock.unlock() }
        return buffer.data.count / 2
    }

    public var samples: [Int16] {
        buffer.lock.lock()
        defer { buffer.lock.unlock() }
        let n = buffer.data.count / 2
        return buffer.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(n)) }
    }

    /// Waits until a sample above `threshold` arrives after index `from`; its index, or nil.
    /// (`timeout` is scaled by `Slowdown`.)
    public func waitForSound(threshold: Int16 = 1_000, from: Int = 0, timeout: Double = 15) -> Int? {
        var checked = from
        var found: Int?
        waitUntil(timeout: timeout) {
            let s = samples
            found = checked < s.count ? s[checked...].firstIndex { abs(Int($0)) > Int(threshold) } : nil
            checked = max(checked, s.count)
            return found != nil
        }
        return found
    }

    /// Stops parec and returns everything recorded.
    public func stop() -> [Int16] {
        process.terminate()
        _ = buffer.done.wait(timeout: .now() + 5)
        return samples
    }

    deinit { process.terminate() }
}

/// A child process started with posix_spawn and reaped by us (Foundation's `Process` reaps its
/// children one at a time on Linux, so a long-running server would block every other `Process`).
public final class Spawned: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `path args` with `environment` added to ours, less the inherited variables named in
    /// `removing`; stdout+stderr to the file `output`, or stdout to `stdoutFD` (stderr to /dev/null).
    public init(
        _ path: String, _ args: [String], environment: [String: String], removing: [String] = [],
        output: String? = nil, stdoutFD: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else if let stdoutFD {
            posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // A long-lived child (the sound server) must not keep a connection or pipe another test
        // of this process has open at this moment: it would never see its peer close.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let env = ProcessInfo.processInfo.environment.filter { !removing.contains($0.key) }
            .merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard rc == 0 else {
            throw PulseNullSink.Failed(description: "posix_spawn \(path): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
    }

    /// Reaps without blocking; true while the child runs.
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if status != nil { return false }
        var st: Int32 = 0
        let r = waitpid(pid, &st, WNOHANG)
        if r == pid {
            status = st
            return false
        }
        if r < 0 {
            status = -1
            return false
        }  // ECHILD: someone else reaped it
        return true
    }

    /// Sends `sig` unless the child has been reaped: its pid may then be another process's
    /// (pid_max is 32,768 on these machines, and a full test run starts thousands of processes:
    /// a signal sent by pid after the reaping can reach another test's PulseAudio server, one
    /// explanation for a server found dead mid-recording). True when sent.
    @discardableResult
    public func signal(_ sig: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
        return kill(pid, sig) == 0
    }

    /// How the child ended, for failure messages; nil while it runs.
    public var ending: String? {
        guard !isRunning else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let st = status, st >= 0 else { return "reaped elsewhere" }
        if st & 0x7F == 0 { return "exited with status \((st >> 8) & 0xFF)" }
        return "killed by signal \(st & 0x7F)"
    }

    /// Waits up to `timeout` s; the exit code, or nil if still running.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline { return nil }
            Thread.sleep(forTimeInterval: 0.01)
        }
        lock.lock()
        defer { lock.unlock() }
        guard let st = status, st >= 0 else { return -1 }
        return (st & 0x7F) == 0 ? (st >> 8) & 0xFF : -1
    }

    /// SIGTERM, then SIGKILL after `grace` seconds (parec and pulseaudio take 1.7–2 s to leave
    /// on SIGTERM, and tests need nothing from them at that point); reaps.
    public func terminate(grace: Double = 0.3) {
        guard isRunning else { return }
        signal(SIGTERM)
        if wait(timeout: grace) == nil {
            signal(SIGKILL)
            _ = wait(timeout: 5)
        }
    }
}

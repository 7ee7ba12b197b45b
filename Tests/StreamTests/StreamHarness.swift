import AlarmTestSupport
import Foundation
import Testing

/// The real parts of alarm-stream's tests: Debian's Icecast on a free port with a configuration of
/// its own, fed in real time by ffmpeg (lavfi sines encoded as MP3, Ogg Vorbis, Ogg Opus); Python's
/// http.server for playlists and pages; the built alarm-stream listening on a socket in a
/// temporary directory; and a client of the wire of its own (not alarmd's).
enum StreamHarness {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of `program` on PATH, or a failure naming the package that brings it (nothing is
    /// skipped: CI installs them through scripts/deps --test).
    static func tool(_ program: String, package: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw Missing(
            description:
                "\(program) is not installed: the stream tests need it (apt-get install \(package), or scripts/deps --test)"
        )
    }

    static func temporaryDirectory(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "alarm-stream-test-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0 else { throw Missing(description: "bind: \(String(cString: strerror(errno)))") }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] { ProcessTable.children(of: pid) }

    /// A process as a failure shows it: its pid, state, and each thread's name and where it waits.
    static func describe(_ pid: Int32) -> String {
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?").trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        let state = read("/proc/\(pid)/status").split(separator: "\n").first { $0.hasPrefix("State:") } ?? "?"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let threads = tasks.sorted().map {
            "\(read("/proc/\(pid)/task/\($0)/comm")) in \(read("/proc/\(pid)/task/\($0)/wchan"))"
        }
        return "\(pid) (\(state); \(threads.joined(separator: ", ")))"
    }

    /// A program started here, its output in files of `dir`; killed by `stop()` (and on deinit).
    final class Spawned: @unchecked Sendable {
        let process = Process()
        let name: String
        let log: String

        init(_ path: String, _ args: [String], dir: String, name: String, environment: [String: String] = [:]) throws {
            self.name = name
            log = "\(dir)/\(name).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = args
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = out
            process.standardError = out
            process.standardInput = FileHandle.nullDevice
            // The child inherits this thread's signal mask (a test runs on a pool thread that
            // blocks nearly all): with SIGTERM blocked, icecast2 and ffmpeg would not stop when
            // told. Started with none blocked, as from a shell.
            var none = sigset_t()
            var saved = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, &saved)
            defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
            try process.run()
            try out.close()
        }

        var pid: Int32 { process.processIdentifier }

        /// "running", or how it ended.
        var state: String {
            if process.isRunning { return "running" }
            return process.terminationReason == .uncaughtSignal
                ? "killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
        }
        var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// SIGKILL, and waits for it to be gone.
        func kill() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        func stop() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
            if !waitUntil(timeout: 5, { !process.isRunning }) { kill() }
            process.waitUntilExit()
        }

        deinit { if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) } }
    }

    /// One of the mounts ffmpeg feeds: its path, codec and sine frequency.
    struct Mount: Sendable, CustomStringConvertible {
        var path: String
        var codec: String
        var frequency: Double
        var encoder: [String]
        var description: String { "\(codec) \(path)" }

        static let mp3 = Mount(
            path: "/live.mp3", codec: "mp3", frequency: 440,
            encoder: ["-c:a", "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-f", "mp3"])
        static let vorbis = Mount(
            path: "/live.ogg", codec: "vorbis", frequency: 660,
            encoder: ["-c:a", "libvorbis", "-content_type", "audio/ogg", "-f", "ogg"])
        static let opus = Mount(
            path: "/live.opus", codec: "opus", frequency: 880,
            encoder: ["-c:a", "libopus", "-content_type", "audio/ogg", "-f", "ogg"])
    }

    /// Icecast on a free port, with no burst on connect (a listener gets the stream as it is
    /// made: real time from the first byte), and ffmpeg feeding `mounts` in real time.
    final class Icecast: @unchecked Sendable {
        let port: Int
        let dir: String
        private(set) var server: Spawned!
        private(set) var sources: [Spawned] = []

        init(dir: String, mounts: [Mount]) throws {
            let icecast = try StreamHarness.tool("icecast2", package: "icecast2")
            let ffmpeg = try StreamHarness.tool("ffmpeg", package: "ffmpeg")
            self.dir = dir
            port = try StreamHarness.freePort()
            try FileManager.default.createDirectory(atPath: dir + "/log", withIntermediateDirectories: true)
            // Icecast refuses to run as root: as root it changes to nobody, who writes the logs.
            let asRoot = geteuid() == 0
            if asRoot { chmod(dir + "/log", 0o777) }
            let security =
                asRoot
                ? "<security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>"
                : ""
            let config = """
                <icecast>
                  <location>alarm-stream tests</location><admin>root@localhost</admin>
                  <limits><clients>50</clients><sources>10</sources><burst-on-connect>0</burst-on-connect>
                    <burst-size>0</burst-size><source-timeout>10</source-timeout></limits>
                  <authentication><source-password>alarm-source</source-password>
                    <admin-user>admin</admin-user><admin-password>alarm-admin</admin-password></authentication>
                  <hostname>127.0.0.1</hostname>
                  <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
                  <paths><basedir>/usr/share/icecast2</basedir><logdir>\(dir)/log</logdir>
                    <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
                  <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
                  \(security)
                </icecast>
                """
            try config.write(toFile: dir + "/icecast.xml", atomically: true, encoding: .utf8)
            // Debian's icecast2 2.4.4 now and then crashes (SIGSEGV) as it starts, when the first
            // requests (a source logging in, a status page) come before its stats thread runs,
            // which it starts late and at no moment it logs. Such a start is made again (at
            // most three tries), before the test has used the server; any other failure fails.
            var crashes: [String] = []
            while true {
                let server = try Spawned(icecast, ["-c", dir + "/icecast.xml"], dir: dir, name: "icecast")
                self.server = server
                let port = port
                var sources: [Spawned] = []
                let listening = waitUntil(timeout: 10, { StreamHarness.accepts(port) })
                if listening {
                    for mount in mounts {
                        sources.append(
                            try Spawned(
                                ffmpeg,
                                [
                                    "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                                    "sine=frequency=\(Int(mount.frequency)):sample_rate=48000", "-ac", "2",
                                ]
                                    + mount.encoder + ["icecast://source:alarm-source@127.0.0.1:\(port)\(mount.path)"],
                                dir: dir, name: "ffmpeg\(mount.path.replacingOccurrences(of: "/", with: "-"))"))
                    }
                }
                let live =
                    listening
                    && mounts.allSatisfy { mount in
                        waitUntil(
                            timeout: 15, poll: 0.2, { !server.process.isRunning || Self.isLive(port, mount.path) })
                            && server.process.isRunning
                    }
                if live {
                    self.sources = sources
                    break
                }
                for source in sources { source.kill() }
                let errors = (try? String(contentsOfFile: dir + "/log/error.log", encoding: .utf8)) ?? ""
                let crashed = !server.process.isRunning && server.process.terminationReason == .uncaughtSignal
                server.kill()
                if crashed && crashes.count < 2 {
                    crashes.append(errors)
                    continue
                }
                throw Missing(
                    description: "icecast2 (\(server.state)) never had \(mounts.map(\.path)): "
                        + sources.map(\.output).joined(separator: "\n") + "\n\(server.output)\n\(errors)"
                        + (crashes.isEmpty ? "" : "\nearlier tries crashed:\n" + crashes.joined(separator: "\n")))
            }
        }

        func url(_ mount: Mount) -> String { "http://127.0.0.1:\(port)\(mount.path)" }

        /// Icecast's status (status-json.xsl), through a plain HTTP/1.0 request.
        func status() -> String? { StreamHarness.httpGet(port: port, path: "/status-json.xsl") }

        static func isLive(_ port: Int, _ path: String) -> Bool {
            StreamHarness.httpGet(port: port, path: "/status-json.xsl")?.contains("\(port)\(path)\"") ?? false
        }

        /// How many listeners the mount at `path` has, from the status page.
        func listeners(_ path: String) -> Int? {
            guard let text = status(), let body = text.range(of: "\r\n\r\n").map({ text[$0.upperBound...] }),
                let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let stats = json["icestats"] as? [String: Any]
            else { return nil }
            let sources =
                (stats["source"] as? [[String: Any]]) ?? (stats["source"] as? [String: Any]).map { [$0] } ?? []
            for source in sources where (source["listenurl"] as? String)?.hasSuffix(path) == true {
                return source["listeners"] as? Int
            }
            return nil
        }

        func stop() {
            for s in sources { s.kill() }
            server.kill()
        }
    }

    /// GET `path` from 127.0.0.1:`port` (HTTP/1.0, a closed connection ends the answer); the
    /// whole answer, headers and all, or nil.
    static func httpGet(port: Int, path: String) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard
            request.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// Python's http.server on a free port serving `dir` (.m3u as audio/x-mpegurl, .pls as
    /// audio/x-scpls, .html as text/html: Python's own types).
    final class FileServer: @unchecked Sendable {
        let port: Int
        let server: Spawned

        init(dir: String, logDir: String) throws {
            let python = try StreamHarness.tool("python3", package: "python3")
            port = try StreamHarness.freePort()
            server = try Spawned(
                python, ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", dir], dir: logDir,
                name: "http-server")
            let port = port
            guard waitUntil(timeout: 10, { StreamHarness.accepts(port) }) else {
                throw Missing(description: "python3 -m http.server did not listen: \(server.output)")
            }
        }

        func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }
        func stop() { server.kill() }
    }

    /// The built alarm-stream, `--listen` on a socket of `dir`.
    final class Server: @unchecked Sendable {
        let socket: String
        let process: Spawned

        init(dir: String) throws {
            socket = dir + "/stream.sock"
            process = try Spawned(Binaries.path("alarm-stream"), ["--listen", socket], dir: dir, name: "alarm-stream")
            let socket = socket
            guard waitUntil(timeout: 10, { (try? WireClient(socket: socket)) != nil }) else {
                throw Missing(description: "alarm-stream --listen did not listen: \(process.output)")
            }
        }

        /// How many descriptors the server holds now.
        var openDescriptors: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd").count) ?? -1
        }

        func stop() { process.stop() }
    }
}

/// A client of the wire (docs/sounds.md, "Streams"), written for the tests from the contract.
final class WireClient {
    struct Frame {
        var type: UInt8
        var payload: [UInt8]
        var kind: Character { Character(UnicodeScalar(type)) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var fd: Int32
    private var buffer: [UInt8] = []

    init(socket path: String) throws {
        fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard ok == 0 else {
            let e = errno
            Glibc.close(fd)
            throw Failure(description: "connect(\(path)): \(String(cString: strerror(e)))")
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
    }

    func request(url: String) throws {
        let json = try JSONSerialization.data(withJSONObject: ["url": url])
        try send(String(decoding: json, as: UTF8.self) + "\n")
    }

    /// The next frame, waiting at most `timeout` seconds; nil when the server closed. A frame
    /// that breaks the wire's rules fails the test.
    func next(timeout: Double) throws -> Frame? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if buffer.count >= 5 {
                let length = Int(buffer[1]) | Int(buffer[2]) << 8 | Int(buffer[3]) << 16 | Int(buffer[4]) << 24
                guard length <= 65536 else { throw Failure(description: "a frame of \(length) bytes (at most 65536)") }
                guard [0x48, 0x41, 0x4D, 0x45].contains(buffer[0]) else {
                    throw Failure(description: "a frame of unknown type \(buffer[0])")
                }
                if buffer.count >= 5 + length {
                    let frame = Frame(type: buffer[0], payload: Array(buffer[5..<(5 + length)]))
                    buffer.removeFirst(5 + length)
                    return frame
                }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "no frame within \(timeout) s") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32(left * 1000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 {
                guard buffer.isEmpty else { throw Failure(description: "the server closed inside a frame") }
                return nil
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "recv: \(String(cString: strerror(errno)))")
            }
            buffer += chunk[0..<n]
        }
    }

    /// Reads until the `E` frame (and the close after it), at most `timeout` seconds; the error's text.
    func error(timeout: Double) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while let frame = try next(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            if frame.kind == "E" {
                let message = frame.json["error"] as? String ?? "(an E frame without an error: \(frame.text))"
                guard try next(timeout: 5) == nil else { throw Failure(description: "a frame after the E frame") }
                return message
            }
        }
        throw Failure(description: "the server closed without an E frame")
    }

    /// What a stream played: its header, the first channel's samples, and when the audio came.
    struct Played {
        var header: [String: Any]
        var rate: Int
        var channels: Int
        var firstChannel: [Float] = []
        /// (seconds since the first audio frame, seconds of audio received by then) per frame.
        var arrivals: [(wall: Double, audio: Double)] = []
        var titles: [String] = []
    }

    /// Reads frames until `seconds` of audio have come, each within `timeout` of the last; checks
    /// the wire's rules on the way (an `H` before the first `A`, whole frames).
    func play(seconds: Double, timeout: Double = 10) throws -> Played {
        var played: Played?
        var start: Date?
        var frames = 0
        while played == nil || Double(frames) / Double(played!.rate) < seconds {
            guard let frame = try next(timeout: timeout) else {
                throw Failure(description: "the server closed during the audio")
            }
            switch frame.kind {
            case "H":
                let json = frame.json
                guard let rate = json["rate"] as? Int, let channels = json["channels"] as? Int, rate > 0, channels > 0
                else {
                    throw Failure(description: "a header without rate and channels: \(frame.text)")
                }
                if played == nil {
                    played = Played(header: json, rate: rate, channels: channels)
                } else {
                    played!.header = json
                    played!.rate = rate
                    played!.channels = channels
                }
            case "A":
                guard var p = played else { throw Failure(description: "audio before a header") }
                guard frame.payload.count % (4 * p.channels) == 0 else {
                    throw Failure(
                        description:
                            "an audio frame of \(frame.payload.count) bytes: not whole frames of \(p.channels) channels"
                    )
                }
                if start == nil { start = Date() }
                let count = frame.payload.count / 4
                frame.payload.withUnsafeBytes { raw in
                    for i in stride(from: 0, to: count, by: p.channels) {
                        p.firstChannel.append(
                            Float(
                                bitPattern: UInt32(
                                    littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))))
                    }
                }
                frames += count / p.channels
                p.arrivals.append((Date().timeIntervalSince(start!), Double(frames) / Double(p.rate)))
                played = p
            case "M":
                played?.titles.append(frame.json["title"] as? String ?? "")
            case "E":
                throw Failure(description: "the stream failed: \(frame.text)")
            default:
                throw Failure(description: "a frame of type \(frame.type)")
            }
        }
        return played!
    }
}

/// The frequency of a sine by its zero crossings (upward), and its peak.
enum SineCheck {
    static func frequency(_ samples: ArraySlice<Float>, rate: Int) -> Double {
        var crossings: [Int] = []
        var previous = samples.first ?? 0
        for (i, s) in zip(samples.indices, samples) {
            if previous < 0 && s >= 0 { crossings.append(i) }
            previous = s
        }
        guard crossings.count >= 2 else { return 0 }
        return Double(crossings.count - 1) * Double(rate) / Double(crossings.last! - crossings.first!)
    }

    static func peak(_ samples: ArraySlice<Float>) -> Float { samples.map { abs($0) }.max() ?? 0 }
}

import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

@Suite("ControlFIFO")
struct ControlFIFOTests {
    /// Reads from the FIFO until `count` commands arrived or `seconds` passed.
    private func collect(_ fifo: ControlFIFO, count: Int, seconds: Double = 5) throws -> [ControlCommand] {
        var got: [ControlCommand] = []
        let deadline = Date().addingTimeInterval(seconds)
        while got.count < count && Date() < deadline {
            if waitReadable(fifo.descriptor, milliseconds: 100) {
                got += try fifo.readCommands()
            }
        }
        return got
    }

    private func shell(_ script: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        try p.run()
        return p
    }

    @Test("created with mode 0620 whatever the umask, in the given group; commands sent arrive")
    func createAndSend() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let old = umask(0o077)
        defer { umask(old) }
        // Root may give it any group; anyone else only one of their own.
        let group: UInt32 = geteuid() == 0 ? 12345 : getegid()
        let fifo = try ControlFIFO(path: path, group: group)

        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFIFO)
        #expect(info.st_mode & 0o7777 == 0o620)
        #expect(info.st_gid == group)
        #expect(info.st_uid == geteuid())

        #expect(try fifo.readCommands().isEmpty)
        try ControlFIFO.send(.snooze(duration: "5s"), to: path)
        try ControlFIFO.send(.stop, to: path)
        try ControlFIFO.send(line: "ring birds.wav", to: path)
        try ControlFIFO.send(.reload, to: path)
        #expect(try collect(fifo, count: 4) == [.snooze(duration: "5s"), .stop, .ring(sound: "birds.wav"), .reload])
    }

    @Test("an existing FIFO of ours is reused and its mode reset")
    func reuseOwnFIFO() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        #expect(mkfifo(path, 0o666) == 0)
        let fifo = try ControlFIFO(path: path)
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o620)
        try ControlFIFO.send(.stop, to: path)
        #expect(try collect(fifo, count: 1) == [.stop])
    }

    @Test("a regular file, a directory or a symlink at the path is refused and left alone")
    func refusesNonFIFO() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let file = dir.sub("file")
        _ = FileManager.default.createFile(atPath: file, contents: Data("keep me".utf8))
        #expect(throws: ControlFIFOError.notAFIFO(path: file, kind: "regular file")) { try ControlFIFO(path: file) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")

        #expect(throws: ControlFIFOError.notAFIFO(path: dir.path, kind: "directory")) {
            try ControlFIFO(path: dir.path)
        }

        let fifoTarget = dir.sub("real")
        #expect(mkfifo(fifoTarget, 0o600) == 0)
        let link = dir.sub("link")
        #expect(symlink(fifoTarget, link) == 0)
        #expect(throws: ControlFIFOError.notAFIFO(path: link, kind: "symlink")) { try ControlFIFO(path: link) }
    }

    @Test("a FIFO owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func refusesForeignFIFO() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        #expect(mkfifo(path, 0o666) == 0)
        #expect(chown(path, 4242, 4242) == 0)
        #expect(throws: ControlFIFOError.notOwned(path: path, owner: 4242, us: geteuid())) {
            try ControlFIFO(path: path)
        }
        let message = "\(ControlFIFOError.notOwned(path: path, owner: 4242, us: 0))"
        #expect(message.contains("owned by uid 4242"))
    }

    @Test(
        "giving the FIFO to a group this user is not in fails with a clear error",
        .enabled(if: geteuid() != 0, "root may chown to any group"))
    func groupNotMember() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        #expect(throws: ControlFIFOError.cannotSetGroup(path: path, group: 4242)) {
            try ControlFIFO(path: path, group: 4242)
        }
    }

    @Test(
        "as root, the group test above runs in this test binary as nobody (setpriv)",
        .enabled(if: geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0, "needs root and setpriv"))
    func groupNotMemberAsNobody() throws {
        // (A copy: the bundle's own directory may be closed to nobody, as a checkout under a
        // 0700 home directory is.)
        let bundle = try Binaries.reachableCopy(of: "/proc/self/exe".resolvedLink, as: "alarmPackageTests.xctest")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", bundle,
            "--testing-library", "swift-testing", "--filter", "ControlFIFOTests/groupNotMember\\(\\)",
        ]
        p.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        let output = Pipe()
        p.standardOutput = output
        p.standardError = output
        try p.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains("Test run with 1 test"), "\(text)")
        #expect(!text.contains("skipped"), "\(text)")
    }

    @Test("send with no reader fails at once with daemonNotRunning (ENXIO); no FIFO is missing")
    func sendWithoutReader() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        #expect(mkfifo(path, 0o620) == 0)
        let start = Date()
        #expect(throws: ControlFIFOError.daemonNotRunning(path: path)) { try ControlFIFO.send(.stop, to: path) }
        #expect(Date().timeIntervalSince(start) < 0.5)
        #expect(throws: ControlFIFOError.missing(path: dir.sub("nothing"))) {
            try ControlFIFO.send(.stop, to: dir.sub("nothing"))
        }
        let file = dir.sub("file")
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        #expect(throws: ControlFIFOError.notAFIFO(path: file, kind: "regular file")) {
            try ControlFIFO.send(.stop, to: file)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).isEmpty, "nothing written into a regular file")
    }

    @Test("send refuses overlong, empty and multi-line input before touching the FIFO")
    func sendRefusesBadLines() throws {
        let path = "/nonexistent/control"
        #expect(throws: ControlFIFOError.badLine(reason: "longer than 512 bytes")) {
            try ControlFIFO.send(line: String(repeating: "x", count: 513), to: path)
        }
        #expect(throws: ControlFIFOError.badLine(reason: "the line is empty")) {
            try ControlFIFO.send(line: "", to: path)
        }
        #expect(throws: ControlFIFOError.badLine(reason: "it contains a newline")) {
            try ControlFIFO.send(line: "stop\nstop", to: path)
        }
    }

    @Test("a full FIFO makes send fail with busy instead of blocking")
    func sendToFullFIFO() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        var sent = 0
        var failure: ControlFIFOError?
        let start = Date()
        while failure == nil && sent < 100_000 {
            do {
                try ControlFIFO.send(.stop, to: path)
                sent += 1
            } catch let e as ControlFIFOError { failure = e }
        }
        #expect(failure == .busy(path: path))
        #expect(sent > 1000, "a pipe holds 64 KiB: \(sent) lines went in")
        #expect(Date().timeIntervalSince(start) < 10)
        let drained = try collect(fifo, count: sent)
        #expect(drained.count == sent)
        #expect(drained.allSatisfy { $0 == .stop })
    }

    @Test("garbage, NULs, overlong and binary lines are reported invalid and the FIFO keeps serving")
    func garbage() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0)
        defer { close(writer) }
        func put(_ bytes: [UInt8]) {
            let n = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            #expect(n == bytes.count)
        }
        put(Array("hello world\n".utf8))
        put([0x73, 0x74, 0x00, 0x70, 0x0a])
        put([0xc3, 0x28, 0x0a])
        put([UInt8](repeating: UInt8(ascii: "z"), count: 2000) + [0x0a])
        put(Array("stop\n".utf8))
        let got = try collect(fifo, count: 5)
        #expect(got.count == 5)
        #expect(got.prefix(4).allSatisfy { if case .invalid = $0 { return true } else { return false } }, "\(got)")
        #expect(got.last == .stop)
    }

    @Test("a 1 MiB line from another process is discarded whole; the next command still arrives")
    func megabyteLine() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        let p = try shell("{ head -c 1048576 /dev/zero | tr '\\0' 'a'; printf '\\nstop\\n'; } > '\(path)'")
        let got = try collect(fifo, count: 2, seconds: 20)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(got == [.invalid(reason: "line longer than 512 bytes discarded (1048576 bytes)"), .stop])
    }

    @Test("a writer that closes mid-line costs only its own partial line; no end-of-file spin")
    func writerClosesMidLine() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        let p = try shell("printf 'sno' > '\(path)'")
        p.waitUntilExit()
        #expect(waitReadable(fifo.descriptor, milliseconds: 1000))
        #expect(try fifo.readCommands().isEmpty, "'sno' is buffered, not a line yet")
        // The writer is gone; with our own writer end held, the read end is not at EOF and not ready.
        #expect(!waitReadable(fifo.descriptor, milliseconds: 200), "no hang-up / EOF readiness after the writer left")
        try ControlFIFO.send(.stop, to: path)
        try ControlFIFO.send(.reload, to: path)
        // send() starts with a newline, which ends the stranded 'sno': the commands arrive intact.
        let got = try collect(fifo, count: 3)
        #expect(
            got == [
                .invalid(reason: "unknown command 'sno' (expected snooze, stop, ring, skip or reload)"), .stop, .reload,
            ])
    }

    @Test("50 writer threads and 50 writer processes at once: every line arrives whole")
    func manyWriters() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        let perThread = 20
        let threads = (0..<50).map { i in
            Thread {
                for _ in 0..<perThread {
                    // Retry only if the pipe is momentarily full; any other error fails the test below.
                    while (try? ControlFIFO.send(.ring(sound: "t\(i).wav"), to: path)) == nil { usleep(1000) }
                }
            }
        }
        threads.forEach { $0.start() }
        let processes = try (0..<50).map { i in try shell("printf 'snooze %dm\\n' \(i) > '\(path)'") }
        let got = try collect(fifo, count: 50 * perThread + 50, seconds: 30)
        processes.forEach { $0.waitUntilExit() }

        #expect(got.count == 50 * perThread + 50)
        var rings: [String: Int] = [:]
        var snoozes = Set<String>()
        for command in got {
            switch command {
            case .ring(let sound?): rings[sound, default: 0] += 1
            case .snooze(let d?): snoozes.insert(d)
            default: Issue.record("unexpected \(command)")
            }
        }
        #expect(rings.count == 50 && rings.values.allSatisfy { $0 == perThread })
        #expect(snoozes == Set((0..<50).map { "\($0)m" }))
    }

    @Test("remove unlinks the FIFO; senders then find no daemon")
    func removeAtShutdown() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("control")
        let fifo = try ControlFIFO(path: path)
        try fifo.remove()
        #expect(access(path, F_OK) != 0)
        #expect(throws: ControlFIFOError.missing(path: path)) { try ControlFIFO.send(.stop, to: path) }
    }
}

extension String {
    /// The target of a symlink such as /proc/self/exe.
    fileprivate var resolvedLink: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: self)) ?? self
    }
}

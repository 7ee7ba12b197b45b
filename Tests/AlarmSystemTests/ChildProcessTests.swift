import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// Issue #11: fallback_command runs through `/bin/sh -c` with exactly the environment given,
/// stdin from /dev/null, no inherited blocked signals, and a pidfd that says when it ended.
@Suite("ChildProcess: /bin/sh -c with posix_spawn and a pidfd (issue #11)")
struct ChildProcessTests {
    @Test("the environment is exactly the one given; stdin is /dev/null; the exit status comes back")
    func environmentAndStatus() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let child = try ChildProcess(
            shellCommand: "env > \(dir.sub("env")); cat > \(dir.sub("stdin")); exit 3",
            environment: ["ALARM_ID": "wake", "ALARM_LABEL": "Good morning; $(not expanded)", "PATH": "/usr/bin:/bin"])
        #expect(child.pid > 0)
        #expect(try child.wait() == .exited(3))
        let env = try String(contentsOfFile: dir.sub("env"), encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(env.contains("ALARM_ID=wake"))
        #expect(env.contains("ALARM_LABEL=Good morning; $(not expanded)"))
        #expect(!env.contains { $0.hasPrefix("HOME=") }, "nothing of the test runner's environment: \(env)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.sub("stdin"))).isEmpty)
    }

    @Test("the pidfd becomes readable when it ends; reap() is nil before, the status after")
    func pidfd() throws {
        let child = try ChildProcess(shellCommand: "sleep 0.3", environment: ["PATH": "/usr/bin:/bin"])
        #expect(child.descriptor >= 0, "pidfd_open works on this kernel")
        #expect(try child.reap() == nil)
        #expect(!waitReadable(child.descriptor, milliseconds: 50))
        #expect(waitReadable(child.descriptor, milliseconds: 10_000))
        #expect(try child.reap() == .exited(0))
        #expect(try child.reap() == .exited(0), "asking again gives the same status")
    }

    @Test("a child started while SIGTERM is blocked (as in alarmd) starts with no signal blocked")
    func signalsReset() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var block = sigset_t()
        var old = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &block, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        // exec: grep is the shell itself, with the mask the shell started with.
        let child = try ChildProcess(
            shellCommand: "exec grep SigBlk /proc/self/status > \(dir.sub("mask"))",
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(try child.wait() == .exited(0))
        let mask = try String(contentsOfFile: dir.sub("mask"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(mask == "SigBlk:\t0000000000000000", "SIGTERM must not stay blocked in the child: \(mask)")
        // alarmd ignores SIGPIPE; its child must not (a `cmd | head` pipeline relies on it).
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let ign = try ChildProcess(
            shellCommand: "exec grep SigIgn /proc/self/status > \(dir.sub("ign"))",
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(try ign.wait() == .exited(0))
        let ignored = try String(contentsOfFile: dir.sub("ign"), encoding: .utf8).split(separator: "\t").last
            .flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) }
        #expect(ignored.map { $0 & (1 << (UInt64(SIGPIPE) - 1)) == 0 } == true, "SIGPIPE still ignored in the child")
        let killed = try ChildProcess(shellCommand: "kill -TERM $$; sleep 5", environment: ["PATH": "/usr/bin:/bin"])
        let status = try killed.wait()
        #expect(status == .signaled(SIGTERM))
        #expect(status.description.hasPrefix("was killed by signal 15"))
        #expect(ExitStatus.exited(0).description == "exited with status 0")
    }

    @Test(
        "a program with bytes on stdin (more than a pipe holds by default, without blocking us), in its own process group"
    )
    func stdinAndProcessGroup() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let script = dir.sub("hook")
        try "#!/bin/sh\ncat > \"$1\"\nps -o pgid= -p $$ | tr -d ' ' > \"$1.pgid\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        #expect(!ChildProcess.isRunnable(script), "not executable yet")
        chmod(script, 0o755)
        #expect(ChildProcess.isRunnable(script))
        #expect(!ChildProcess.isRunnable(dir.path), "a directory is not a program")
        let input = Array(("{\"event\":\"ringing\"}" + String(repeating: "x", count: 100_000) + "\n").utf8)
        let child = try ChildProcess(
            executable: script, arguments: [dir.sub("out")], environment: ["PATH": "/usr/bin:/bin"],
            standardInput: input,
            ownProcessGroup: true)
        #expect(try child.wait() == .exited(0))
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: dir.sub("out")))) == input)
        let pgid = try String(contentsOfFile: dir.sub("out.pgid"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(pgid == "\(child.pid)", "the child leads its own group")
    }

    @Test("signal() reaches what the child started: a shell's sleep dies with it")
    func killTheGroup() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "sleep 60 & echo $! > \(dir.sub("pid")); wait"],
            environment: ["PATH": "/usr/bin:/bin"],
            ownProcessGroup: true)
        var pid: Int32?
        waitUntil(timeout: 10, poll: 0.01) {
            pid = (try? String(contentsOfFile: dir.sub("pid"), encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return pid != nil
        }
        let sleeper = try #require(pid)
        #expect(kill(sleeper, 0) == 0)
        try child.signal(SIGKILL)
        #expect(try child.wait() == .signaled(SIGKILL))
        let gone = waitUntil(timeout: 10, poll: 0.01) {
            // A zombie until its parent (us, after the shell died: init) reaps it; its state says so.
            let state = (try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8))?.split(separator: " ")
                .dropFirst(2).first
            return state == nil || state == "Z"
        }
        #expect(gone, "the sleep the shell started still runs")
        try child.signal(SIGKILL)  // reaped: nothing is sent
    }

    @Test("the child holds no descriptor of ours above 2, close-on-exec or not (a pipe and a socket left inheritable)")
    func noInheritedDescriptors() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        // High numbers of their own, inheritable as another thread's or a library's might be.
        let leaky = [ends[0], ends[1], pair[0], pair[1]].enumerated().map { fcntl($1, F_DUPFD, Int32(200 + $0)) }
        defer { for fd in ends + pair + leaky { close(fd) } }
        #expect(leaky.allSatisfy { $0 >= 200 && fcntl($0, F_GETFD) & FD_CLOEXEC == 0 })
        let out = open(dir.sub("fds"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(out) }
        let child = try ChildProcess(
            executable: "/bin/ls", arguments: ["/proc/self/fd"], environment: ["PATH": "/usr/bin:/bin"],
            standardOutput: out)
        #expect(try child.wait() == .exited(0))
        let listed = try String(contentsOfFile: dir.sub("fds"), encoding: .utf8).split(separator: "\n").compactMap {
            Int32($0)
        }
        #expect(listed.contains(1), "ls lists its own descriptors: \(listed)")
        // (ls's own are 0, 1, 2 and the directory it reads; user-mode qemu adds its own.)
        #expect(Set(listed).isDisjoint(with: leaky), "inherited: \(listed) (ours: \(leaky))")
    }

    @Test("a command that cannot run is the shell's exit status 127")
    func missingCommand() throws {
        let child = try ChildProcess(shellCommand: "/nonexistent/buzz 2>/dev/null", environment: [:])
        #expect(try child.wait() == .exited(127))
    }
}

@Suite("KernelClock and FileSystemSpace (issue #11)")
struct ClockAndSpaceTests {
    @Test("STA_UNSYNC as adjtimex reports it, read independently through Python's ctypes")
    func clock() throws {
        let script = """
            import ctypes
            buf = ctypes.create_string_buffer(512)
            ctypes.CDLL(None).adjtimex(buf)
            print(int.from_bytes(buf.raw[40:44], 'little', signed=True) & 0x40)
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let unsync = try #require(Int(text), "python3 printed '\(text)'")
        #expect(try KernelClock.isSynchronized() == (unsync == 0))
    }

    @Test("free bytes as df shows them for an unprivileged user; writability")
    func space() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/df")
        p.arguments = ["--output=avail", "-B1", dir.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
            separator: "\n")
        let df = try #require(lines.last.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) })
        let ours = try FileSystemSpace.availableBytes(dir.path)
        #expect(abs(ours - df) < 64 << 20, "ours \(ours), df \(df) (other writers may move it a little)")
        try FileSystemSpace.checkWritable(dir.path)
        #expect { try FileSystemSpace.checkWritable(dir.sub("missing")) } throws: {
            ($0 as? SystemError)?.errno == ENOENT
        }
        #expect { try FileSystemSpace.availableBytes(dir.sub("missing")) } throws: {
            ($0 as? SystemError)?.errno == ENOENT
        }
    }
}

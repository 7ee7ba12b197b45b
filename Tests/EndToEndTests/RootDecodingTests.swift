import AlarmTestSupport
import Foundation
import Testing

/// Issue #42, "decoding as root": a member of the sound directory's group writes a file there, and
/// root runs the built `alarm` on it (`sudo alarm add --sound`, `alarm sounds`). Root's `alarm`
/// decodes in a child that has become the user `alarm` (here, without that user, `nobody`), never
/// in its own process, and waits for that child a bounded time. These tests run as root.
@Suite("alarm run as root decodes sounds as another user (issue #42)", .serialized)
struct RootDecodingTests {
    /// The group member who writes the sounds: a uid and gid with no account, as setpriv allows.
    static let member = 4242
    static let group = 4242

    final class Env: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-rootdecode-" + UUID().uuidString
        var sounds: String { root + "/sounds" }
        var environment: [String: String] {
            [
                "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null",
                "ALARM_SOUNDS_DIR": sounds, "TZ": "Europe/Berlin",
            ]
        }
        /// The sound directory as the package makes `<state dir>/sounds`: the group's, 2775.
        init() throws {
            try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
            try sh("chown root:\(group) '\(sounds)' && chmod 2775 '\(sounds)'")
        }
        /// Writes `source` into the sound directory as `name`, as the group member.
        func memberWrites(_ source: String, as name: String) throws {
            // Through a world-readable copy in /tmp: the member may not reach `source` (a
            // checkout under a 0700 directory, as CI's fresh clone is).
            try sh(
                "t=$(mktemp) && cp '\(source)' \"$t\" && chmod 644 \"$t\" && "
                    + "setpriv --reuid=\(member) --regid=\(group) --groups=\(group) -- cp \"$t\" '\(sounds)/\(name)'; "
                    + "s=$?; rm -f \"$t\"; exit $s")
        }
        func run(_ args: String...) throws -> Binaries.Result {
            try Binaries.run("alarm", args, environment: environment, timeout: 120)
        }
        func listed(_ stdout: String) -> [String: [String: Any]] {
            let all = (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]]) ?? []
            return Dictionary(all.map { ($0["name"] as? String ?? "", $0) }) { a, _ in a }
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func sh(_ script: String) throws {
        let r = try Binaries.runAbsolute("/bin/bash", ["-c", "set -euo pipefail; " + script], timeout: 300)
        guard r.status == 0 else { throw PulseNullSink.Failed(description: "\(script): \(r.stderr)") }
    }

    /// The user the child becomes: `alarm` where it exists, else `nobody`; its uid, gid and groups.
    static func decodingUser() throws -> (name: String, uid: String, gid: String, groups: Set<String>) {
        let name =
            (try Binaries.runAbsolute("/usr/bin/id", ["-u", "alarm"], timeout: 30)).status == 0 ? "alarm" : "nobody"
        func id(_ flag: String) throws -> String {
            try Binaries.runAbsolute("/usr/bin/id", [flag, name], timeout: 30).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (name, try id("-u"), try id("-g"), Set(try id("-G").split(separator: " ").map(String.init)))
    }

    /// The checkout's Sounds/chime.flac: beside the sources, or, where they were compiled at
    /// another path (the arm64 build's root mounts the checkout at /src), above the test bundle.
    static var chime: String {
        let beside = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds/chime.flac").path
        if FileManager.default.fileExists(atPath: beside) { return beside }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("Sounds/chime.flac").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return beside
    }

    @Test("root: a good sound a group member wrote plays, and alarm sounds --json says what a non-root user's says")
    func goodSoundAsBefore() throws {
        try #require(getuid() == 0, "this test runs as root")
        let e = try Env()
        try e.memberWrites(Self.chime, as: "chime.flac")
        let added = try e.run("add", "07:00", "--sound", "chime.flac", "--id", "a")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.isEmpty, "\(added.stderr)")
        // alarm check's sound line (it fails for want of alarmd and a device, as it did before).
        let checked = try e.run("check")
        #expect(
            checked.stdout.contains("ok       sound    'chime.flac' plays (FLAC FLAC 16-bit, 2.4 s, mono 44100 Hz)"),
            "\(checked.stdout)")
        let asRoot = try e.run("sounds", "--json")
        #expect(asRoot.status == 0, "\(asRoot.stderr)")
        let entry = try #require(e.listed(asRoot.stdout)["chime.flac"], "\(asRoot.stdout)")
        #expect(entry["playable"] as? Bool == true, "\(entry)")
        // The same command decoding in its own process (a user who is not root) gives the same JSON.
        let alarm = try Binaries.reachablePath("alarm")
        let env = e.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let asMember = try Binaries.runAbsolute(
            "/bin/bash",
            [
                "-c",
                "\(env) exec setpriv --reuid=\(Self.member) --regid=\(Self.group) --groups=\(Self.group) -- '\(alarm)' sounds --json",
            ],
            timeout: 120)
        #expect(asMember.status == 0, "\(asMember.stderr)")
        #expect(asMember.stdout == asRoot.stdout)
        let table = try e.run("sounds")
        #expect(
            table.status == 0 && table.stdout.contains("chime.flac") && table.stdout.contains("yes"), "\(table.stdout)")
    }

    @Test(
        "root: a sound only root may read (0600 root, in a 0700 directory as CI's fresh clone is) plays: root opens it, the child decodes the open file"
    )
    func rootOnlyFilePlays() throws {
        try #require(getuid() == 0, "this test runs as root")
        let e = try Env()
        try Self.sh("cp '\(Self.chime)' '\(e.sounds)/secret.flac' && chmod 600 '\(e.sounds)/secret.flac'")
        let listed = try e.run("sounds", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        let entry = try #require(e.listed(listed.stdout)["secret.flac"], "\(listed.stdout)")
        #expect(entry["playable"] as? Bool == true, "\(entry)")
        let added = try e.run("add", "07:00", "--sound", "secret.flac", "--id", "s")
        #expect(added.status == 0 && added.stderr.isEmpty, "\(added.stderr)")
        let checked = try e.run("check")
        #expect(
            checked.stdout.contains("ok       sound    'secret.flac' plays (FLAC FLAC 16-bit, 2.4 s, mono 44100 Hz)"),
            "\(checked.stdout)")
        // A file neither alarm nor nobody can reach: under a 0700 directory of root's.
        let locked = e.root + "/locked"
        try Self.sh(
            "mkdir -p '\(locked)/inner' && chmod 700 '\(locked)' && cp '\(Self.chime)' '\(locked)/inner/bell.flac'")
        let user = try Self.decodingUser()
        let reach = try Binaries.runAbsolute(
            "/usr/bin/setpriv",
            [
                "--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--", "/usr/bin/test", "-r",
                locked + "/inner/bell.flac",
            ],
            timeout: 30)
        #expect(reach.status != 0, "user \(user.name) can read \(locked)/inner/bell.flac: the test proves nothing")
        var env = e.environment
        env["ALARM_SOUNDS_DIR"] = locked + "/inner"
        let inLocked = try Binaries.run("alarm", ["sounds", "--json"], environment: env, timeout: 120)
        #expect(inLocked.status == 0, "\(inLocked.stderr)")
        let bell = try #require(e.listed(inLocked.stdout)["bell.flac"], "\(inLocked.stdout)")
        #expect(bell["playable"] as? Bool == true, "\(bell)")
        // sounds cut from it too (it writes the clip into the sound directory).
        let cut = try e.run(
            "sounds", "cut", locked + "/inner/bell.flac", "--from", "0", "--length", "1s", "--name", "bit")
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(FileManager.default.fileExists(atPath: e.sounds + "/bit.flac"), "\(cut.stdout) \(cut.stderr)")
    }

    @Test("root: a FIFO a group member put in the sound directory is refused by root's open, not waited on")
    func fifoRefusedByRootsOpen() throws {
        try #require(getuid() == 0, "this test runs as root")
        let e = try Env()
        try Self.sh(
            "setpriv --reuid=\(Self.member) --regid=\(Self.group) --groups=\(Self.group) -- mkfifo '\(e.sounds)/pipe.wav'"
        )
        let started = Date()
        let listed = try e.run("sounds", "--json")
        #expect(Date().timeIntervalSince(started) < Slowdown.scaled(15))
        #expect(listed.status == 0, "\(listed.stderr)")
        let entry = try #require(e.listed(listed.stdout)["pipe.wav"], "\(listed.stdout)")
        #expect(entry["playable"] as? Bool == false, "\(entry)")
        let reason = entry["reason"] as? String ?? ""
        // Refused by root before any child ran: no "(read as user ...)" after the reason.
        #expect(reason.contains("not a regular file") && !reason.contains("read as user"), "\(reason)")
    }

    @Test(
        "root: the decoding child is the user alarm (or nobody), its groups, no_new_privs; stuck, it is killed after 20 s and the file reported"
    )
    func stuckChildIsBoundedAndUnprivileged() throws {
        try #require(getuid() == 0, "this test runs as root")
        let e = try Env()
        let user = try Self.decodingUser()
        // 30 s of 192 kHz stereo float: the largest clip that plays (46 MB), which takes the
        // child long enough to decode and send for this test to catch it at work.
        try Self.sh(
            "ffmpeg -nostdin -v error -f lavfi -i 'sine=frequency=440:sample_rate=192000:duration=29.9' -ac 2 -c:a pcm_f32le '\(e.root)/big.wav'"
        )
        try e.memberWrites(e.root + "/big.wav", as: "big.wav")
        // The child may finish before it is seen; then the run is repeated.
        var outputs: [String] = []
        for attempt in 1...5 {
            let out = e.root + "/out-\(attempt)"
            FileManager.default.createFile(atPath: out, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Binaries.path("alarm"))
            p.arguments = ["sounds", "--json"]
            p.environment = ProcessInfo.processInfo.environment.merging(e.environment) { $1 }
            p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            p.standardError = FileHandle.nullDevice
            let started = Date()
            try p.run()
            // The child, once it has dropped its rights (its uid is the user's and no_new_privs is
            // set), is stopped: a decoder stuck on a crafted file.
            var child: (pid: Int32, status: [String: String])?
            while p.isRunning, child == nil {
                child =
                    Self.children(of: p.processIdentifier).lazy.compactMap { pid in
                        Self.status(pid).flatMap { s in
                            s["Uid"]?.split(whereSeparator: \.isWhitespace).first == Substring(user.uid)
                                && s["NoNewPrivs"] == "1" ? (pid, s) : nil
                        }
                    }.first
            }
            guard let child, kill(child.pid, SIGSTOP) == 0 else {
                p.waitUntilExit()
                outputs.append(
                    "exit \(p.terminationStatus) after \(Date().timeIntervalSince(started)) s: "
                        + ((try? String(contentsOfFile: out, encoding: .utf8)) ?? ""))
                continue
            }
            let stopped = Self.status(child.pid) ?? child.status
            let ids = { (key: String) in (stopped[key] ?? "").split(whereSeparator: \.isWhitespace).map(String.init) }
            #expect(ids("Uid") == [user.uid, user.uid, user.uid, user.uid], "\(stopped)")
            #expect(ids("Gid") == [user.gid, user.gid, user.gid, user.gid], "\(stopped)")
            #expect(Set(ids("Groups")) == user.groups, "\(stopped)")
            #expect(stopped["NoNewPrivs"] == "1" && stopped["CapEff"] == "0000000000000000", "\(stopped)")
            let cmdline = (try? String(contentsOfFile: "/proc/\(child.pid)/cmdline", encoding: .utf8)) ?? ""
            #expect(cmdline.contains("decode-sound"), "\(cmdline)")
            // Root's environment is not handed down, only what starting needs (under qemu-user).
            let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child.pid)/environ"))) ?? Data()
            let names = Set(
                environ.split(separator: 0).map {
                    String(decoding: $0.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
                })
            #expect(names.isSubset(of: ["QEMU_LD_PREFIX", "LD_LIBRARY_PATH"]), "\(names)")
            // It reads the file root opened for it (its stdin), not one it opened itself.
            let stdin = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/fd/0")
            #expect(stdin == e.sounds + "/big.wav", "\(stdin ?? "no fd 0")")
            let fdinfo = (try? String(contentsOfFile: "/proc/\(child.pid)/fdinfo/0", encoding: .utf8)) ?? ""
            let flags = fdinfo.split(separator: "\n").first { $0.hasPrefix("flags:") }.flatMap {
                Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
            }
            #expect(flags.map { $0 & Int(O_ACCMODE) == Int(O_RDONLY) } == true, "\(fdinfo)")
            // Root's alarm ends by itself once the bound has passed, well before this wait does.
            let deadline = Date().addingTimeInterval(Slowdown.scaled(90))
            while p.isRunning && Date() < deadline { usleep(20_000) }
            let took = Date().timeIntervalSince(started)
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
            #expect(took >= 19.5 && took < 60, "took \(took) s")
            #expect(p.terminationStatus == 0)
            let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            let entry = try #require(e.listed(stdout)["big.wav"], "\(stdout)")
            let reason = entry["reason"] as? String ?? ""
            #expect(entry["playable"] as? Bool == false, "\(entry)")
            #expect(
                reason.contains("its decoder (run as user \(user.name)) did not finish within 20 s and was stopped"),
                "\(entry)")
            // The stopped child was killed, not left behind.
            var gone = false
            let until = Date().addingTimeInterval(Slowdown.scaled(30))
            while !gone && Date() < until {
                let state = Self.status(child.pid)?["State"] ?? "Z"
                gone = state.hasPrefix("Z") || state.hasPrefix("X")
                if !gone { usleep(20_000) }
            }
            #expect(gone, "decoding child \(child.pid) still there")
            return
        }
        Issue.record("the decoding child was never seen at work in 5 runs: \(outputs)")
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] { ProcessTable.children(of: pid) }

    /// /proc/PID/status as key and value, or nil once it is gone.
    static func status(_ pid: Int32) -> [String: String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }
}

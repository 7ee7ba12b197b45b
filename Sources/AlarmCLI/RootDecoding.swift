import AlarmAudio
import AlarmSystem
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Root's `alarm` never decodes a sound file in its own process (issue #42): any member of the
/// state directory's group may write the files of `<state dir>/sounds`, and a decoder fed a crafted
/// file must not run with root's rights. Run as root, `alarm add --sound`, `check`, `sounds`,
/// `sounds cut` and `play` open the file themselves, as root (read-only, no symlink followed
/// anywhere on the resolved path, never blocking; what root cannot open is reported as before),
/// and hand the open descriptor as stdin to a child that decodes it: this same executable
/// (`/proc/self/exe`) run with the hidden `decode-sound` command, which becomes the user `alarm`
/// (or `nobody` where there is no such user) before it reads a byte of it, and writes what it
/// found on its stdout (`DecodedWire`). So a sound root may read plays wherever it lies (a checkout under a 0700
/// directory too), and only the decoding runs unprivileged. The parent reads at most
/// `DecodedWire.maxBytes`, for at most `timeout` seconds, then kills it.
///
/// Run by any other user, the commands decode in their own process as before.
enum RootDecoding {
    /// How long a child may take to decode one file (a 30 s clip decodes in well under a second on
    /// a Pi; emulated arm64 is some 30 times slower). Past it the file is reported as unreadable.
    static let timeout = 20.0

    /// True when this process runs as root (real or effective) and decodes through a child.
    static var isNeeded: Bool { geteuid() == 0 || getuid() == 0 }

    /// This program's file: `/proc/self/exe` resolved here, as qemu-user (the arm64 tests) answers
    /// that link for the program it runs but would exec itself for the link; the link itself when
    /// the file is gone (replaced by an upgrade while this process runs).
    static let executable: String = {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            path.hasPrefix("/"), !path.hasSuffix(" (deleted)"), access(path, X_OK) == 0
        {
            return path
        }
        return "/proc/self/exe"
    }()

    /// The user the child becomes, named in messages; nil when neither `alarm` nor `nobody` exists.
    static let user = UnprivilegedUser.forDecoding()

    /// `SoundDecoder.inspect`, in a child that is not root.
    static func inspect(path: String, name: String) -> SoundInspection {
        let failed = { (detail: String) in
            SoundInspection(
                name: name, path: path, format: nil, duration: nil, result: .failure(.unreadable(name, detail: detail)))
        }
        let file: Int32
        do throws(SoundProblem) { file = try SoundDecoder.openWithoutSymlinks(path: path, name: name) } catch {
            return SoundInspection(name: name, path: path, format: nil, duration: nil, result: .failure(error))
        }
        defer { close(file) }
        switch run(["--", name, path], file: file) {
        case .none(let why): return failed(why)
        case .bytes(let bytes):
            do throws(DecodedWire.Malformed) {
                var out = try DecodedWire.inspection(bytes, path: path, name: name)
                if case .failure(.unreadable(_, let detail)) = out.result {
                    out.result = .failure(.unreadable(name, detail: detail + asUser))
                }
                return out
            } catch { return failed("\(error)" + asUser) }
        }
    }

    /// `SoundCutter.cut`, in a child that is not root.
    static func cut(path: String, name: String, from: Double, length: Double) throws(SoundCutter.Refusal) -> AudioClip {
        let file: Int32
        do throws(SoundProblem) { file = try SoundDecoder.openWithoutSymlinks(path: path, name: name) } catch {
            throw .source(error)
        }
        defer { close(file) }
        let answer = run(["--cut-from", "\(from)", "--cut-length", "\(length)", "--", name, path], file: file)
        switch answer {
        case .none(let why): throw .source(.unreadable(name, detail: why))
        case .bytes(let bytes):
            let result: Result<AudioClip, SoundCutter.Refusal>
            do throws(DecodedWire.Malformed) { result = try DecodedWire.cut(bytes, name: name) } catch {
                throw .source(.unreadable(name, detail: "\(error)" + asUser))
            }
            switch result {
            case .success(let clip): return clip
            case .failure(.source(.unreadable(_, let detail))):
                throw .source(.unreadable(name, detail: detail + asUser))
            case .failure(let refusal): throw refusal
            }
        }
    }

    /// The child's environment: nothing but what it needs to start as this process did, which root
    /// set for itself (the child is exec'd as root and drops its rights only then).
    /// `QEMU_LD_PREFIX`: under user-mode qemu (an arm64 binary on another machine, the arm64 tests)
    /// the emulator finds the target's dynamic loader there; without it qemu exits with status
    /// 255 before our code runs ("Could not open '/lib/ld-linux-aarch64.so.1'"), which the arm64
    /// tests showed as "its decoder (run as user nobody) exited with status 255".
    /// `LD_LIBRARY_PATH`: where a build linked with the shared Swift runtime finds it.
    static var childEnvironment: [String: String] {
        var out: [String: String] = [:]
        for name in ["QEMU_LD_PREFIX", "LD_LIBRARY_PATH"] {
            if let value = getenv(name) { out[name] = String(cString: value) }
        }
        return out
    }

    /// Said after a reason the child gave, so that root reading "Permission denied" knows whose.
    private static var asUser: String {
        " (read as user \(user?.name ?? "?"): alarm run as root decodes sounds as that user, never as root)"
    }

    /// The child's answer, or why there is none, in words for the message.
    private enum Answer {
        case bytes([UInt8])
        case none(String)
    }

    /// Runs the child with `arguments` after `decode-sound --as-user USER`, `file` as its stdin.
    private static func run(_ arguments: [String], file: Int32) -> Answer {
        guard let user else {
            return .none(
                "alarm run as root decodes sounds as user alarm or nobody, and neither exists here; run it as another user"
            )
        }
        let captured: CapturedOutput
        do {
            captured = try ChildProcess.capture(
                executable: executable, arguments: ["decode-sound", "--as-user", user.name] + arguments,
                environment: childEnvironment, limit: DecodedWire.maxBytes, timeout: timeout, standardInput: file)
        } catch {
            return .none("its decoder could not be started as user \(user.name): \(error)")
        }
        switch captured.cut {
        case .timedOut(let seconds):
            return .none(
                "its decoder (run as user \(user.name)) did not finish within \(Int(seconds)) s and was stopped")
        case .tooLarge(let limit):
            return .none("its decoder (run as user \(user.name)) wrote more than \(limit) bytes and was stopped")
        case nil:
            guard captured.status == .exited(0) else {
                return .none("its decoder (run as user \(user.name)) \(captured.status)")
            }
            return .bytes(captured.bytes)
        }
    }
}

extension SoundLibrary {
    /// This library, decoding in a child that is not root when this process is root.
    var decodingSafely: SoundLibrary {
        guard RootDecoding.isNeeded else { return self }
        var library = self
        library.decoder = { RootDecoding.inspect(path: $0, name: $1) }
        return library
    }
}

/// `alarm decode-sound --as-user USER [--cut-from S --cut-length S] -- NAME PATH`: not for people.
/// Root's `alarm` runs it (`RootDecoding`) with the sound file, which root opened, as stdin: it
/// becomes USER, then decodes its stdin (or cuts a clip from it) and writes the answer on stdout
/// in `DecodedWire`'s layout. It never opens PATH (named in the answer only) and never decodes as
/// root: when it cannot become USER it answers "unreadable" with the reason, stdin unread.
struct DecodeSound: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-sound", abstract: "Decode a sound as another user (run by alarm itself).",
        shouldDisplay: false)

    @Option var asUser: String
    @Option var cutFrom: Double?
    @Option var cutLength: Double?
    @Argument var name: String
    @Argument var path: String

    func run() throws {
        let refusal = becomeUser()
        if let cutFrom, let cutLength {
            let result: Result<AudioClip, SoundCutter.Refusal>
            if let refusal {
                result = .failure(.source(.unreadable(name, detail: refusal)))
            } else {
                do throws(SoundCutter.Refusal) {
                    result = .success(
                        try SoundCutter.cut(descriptor: 0, name: name, from: cutFrom, length: cutLength))
                } catch { result = .failure(error) }
            }
            try Self.write(DecodedWire.encode(cut: result))
        } else {
            let inspection =
                refusal.map {
                    SoundInspection(
                        name: name, path: path, format: nil, duration: nil,
                        result: .failure(.unreadable(name, detail: $0)))
                } ?? SoundDecoder.inspect(descriptor: 0, path: path, name: name)
            try Self.write(DecodedWire.encode(inspection))
        }
    }

    /// Nil once this process is `asUser` (or was never root); else why it is not.
    private func becomeUser() -> String? {
        guard geteuid() == 0 || getuid() == 0 else { return nil }
        guard let user = UnprivilegedUser.named(asUser), user.uid != 0 else { return "there is no user \(asUser)" }
        let parent = getppid()
        do { try user.become() } catch { return "could not become user \(asUser): \(error)" }
        // A decoder stuck after root's alarm was interrupted is not left behind.
        do { try UnprivilegedUser.boundLifetime(parent: parent, cpuSeconds: Int(RootDecoding.timeout) + 10) } catch {
            return "\(error)"
        }
        return nil
    }

    private static func write(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ExitCode(74) }
            done += n
        }
    }
}

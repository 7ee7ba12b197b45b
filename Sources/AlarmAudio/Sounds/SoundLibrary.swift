import AlarmCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where sounds live, and the only way a sound name becomes a path.
///
/// A name is a file name only. It is looked up in `directories` in order; the first directory that
/// holds it wins. A name with a `/`, a leading `.`, or one that resolves (symlinks included) outside
/// its directory is refused, and such a file is never opened.
public struct SoundLibrary: Sendable {
    public var directories: [String]
    /// What reads a resolved sound file: `SoundDecoder.inspect` in this process by default. Root's
    /// `alarm` puts a decoder here that runs in a child that is not root (issue #42).
    public var decoder: @Sendable (_ path: String, _ name: String) -> SoundInspection = {
        SoundDecoder.inspect(path: $0, name: $1)
    }

    public init(directories: [String]) { self.directories = directories }

    /// The directories used by `alarm` and `alarmd`:
    /// 1. `soundsDir` (the `--sounds-dir` option), else `ALARM_SOUNDS_DIR`: a colon-separated list;
    /// 2. otherwise the installed Sounds folder (`installedSoundsDirectory()`), then `sounds/` in the
    ///    state directory (`ALARM_STATE_DIR`, default `/var/lib/alarm`).
    public static func configured(
        soundsDir: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SoundLibrary {
        if let list = soundsDir ?? environment["ALARM_SOUNDS_DIR"], !list.isEmpty {
            return SoundLibrary(directories: list.split(separator: ":").map(String.init))
        }
        var dirs: [String] = []
        if let installed = installedSoundsDirectory() { dirs.append(installed) }
        let state = environment["ALARM_STATE_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/lib/alarm"
        dirs.append(state + "/sounds")
        return SoundLibrary(directories: dirs)
    }

    /// The sounds shipped with alarm, found relative to the running executable:
    /// - installed: `<prefix>/bin/alarm` → `<prefix>/share/alarm/sounds`, when that directory exists;
    /// - in a checkout: the executable sits in `<repo>/.build/<triple>/<config>/`, so the nearest
    ///   ancestor holding both `Package.swift` and `Sounds/` gives `<repo>/Sounds`.
    /// Returns nil when neither exists. `executable` defaults to `/proc/self/exe`.
    public static func installedSoundsDirectory(executable: String? = nil) -> String? {
        let exe =
            executable ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? ""
        let fm = FileManager.default
        var isDir = false
        var dir = URL(fileURLWithPath: exe).resolvingSymlinksInPath().deletingLastPathComponent()
        let share = dir.deletingLastPathComponent().appendingPathComponent("share/alarm/sounds").standardizedFileURL
            .path
        if fm.fileExists(atPath: share, isDirectory: &isDir), isDir { return share }
        for _ in 0..<6 {
            let sounds = dir.appendingPathComponent("Sounds").path
            if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path),
                fm.fileExists(atPath: sounds, isDirectory: &isDir), isDir
            {
                return sounds
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return nil
    }

    /// Refuses names that are not plain file names. Pure: looks at the string only.
    public static func checkName(_ name: String) throws(SoundProblem) {
        if name.isEmpty { throw .badName(name, why: "it is empty") }
        if name.contains("/") { throw .badName(name, why: "it contains '/'") }
        if name.hasPrefix(".") { throw .badName(name, why: "it starts with '.'") }
        if name.utf8.contains(0) { throw .badName(name, why: "it contains a NUL byte") }
        if name.utf8.count > 255 { throw .badName(name, why: "it is longer than 255 bytes") }
    }

    /// The real path of sound `name`: the first directory holding it, symlinks resolved, checked to
    /// stay inside that directory.
    public func resolve(_ name: String) throws(SoundProblem) -> String {
        try Self.checkName(name)
        for dir in directories {
            let candidate = dir + "/" + name
            var st = stat()
            guard lstat(candidate, &st) == 0 else { continue }
            guard let realDir = Self.realpath(dir) else { continue }
            guard let real = Self.realpath(candidate) else {
                throw .unreadable(name, detail: "it is a dangling symlink in \(dir)")
            }
            guard Self.isBelow(real, realDir) else {
                throw .outsideDirectory(name, resolved: real)
            }
            return real
        }
        if let shipped = Self.retired[name], let real = try? resolve(shipped) { return real }
        throw .notFound(name, searched: directories)
    }

    /// Names of sounds the package shipped in 0.1.0 and ships no more (issue #32: each sound once,
    /// as FLAC): an alarm set then with one of them, found in no directory, plays the same sound's
    /// FLAC (the same samples) instead of the default tone. A file of that name in a directory wins.
    public static let retired: [String: String] = [
        "chime.wav": "chime.flac", "chime.aiff": "chime.flac", "chime.caf": "chime.flac",
        "chime-ima4.caf": "chime.flac", "beacon.wav": "beacon.flac", "beacon.aiff": "beacon.flac",
        "beacon.caf": "beacon.flac", "sunrise.wav": "sunrise.flac", "sunrise.aiff": "sunrise.flac",
        "sunrise.caf": "sunrise.flac",
    ]

    private static func isBelow(_ path: String, _ dir: String) -> Bool {
        path.hasPrefix(dir == "/" ? "/" : dir + "/")
    }

    public static func realpath(_ p: String) -> String? {
        guard let r = Glibc.realpath(p, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// Every sound name in the directories, in directory order then name order; a name that appears
    /// in two directories is listed once (the first one is what plays). Hidden files and
    /// sub-directories are skipped.
    public func names() -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for dir in directories {
            guard let items = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for item in items.sorted() where !item.hasPrefix(".") && !seen.contains(item) {
                var isDir = false
                if FileManager.default.fileExists(atPath: dir + "/" + item, isDirectory: &isDir), isDir { continue }
                seen.insert(item)
                out.append(item)
            }
        }
        return out
    }

    /// Resolves and decodes `name`, reporting what it is and whether it plays.
    public func inspect(_ name: String) -> SoundInspection {
        do throws(SoundProblem) {
            let path = try resolve(name)
            return decoder(path, name)
        } catch {
            return SoundInspection(name: name, path: "", format: nil, duration: nil, result: .failure(error))
        }
    }

    /// What an alarm with sound `spec` plays for one ring (issue #13): a file name, a
    /// comma-separated list or `*` (any sound of the directories, see `SoundSelection`). Of a list
    /// or `*` one is picked with `random` (the caller's random number: the pick is made once per
    /// ring, where the ring is prepared); one that does not play is passed over for another in the
    /// same random order, and only when none plays does the default tone ring, with the first
    /// one's problem. `nil` asks for the default tone. Never fails.
    public func choose(_ spec: String?, random: UInt64) -> SoundChoice {
        guard let spec else { return choose(nil) }
        let candidates: [String]
        switch SoundSelection(spec) {
        case .one(let name): return choose(name)
        case .stream(let url):
            // A stream is alarmd's to ring (`AlarmPlayer.start(stream:)`), never a file's.
            return SoundChoice(
                clip: DefaultTone.clip(), name: nil, problem: .badName(url, why: "it is a stream, not a file"))
        case .list(let names): candidates = names
        case .any:
            candidates = names()
            if candidates.isEmpty {
                return SoundChoice(clip: DefaultTone.clip(), name: nil, problem: .notFound("*", searched: directories))
            }
        }
        var first: SoundChoice?
        for i in SoundSelection.order(count: candidates.count, random: random) {
            let choice = choose(candidates[i])
            if !choice.isDefaultTone { return choice }
            if first == nil { first = choice }
        }
        return first ?? choose(nil)
    }

    /// What an alarm with sound `name` plays: the clip, or the default tone and why.
    /// `nil` asks for the default tone. Never fails.
    public func choose(_ name: String?) -> SoundChoice {
        guard let name else { return SoundChoice(clip: DefaultTone.clip(), name: nil, problem: nil) }
        let inspection = inspect(name)
        switch inspection.result {
        case .success(let clip): return SoundChoice(clip: clip, name: name, problem: nil)
        case .failure(let p): return SoundChoice(clip: DefaultTone.clip(), name: nil, problem: p)
        }
    }
}

/// The decision for one ring: play `clip`; `name` is nil when it is the default tone, and then
/// `problem` says why the requested sound is not playing (nil when the default was asked for).
public struct SoundChoice: Sendable {
    public var clip: AudioClip
    public var name: String?
    public var problem: SoundProblem?
    public var isDefaultTone: Bool { name == nil }
}

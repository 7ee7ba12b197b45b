import AlarmState
import AlarmCore
import AlarmAudio
import ArgumentParser
import FoundationEssentials

struct Sounds: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "List the sounds in the sound directories and whether each will play.",
        discussion: """
            Sounds play from WAV, AIFF, AIFF-C, CAF, FLAC, Ogg (Vorbis, Opus) and MP3 files of at most 30 s. \
            A sound that will not play (over 30 s, empty, corrupt, another format, …) is replaced by the default tone \
            when an alarm rings; the last column says why. 'alarm sounds cut' makes a clip of up to 30 s from a longer file.
            """,
        subcommands: [SoundsCut.self])

    @Flag(help: "Print a JSON array of {name, playable, duration, reason, container, format, channels, rate, path}.")
    var json = false

    @OptionGroup var sounds: SoundOptions

    func run() throws {
        let library = try sounds.library
        let entries = SoundEntry.all(library)
        if json {
            print(try SoundEntry.json(entries))
            return
        }
        if entries.isEmpty {
            print("no sounds in \(library.directories.joined(separator: ", "))")
            return
        }
        var rows = [["NAME", "CONTAINER", "FORMAT", "CH", "RATE", "DURATION", "PLAYS"]]
        for e in entries {
            rows.append([
                e.name, e.container ?? "-", e.format ?? "-", e.channels.map(String.init) ?? "-",
                e.rate.map(String.init) ?? "-", e.duration.map { Text.fixed($0, 2) + " s" } ?? "-",
                e.playable ? "yes" : "no: " + (e.reason ?? ""),
            ])
        }
        let widths = (0..<6).map { c in rows.map { $0[c].count }.max()! }
        for r in rows {
            print((0..<6).map { Text.padded(r[$0], widths[$0]) }.joined(separator: "  ") + "  " + r[6])
        }
    }
}

/// `alarm sounds cut FILE --from TIME [--length DURATION] [--name NAME] [--force]` (issue #24).
struct SoundsCut: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cut",
        abstract: "Make a clip of up to 30 s from any sound file, of any length, into the sound directory.",
        discussion: """
            Reads any file alarm decodes (WAV, AIFF, CAF, FLAC, Ogg Vorbis, Opus, MP3), however long, and writes \
            the stretch from TIME as a FLAC clip (or CAF, when NAME ends in .caf) into the first sound directory \
            (by default <state dir>/sounds), with a short fade in and out. Then 'alarm add 07:00 --sound NAME.flac' rings it.
            """)

    @Argument(help: ArgumentHelp("The sound file to cut from (any path).", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp("Where the clip starts: M:SS, H:MM:SS or seconds (1:10, 0:01:10, 70).", valueName: "time"))
    var from: String

    @Option(
        help: ArgumentHelp("How long the clip is (20s, 30s; at most and by default 30s).", valueName: "duration"))
    var length: String?

    @Option(
        help: ArgumentHelp(
            "The clip's name (default: the file's name and the start, e.g. song-1m10s); .flac is added unless it ends in .flac or .caf.",
            valueName: "name"))
    var name: String?

    @Flag(help: "Replace a clip of that name.")
    var force = false

    @OptionGroup var sounds: SoundOptions

    func run() throws {
        let start: Double
        do { start = try Durations.position(from) } catch { throw UserError(error) }
        var seconds = ClipLimits.maxDuration
        if let length {
            do { seconds = try Durations.parse(length) } catch { throw UserError(error) }
        }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory else {
            throw UserError("cannot cut: \(file): no such file")
        }
        let configuration = try sounds.configuration()
        let directory = configuration.userSoundsDirectory
        do {
            let (fileName, output) = try SoundCutter.fileName(name ?? Self.defaultName(file: file, from: start))
            // A clip of this name in a directory searched before ours would play instead of it.
            let library = configuration.soundLibrary
            if let found = try? library.resolve(fileName),
                !found.hasPrefix(SoundLibrary.realpath(directory).map { $0 + "/" } ?? directory + "/")
            {
                throw UserError(
                    "a sound named \(fileName) exists in \(found) and would play instead of the clip; give another --name"
                )
            }
            if !force, FileManager.default.fileExists(atPath: directory + "/" + fileName) {
                throw SoundCutter.Refusal.exists(directory + "/" + fileName)
            }
            let source = SoundLibrary.realpath(file) ?? file
            let clip =
                try RootDecoding.isNeeded
                ? RootDecoding.cut(path: source, name: file, from: start, length: seconds)
                : SoundCutter.cut(path: source, name: file, from: start, length: seconds)
            let bytes = try SoundCutter.encode(clip, as: output)
            let path = try SoundCutter.write(bytes, directory: directory, fileName: fileName, force: force)
            let end = start + clip.duration
            let short = clip.duration + 0.0005 < min(seconds, ClipLimits.maxDuration) ? " (the file ends there)" : ""
            print(
                "cut \(fileName): \(Text.fixed(clip.duration, 2)) s from \(Self.clock(start)) to \(Self.clock(end)) of \(file)\(short), written to \(path)"
            )
        } catch let refusal as SoundCutter.Refusal {
            throw UserError(refusal.description)
        }
    }

    /// `song-1m10s` for `~/Music/song.mp3` from 70 s.
    static func defaultName(file: String, from: Double) -> String {
        var base = file.split(separator: "/").last.map(String.init) ?? "clip"
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
        if base.hasPrefix(".") { base = "clip" + base }
        return base + "-" + Durations.format(from)
    }

    /// `1:10.00`, `1:02:03.50`.
    static func clock(_ s: Double) -> String {
        let whole = Int(s)
        let frac = Text.fixed(s - Double(whole), 2).dropFirst()  // ".50"
        let h = whole / 3600
        let m = whole % 3600 / 60
        let sec = whole % 60
        let ss = Text.zeroPadded(sec, 2) + frac
        return h > 0 ? "\(h):" + Text.zeroPadded(m, 2) + ":" + ss : "\(m):" + ss
    }
}

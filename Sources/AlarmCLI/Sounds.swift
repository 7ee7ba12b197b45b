import AlarmCore
import AlarmAudio
import ArgumentParser
import FoundationEssentials

struct Sounds: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sounds in the sound directories and whether each will play.",
        discussion: "A sound that will not play (over 30 s, empty, corrupt, another format, …) is replaced by the default tone when an alarm rings; the last column says why.")

    @Flag(help: "Print a JSON array of {name, playable, duration, reason, container, format, channels, rate, path}.")
    var json = false

    @OptionGroup var sounds: SoundOptions

    func run() throws {
        let library = try sounds.library
        let entries = library.names().map { SoundEntry(library.inspect($0)) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(entries), as: UTF8.self))
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

/// One line of `alarm sounds`; `reason` and `duration` are written as null when absent.
struct SoundEntry: Encodable {
    var name: String
    var playable: Bool
    var duration: Double?
    var reason: String?
    var kind: String?
    var container: String?
    var format: String?
    var channels: Int?
    var rate: Int?
    var path: String?

    init(_ i: SoundInspection) {
        name = i.name
        playable = i.playable
        duration = i.duration.map { ($0 * 1000).rounded() / 1000 }
        reason = i.problem?.description
        kind = i.problem?.kind
        container = i.format?.container.rawValue
        format = i.format?.format
        channels = i.format?.channels
        rate = i.format?.sampleRate
        path = i.path.isEmpty ? nil : i.path
    }

    enum CodingKeys: String, CodingKey { case name, playable, duration, reason, kind, container, format, channels, rate, path }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(playable, forKey: .playable)
        try c.encode(duration, forKey: .duration)  // Optional.encode writes null
        try c.encode(reason, forKey: .reason)
        try c.encode(kind, forKey: .kind)
        try c.encode(container, forKey: .container)
        try c.encode(format, forKey: .format)
        try c.encode(channels, forKey: .channels)
        try c.encode(rate, forKey: .rate)
        try c.encode(path, forKey: .path)
    }
}

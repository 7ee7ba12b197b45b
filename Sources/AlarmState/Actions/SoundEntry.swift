import AlarmAudio
import FoundationEssentials

/// One line of `alarm sounds`; `reason` and `duration` are written as null when absent.
package struct SoundEntry: Encodable {
    /// Every sound of the directories, inspected.
    package static func all(_ library: SoundLibrary) -> [SoundEntry] {
        library.names().map { SoundEntry(library.inspect($0)) }
    }

    /// `alarm sounds --json` (and alarm-web's `GET /api/sounds`).
    package static func json(_ entries: [SoundEntry]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    package var name: String
    package var playable: Bool
    package var duration: Double?
    package var reason: String?
    package var kind: String?
    package var container: String?
    package var format: String?
    package var channels: Int?
    package var rate: Int?
    package var path: String?

    package init(_ i: SoundInspection) {
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

    package enum CodingKeys: String, CodingKey {
        case name, playable, duration, reason, kind, container, format, channels, rate, path
    }

    package func encode(to encoder: Encoder) throws {
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

import AlarmAudio
import AlarmCore
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
    @NullWhenNil package var duration: Double? = nil
    @NullWhenNil package var reason: String? = nil
    @NullWhenNil package var kind: String? = nil
    @NullWhenNil package var container: String? = nil
    @NullWhenNil package var format: String? = nil
    @NullWhenNil package var channels: Int? = nil
    @NullWhenNil package var rate: Int? = nil
    @NullWhenNil package var path: String? = nil

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
}

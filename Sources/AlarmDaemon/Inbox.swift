import AlarmAudio
import AlarmState
import AlarmCore
import AlarmSystem
import FoundationEssentials
import Synchronization

/// Events posted from the player's thread for the loop's thread.
final class Inbox: @unchecked Sendable {
    enum Item {
        /// For the engine.
        case event(EngineEvent.Kind)
        /// The first frame went to `device` (on `card`): for the volume floor.
        case firstFrame(device: String, card: Int?)
        /// The ring's stream failed (issue #43): `sound` (nil: the default tone) plays instead,
        /// `reason` says why.
        case streamFallback(sound: String?, reason: String)
        /// The pre-flight's probe of a stream ended (any generation).
        case streamProbed(url: String, outcome: StreamProbe.Outcome)
    }
    struct Posted {
        var item: Item
        var at: Date
        var generation: Int
    }
    private let items = Mutex<[Posted]>([])

    func post(_ kind: EngineEvent.Kind, at: Date, generation: Int) {
        post(.event(kind), at: at, generation: generation)
    }

    func post(_ item: Item, at: Date, generation: Int) {
        items.withLock { $0.append(Posted(item: item, at: at, generation: generation)) }
    }

    func take() -> [Posted] {
        items.withLock { items in
            defer { items = [] }
            return items
        }
    }
}

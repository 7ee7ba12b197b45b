import AlarmState
import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Pre-roll (issue #11): a little before the next ring's instant, alarmd decodes its sound and
/// opens the device on a player thread that starts the sound by itself at the instant, so the
/// first frame does not wait for the timer, the engine's pass over the alarms, a decode and a
/// device open. The engine still decides: when it starts that very ring the prepared player is
/// adopted; any other decision cancels the pre-roll and rings the usual way.
struct Preroll {
    /// How long before its instant a ring is prepared.
    static let lead: TimeInterval = 2

    var request: RingRequest
    var player: AlarmPlayer?
    var relay: PlaybackRelay?
    var problem: SoundProblem?

    /// The same ring, as far as what is heard goes: every field of the requests but `late` (the
    /// engine's to say) and the label (not heard; the ring reports the engine's). A field added
    /// to `RingRequest` counts without a change here.
    static func same(_ a: RingRequest, _ b: RingRequest) -> Bool {
        func heard(_ r: RingRequest) -> RingRequest {
            var r = r
            r.late = false
            r.label = nil
            return r
        }
        return heard(a) == heard(b)
    }
}

/// Hands a ring's first frame (or its failure) to the loop once the ring has its generation: a
/// pre-rolled ring may sound a few milliseconds before the engine asks for it.
final class PlaybackRelay: @unchecked Sendable {
    /// The ring's generation once attached; until then, what came before it.
    private let state = Mutex<(generation: Int?, held: [(item: Inbox.Item, at: Date)])>((nil, []))
    private let inbox: Inbox
    private let wake: EventFD
    /// The sound's name; nil when the default tone plays.
    let sound: String?
    /// Why the default tone plays in place of the sound asked for.
    let reason: String?

    /// What plays now: `sound` and `reason` until a stream fails (issue #43), its fallback after.
    private let playing: Mutex<(sound: String?, reason: String?, firstFrame: Bool)>

    init(inbox: Inbox, wake: EventFD, sound: String?, reason: String?) {
        self.inbox = inbox
        self.wake = wake
        self.sound = sound
        self.reason = reason
        self.playing = Mutex((sound, reason, false))
    }

    func started(_ s: PlaybackStarted) {
        let now = playing.withLock { p in
            p.firstFrame = true
            return (p.sound, p.reason)
        }
        // A device that refused the clip's rate or channels plays the default tone instead.
        deliver(
            [
                .event(.playbackStarted(sound: s.substitution == nil ? now.0 : nil, reason: s.substitution ?? now.1)),
                // The volume floor, on the loop's thread: the mixer of the card that plays.
                .firstFrame(device: s.device, card: s.card),
            ], at: s.date)
    }

    /// The stream failed and `sound` (nil: the default tone) plays for the rest of the ring. Once
    /// a frame was heard the engine learns it now; before, the first frame (of the fallback)
    /// carries it.
    func streamFailed(sound: String?, reason: String) {
        let heard = playing.withLock { p in
            p.sound = sound
            p.reason = reason
            return p.firstFrame
        }
        var items: [Inbox.Item] = [.streamFallback(sound: sound, reason: reason)]
        if heard { items.insert(.event(.playbackStarted(sound: sound, reason: reason)), at: 0) }
        deliver(items, at: Date())
    }

    func failed(_ failure: String) { deliver([.event(.playbackFailed(reason: failure))], at: Date()) }

    private func deliver(_ items: [Inbox.Item], at: Date) {
        let generation: Int? = state.withLock { s in
            if s.generation == nil { s.held += items.map { ($0, at) } }
            return s.generation
        }
        guard let g = generation else { return }
        for item in items { inbox.post(item, at: at, generation: g) }
        wake.signal()
    }

    func attach(generation g: Int) {
        let waiting = state.withLock { s in
            s.generation = g
            defer { s.held = [] }
            return s.held
        }
        for h in waiting { inbox.post(h.item, at: h.at, generation: g) }
        if !waiting.isEmpty { wake.signal() }
    }
}

extension Daemon {
    /// After every event: keeps the pre-roll in step with the engine's next ring.
    func planPreroll(now: Date = Date()) {
        // A stream is not pre-rolled (issue #43): its connection is made when it rings.
        let want = engine.upcomingRing(now: now, zone: zone).flatMap { streamURL(of: $0) == nil ? $0 : nil }
        if let p = preroll, let want, Preroll.same(p.request, want) {
            // Still the one.
        } else {
            cancelPreroll()
            preroll = want.map { Preroll(request: $0) }
        }
        guard let p = preroll else {
            try? prerollTimer.disarm()
            return
        }
        guard p.player == nil else { return }
        let at = p.request.scheduled.addingTimeInterval(-Preroll.lead)
        if at <= now {
            preparePreroll()
        } else {
            // A clock change pending on this timer is cleared: the main timer reports it too.
            do { try prerollTimer.armClearingClockChange(at: at) } catch {
                logger.warning("arming the pre-roll timer failed: \(error); the ring starts the usual way")
            }
        }
    }

    /// Decodes the sound and starts the waiting player.
    private func preparePreroll() {
        guard var p = preroll, p.player == nil else { return }
        let r = p.request
        // A list or `*` is picked here, once: the ring adopts this player, and its first frame
        // reports this name, so history and events name the sound that was heard.
        let choice = sounds.choose(r.sound ?? config.sound, random: UInt64.random(in: .min ... .max))
        let log = logger
        let pre = AlarmPlayer(devices: (pendingPlayer ?? player).devices, log: { line in log.warning("\(line)") })
        let relay = PlaybackRelay(inbox: inbox, wake: wake, sound: choice.name, reason: choice.problem?.description)
        pre.preroll(
            choice.clip, at: r.scheduled, loudness: r.loudness,
            onFirstFrame: { relay.started($0) }, onFailure: { relay.failed($0) })
        p.player = pre
        p.relay = relay
        p.problem = choice.problem
        preroll = p
        logger.info(
            "pre-rolled \(r.alarm ?? "ring") for \(RFC3339.format(r.scheduled, in: zone)) with \(choice.name ?? "the default tone")"
        )
    }

    /// Takes the prepared player for `request` when it is the ring prepared; false otherwise.
    func adoptPreroll(_ request: RingRequest) -> Bool {
        guard let p = preroll, let pre = p.player, let relay = p.relay, Preroll.same(p.request, request) else {
            cancelPreroll()
            return false
        }
        preroll = nil
        try? prerollTimer.disarm()
        player.stop()
        player = pre
        pendingPlayer = nil  // the pre-roll was made with its devices
        ringGeneration += 1
        relay.attach(generation: ringGeneration)
        pre.go()
        startedSound = relay.sound ?? "default"
        if let problem = p.problem {
            logger.warning("\(request.alarm ?? "ring"): \(problem); playing the default tone")
        }
        logger.notice(
            "ringing \(request.alarm ?? "(ring now)") with \(relay.sound ?? "the default tone") (pre-rolled)\(request.late ? " (late)" : "")"
        )
        return true
    }

    /// Cancels a prepared ring (its device is closed).
    func cancelPreroll() {
        preroll?.player?.stop()
        preroll = nil
    }
}

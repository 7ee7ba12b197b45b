import AlarmAudio
import AlarmCore
import AlarmState
import FoundationEssentials

/// Rings of a stream (issue #43). alarmd has no network (`PrivateNetwork=yes`): alarm-stream
/// fetches and decodes the stream and hands the audio over its Unix socket (`stream_socket`).
/// The stream is judged by the player's `LiveStream` (no audio within `stream_timeout` of the
/// ring's start or for that long during it, an error from alarm-stream, a broken connection):
/// then the alarm's `fallback_sound`, else the default tone, plays for the rest of that ring at
/// once, and history, status and a `ringing` event say what plays and why. The ring after a
/// snooze tries the stream again.
extension Daemon {
    /// The stream a ring plays, nil for sound files and the default tone. An alarm without its
    /// own sound takes the config's `sound`.
    func streamURL(of request: RingRequest) -> String? {
        (request.sound ?? config.sound).flatMap { SoundSelection($0).streamURL }
    }

    func startStream(_ request: RingRequest, url: String) {
        let fallback = sounds.choose(request.fallbackSound)
        let playing =
            (fallback.name ?? "the default tone") + (fallback.problem.map { " (the fallback sound: \($0))" } ?? "")
        let stream = LiveStream(url: url, socketPath: config.streamSocket, timeout: config.streamTimeout)
        let relay = PlaybackRelay(inbox: inbox, wake: wake, sound: url, reason: nil)
        relay.attach(generation: ringGeneration)
        startedSound = url
        logger.notice(
            "ringing \(request.alarm ?? "(ring now)") with the stream \(url) through \(config.streamSocket)\(request.late ? " (late)" : "")"
        )
        let name = fallback.name
        player.start(
            stream: stream, fallback: fallback.clip, loudness: request.loudness,
            onFirstFrame: { relay.started($0) }, onFailure: { relay.failed($0) },
            onStreamFailed: { reason in relay.streamFailed(sound: name, reason: "\(reason); playing \(playing)") })
    }

    /// The ring's stream failed: said in the journal and as a `ringing` event naming what plays.
    func streamFellBack(sound: String?, reason: String) {
        guard case .ringing(let r) = engine.state.ring else { return }
        logger.warning("\(r.occurrence.alarm ?? "ring"): \(reason)")
        writeEvents([
            AlarmEvent(
                AlarmEvent.Name.ringing, at: Date(), alarm: r.occurrence.alarm, label: r.label,
                scheduled: r.occurrence.scheduled, sound: sound ?? "default", late: r.late, reason: reason,
                timeZone: Zone(identifier: r.zoneIdentifier) ?? zone)
        ])
    }
}

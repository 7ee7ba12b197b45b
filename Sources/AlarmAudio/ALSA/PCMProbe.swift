import AlarmSystem
import CAlsa
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What an ALSA device did when opened for playback without playing: `alarm check` and alarmd's
/// pre-flight ask each device of the chain this way (issue #11).
public struct PCMProbeResult: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// It opened and took the format: it would play.
        case opens
        /// Another program holds it (EBUSY).
        case busy
        /// This user may not open it (EACCES, EPERM).
        case denied
        case fails
    }

    public var device: String
    public var outcome: Outcome
    /// alsa-lib's error when it did not open.
    public var error: AlsaError?
    /// The sound card behind the device (its index and name), nil for one that is no single card
    /// (`pulse`, `null`, a file).
    public var card: Int?
    public var cardName: String?

    public var name: String { device }
    public var opens: Bool { outcome == .opens }
}

public enum PCMProbe {
    /// Opens `device` for playback (non-blocking), sets 16-bit at `rate` Hz with `channels` as a
    /// ring would, asks which card it is, and closes it. No frame is written: nothing is heard.
    /// The corresponding C functions are `snd_pcm_open`, `snd_pcm_set_params`, `snd_pcm_info`
    /// and `snd_pcm_close`.
    ///
    /// The probe runs on a thread of its own and is given up after `timeout` seconds (as long as
    /// the player gives an open, `AlarmPlayer.openSeconds`): a device
    /// whose open never returns (a sound server that hangs) fails, said so, instead of holding
    /// the caller (alarmd's pre-flight runs on its main loop). The call is left behind, and
    /// until it returns the device fails at once (see `AlarmPlayer.hungDevices`).
    public static func probe(_ device: String, channels: Int, rate: Int, timeout: Double = 6) -> PCMProbeResult {
        if let operation = HungDevices.operation(device) { return hung(HungDevices.skipped(device, operation)) }
        final class Slot: @unchecked Sendable {
            var result: PCMProbeResult?
            var abandoned = false
        }
        let slot = Slot()
        let lock = Condition()
        startThread(named: "alarm-probe") {
            // alsa-lib's own error lines would repeat what the result says; the player's stay on.
            let r = AlsaErrorOutput.quietly { probeQuietly(device, channels: channels, rate: rate) }
            lock.lock()
            slot.result = r
            let abandoned = slot.abandoned
            lock.broadcast()
            lock.unlock()
            if abandoned { HungDevices.remove(device) }
        }
        lock.lock()
        defer { lock.unlock() }
        let deadline = ContinuousClock.now + .seconds(timeout)
        while slot.result == nil && lock.wait(until: deadline) {}
        if let r = slot.result { return r }
        slot.abandoned = true
        HungDevices.add(device, "snd_pcm_open")
        return hung(HungDevices.givenUp(device, "snd_pcm_open", after: .seconds(timeout)))
    }

    private static func hung(_ error: AlsaError) -> PCMProbeResult {
        PCMProbeResult(device: error.device, outcome: .fails, error: error, card: nil, cardName: nil)
    }

    private static func probeQuietly(_ device: String, channels: Int, rate: Int) -> PCMProbeResult {
        var handle: OpaquePointer?
        var rc = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        guard rc >= 0, let pcm = handle else { return failure(device, "snd_pcm_open", rc) }
        defer { snd_pcm_close(pcm) }
        rc = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(channels), UInt32(rate), 1, 50_000)
        guard rc >= 0 else { return failure(device, "snd_pcm_set_params (\(channels) ch, \(rate) Hz)", rc) }
        var result = PCMProbeResult(device: device, outcome: .opens, error: nil, card: nil, cardName: nil)
        var info: OpaquePointer?
        if snd_pcm_info_malloc(&info) >= 0, let info {
            defer { snd_pcm_info_free(info) }
            if snd_pcm_info(pcm, info) >= 0 {
                let card = snd_pcm_info_get_card(info)
                if card >= 0 {
                    result.card = Int(card)
                    result.cardName = cardName(Int(card))
                }
            }
        }
        return result
    }

    /// The short name of card `index` ("Loopback", "Headphones"), or "card N".
    /// The corresponding C function is `snd_card_get_name`.
    public static func cardName(_ index: Int) -> String {
        var name: UnsafeMutablePointer<CChar>?
        guard snd_card_get_name(Int32(index), &name) >= 0, let name else { return "card \(index)" }
        defer { free(name) }
        return String(cString: name)
    }

    private static func failure(_ device: String, _ operation: String, _ rc: Int32) -> PCMProbeResult {
        let outcome: PCMProbeResult.Outcome
        switch -rc {
        case EBUSY: outcome = .busy
        case EACCES, EPERM: outcome = .denied
        default: outcome = .fails
        }
        return PCMProbeResult(
            device: device, outcome: outcome, error: AlsaError(device: device, operation: operation, code: rc),
            card: nil, cardName: nil)
    }
}

import CAlsa
#if canImport(Glibc)
import Glibc
#endif

/// An ALSA failure: which device, which call, and alsa-lib's own text (`snd_strerror`).
public struct AlsaError: Error, Sendable, CustomStringConvertible {
    public var device: String
    public var operation: String
    public var code: Int32
    /// What happened, when alsa-lib's text for `code` would not say it (a stalled device).
    public var detail: String?
    public var text: String { detail ?? String(cString: snd_strerror(code)) }

    public init(device: String, operation: String, code: Int32, detail: String? = nil) {
        self.device = device
        self.operation = operation
        self.code = code
        self.detail = detail
    }
    public var description: String { "ALSA device '\(device)': \(operation) failed: \(text)" }
    /// The device opened but refused the rate, channels or format asked for (`snd_pcm_set_params`):
    /// another shape may still play there.
    public var refusedParameters: Bool { operation.hasPrefix("snd_pcm_set_params") }
}

/// One open playback PCM, 16-bit interleaved, non-blocking. Only `AlarmPlayer`'s thread uses it;
/// C types stay inside this file.
final class AlsaPCM {
    let name: String
    let channels: Int
    let rate: Int
    /// The sound card it plays on, when alsa-lib knows (see `AlsaDevices.probe`).
    let card: Int?
    private var pcm: OpaquePointer?

    /// Opens `name` non-blocking and sets S16_LE interleaved at `rate` Hz with about
    /// `latencyMicros` of buffer (alsa-lib resamples when the device needs it).
    /// The corresponding C functions are `snd_pcm_open` and `snd_pcm_set_params`.
    init(name: String, channels: Int, rate: Int, latencyMicros: UInt32) throws(AlsaError) {
        self.name = name
        self.channels = channels
        self.rate = rate
        var handle: OpaquePointer?
        var rc = snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        guard rc >= 0, let handle else { throw AlsaError(device: name, operation: "snd_pcm_open", code: rc) }
        rc = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(channels), UInt32(rate), 1, latencyMicros)
        guard rc >= 0 else {
            snd_pcm_close(handle)
            throw AlsaError(device: name, operation: "snd_pcm_set_params (\(channels) ch, \(rate) Hz)", code: rc)
        }
        pcm = handle
        card = AlsaDevices.card(ofOpen: handle)
    }

    deinit { close() }

    /// Frames written (≥ 0), `-EAGAIN` when the buffer is full, or another negative error code.
    /// The corresponding C function is `snd_pcm_writei`.
    func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        guard let pcm else { return -Int(EBADF) }
        return snd_pcm_writei(pcm, samples, snd_pcm_uframes_t(frames))
    }

    /// Waits up to `milliseconds` for room in the buffer; negative on error.
    func wait(milliseconds: Int32) -> Int32 {
        guard let pcm else { return -EBADF }
        return snd_pcm_wait(pcm, milliseconds)
    }

    /// Recovers from an underrun (`-EPIPE`) or suspend (`-ESTRPIPE`); negative if it cannot.
    func recover(_ error: Int32) -> Int32 {
        guard let pcm else { return error }
        return snd_pcm_recover(pcm, error, 1)
    }

    /// Silence now: throws away whatever is queued. The corresponding C function is `snd_pcm_drop`.
    func drop() { if let pcm { snd_pcm_drop(pcm) } }

    /// Plays out what is queued, blocking. The corresponding C function is `snd_pcm_drain`.
    func drain() -> Int32 {
        guard let pcm else { return -EBADF }
        snd_pcm_nonblock(pcm, 0)
        return snd_pcm_drain(pcm)
    }

    func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    /// `plughw:N,0` for the first sound card, if there is one. The C function is `snd_card_next`.
    static func firstCardDevice() -> String? {
        var card: Int32 = -1
        guard snd_card_next(&card) >= 0, card >= 0 else { return nil }
        return "plughw:\(card),0"
    }
}

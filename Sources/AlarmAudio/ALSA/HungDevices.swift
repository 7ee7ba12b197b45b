import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Devices with a call into alsa-lib that was given up on and has not returned yet (a sound
/// server that hangs: `snd_pcm_open` waiting for its answer, `snd_pcm_drop` for its
/// acknowledgement), for the whole process: rings and probes skip them until the call returns,
/// rather than leave one more thread behind on them. Counted per device: two calls may hang there.
enum HungDevices {
    private static let lock = Condition()
    nonisolated(unsafe) private static var calls: [String: (operation: String, count: Int)] = [:]

    /// A call on `device` was given up on.
    static func add(_ device: String, _ operation: String) {
        lock.lock()
        calls[device, default: (operation, 0)].count += 1
        lock.unlock()
    }

    /// A call given up on returned at last.
    static func remove(_ device: String) {
        lock.lock()
        if let c = calls[device] {
            if c.count > 1 { calls[device]!.count -= 1 } else { calls[device] = nil }
        }
        lock.unlock()
    }

    /// The call that hangs on `device`, if one does.
    static func operation(_ device: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return calls[device]?.operation
    }

    static var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return calls.keys.sorted()
    }

    /// The error for a device skipped because a call hangs there.
    static func skipped(_ device: String, _ operation: String) -> AlsaError {
        AlsaError(
            device: device, operation: operation, code: -ETIMEDOUT,
            detail: "an earlier call has not returned (the device or its sound server hangs)")
    }

    /// The error for a call given up on after `limit`.
    static func givenUp(_ device: String, _ operation: String, after limit: Duration) -> AlsaError {
        AlsaError(
            device: device, operation: operation, code: -ETIMEDOUT,
            detail: "no return for \(limit.components.seconds) s (the device or its sound server hangs)")
    }
}

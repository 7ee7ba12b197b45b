import AlarmTestSupport
import Foundation

/// One alarmd under test (`AlarmdHarness`) playing to a PulseAudio null sink, recorded in real
/// time; its zone file starts as `zone`, and `zoneinfo/` waits for a test's own TZDIR.
final class DaemonHarness: AlarmdHarness, @unchecked Sendable {
    /// The sound most tests ring: a 1.5 s sine at 440 Hz.
    static let a440 = "a440.wav"

    /// `config` is the text of the config file (`key = value` lines); `withA440` writes `a440` into
    /// the sounds directory.
    init(zone: String = "Europe/Berlin", config: String = "ring = 30s\n", withA440: Bool = false) throws {
        try super.init(
            name: "alarm-e2e", zone: zone, config: config, audio: .pulseSink("alarme2e"), directories: ["zoneinfo"])
        if withA440 { try Recording.writeSineWAV(path: soundsDir + "/" + Self.a440, frequency: 440, seconds: 1.5) }
    }
}

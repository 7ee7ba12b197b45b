import AlarmTestSupport
import Foundation

/// One alarmd under test (`AlarmdHarness`) playing to a PulseAudio null sink, recorded in real
/// time; its zone file starts as `zone`, and `zoneinfo/` waits for a test's own TZDIR.
final class DaemonHarness: AlarmdHarness, @unchecked Sendable {
    /// `config` is the text of the config file (`key = value` lines).
    init(zone: String = "Europe/Berlin", config: String = "ring = 30s\n") throws {
        try super.init(
            name: "alarm-e2e", zone: zone, config: config, audio: .pulseSink("alarme2e"), directories: ["zoneinfo"])
    }
}

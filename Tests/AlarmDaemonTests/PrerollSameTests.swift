import AlarmCore
@testable import AlarmDaemon
@testable import AlarmState
import Foundation
import Testing

/// The pre-rolled ring is adopted only when the engine asks for the same sound: every field of
/// the request counts but `late` and the label.
@Suite("Preroll.same: the ring prepared is the ring asked for")
struct PrerollSameTests {
    let base = RingRequest(
        alarm: "work", label: "Work", sound: "birds.wav", volume: 80, fadeIn: 30,
        scheduled: Date(timeIntervalSince1970: 1_800_000_000), late: false, volumeFrom: 10)

    @Test func lateAndTheLabelDoNotCountEverythingElseDoes() {
        var late = base
        late.late = true
        late.label = "Renamed"
        #expect(Preroll.same(base, late))
        let changes: [(String, (inout RingRequest) -> Void)] = [
            ("alarm", { $0.alarm = "gym" }), ("alarm nil", { $0.alarm = nil }), ("sound", { $0.sound = "bells.wav" }),
            ("sound nil", { $0.sound = nil }), ("volume", { $0.volume = 81 }), ("fade-in", { $0.fadeIn = 0 }),
            ("scheduled", { $0.scheduled = $0.scheduled.addingTimeInterval(1) }),
            ("volume_from", { $0.volumeFrom = 0 }),
        ]
        for (what, change) in changes {
            var other = base
            change(&other)
            #expect(!Preroll.same(base, other), "\(what)")
        }
    }
}

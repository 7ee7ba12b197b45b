import Foundation
import Testing

@testable import AlarmAudio

/// alsa-lib's own error lines through the program's log, rate-limited (issue #41).
@Suite("alsa-lib's error lines: routed to the log, the same message at most once per interval")
struct AlsaLibraryLogTests {
    @Test("the same message is logged once per interval, then with the count of repeats not logged")
    func sameMessageOncePerInterval() {
        var limiter = AlsaLibraryLog.RateLimiter(interval: 600)
        #expect(limiter.admit("a", at: 0) == .log(suppressed: 0))
        #expect(limiter.admit("a", at: 5) == .suppress)
        #expect(limiter.admit("a", at: 10) == .suppress)
        #expect(limiter.admit("b", at: 10) == .log(suppressed: 0))
        #expect(limiter.admit("a", at: 599) == .suppress)
        #expect(limiter.admit("a", at: 600) == .log(suppressed: 3))
        #expect(limiter.admit("a", at: 605) == .suppress)
    }

    @Test("past its capacity the limiter forgets the stalest message, not the newest")
    func capacityForgetsStalest() {
        var limiter = AlsaLibraryLog.RateLimiter(interval: 600, capacity: 2)
        #expect(limiter.admit("a", at: 0) == .log(suppressed: 0))
        #expect(limiter.admit("b", at: 1) == .log(suppressed: 0))
        #expect(limiter.admit("c", at: 2) == .log(suppressed: 0))  // forgets a
        #expect(limiter.admit("b", at: 3) == .suppress)
        #expect(limiter.admit("a", at: 4) == .log(suppressed: 0))
    }

    @Test("a PCM on a missing card, opened three times with real alsa-lib: its lines reach the sink once")
    func missingCardThroughRealAlsaLib() throws {
        final class Lines: @unchecked Sendable {
            let lock = NSLock()
            var all: [String] = []
        }
        let lines = Lines()
        // A card name of this test alone: the limiter and the sink are the process's.
        let card = "nx" + UUID().uuidString.filter(\.isLetter).prefix(8).lowercased()
        AlsaLibraryLog.install { line in
            guard line.contains(card) else { return }
            lines.lock.withLock { lines.all.append(line) }
        }
        for _ in 0..<3 {
            #expect(throws: AlsaError.self) {
                _ = try AlsaPCM(name: "hw:CARD=\(card)", channels: 2, rate: 48000, latencyMicros: 100_000)
            }
        }
        let seen = lines.lock.withLock { lines.all }
        #expect(!seen.isEmpty, "alsa-lib said nothing about card \(card)")
        #expect(seen.allSatisfy { $0.hasPrefix("alsa-lib: ") }, "\(seen)")
        #expect(Set(seen).count == seen.count, "a line repeated within the interval: \(seen)")
    }
}

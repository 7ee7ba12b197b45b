import Foundation

/// How much slower than a native build on a quiet machine this run may be: `ALARM_TEST_SLOWDOWN`
/// (scripts/test-arm64 sets 10 for the suite's aarch64 build under user-mode qemu; default 1).
/// Waits for processes, files and sockets are multiplied by it; what tests assert is not.
public enum Slowdown {
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["ALARM_TEST_SLOWDOWN"], let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// `seconds`, scaled to this run.
    public static func scaled(_ seconds: Double) -> Double { seconds * factor }
}

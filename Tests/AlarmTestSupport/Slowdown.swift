import Foundation

/// How much slower than a native build on a quiet machine this run may be: `ALARM_TEST_SLOWDOWN`
/// (scripts/test-arm64 sets 10 for the suite's aarch64 build under user-mode qemu; default 1).
/// Waits for processes, files and sockets are multiplied by it; what tests assert is not.
public enum Slowdown {
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["ALARM_TEST_SLOWDOWN"], let value = Double(text),
            value >= 1
        else { return 1 }
        return value
    }()

    /// `seconds`, scaled to this run.
    public static func scaled(_ seconds: Double) -> Double { seconds * factor }
}

/// What this process may do to the machine it runs on.
public enum Privileges {
    /// Whether it may set the real-time clock: root with CAP_SYS_TIME in the initial user
    /// namespace (the kernel's PROC_USER_INIT_INO); root in a namespace of its own, as
    /// scripts/test-arm64 runs the suite, may not.
    public static var canSetClock: Bool {
        var ns = stat()
        guard stat("/proc/self/ns/user", &ns) == 0, ns.st_ino == 4_026_531_837 else { return false }
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let caps = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return caps & (1 << 25) != 0
    }
}

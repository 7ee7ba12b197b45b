import AlarmAudio
import AlarmSystem
import Logging

/// Where each program sends alsa-lib's own error lines (`AlsaLibraryLog`: rate-limited, each
/// distinct message at most once per 10 minutes with the count of repeats not logged). Called once
/// at start by every program that may open ALSA.
public enum AlsaLog {
    /// alarmd: into its journal log, at notice priority (alarmd's own line about the device says
    /// what failed and what it does next; alsa-lib's say why).
    public static func route(to logger: Logger) {
        AlsaLibraryLog.install { logger.notice("\($0)") }
    }

    /// The CLI: onto stderr as its other messages, `alarm: alsa-lib: ...`.
    public static func routeToStandardError(program: String) {
        AlsaLibraryLog.install { StandardError.write("\(program): \($0)") }
    }
}

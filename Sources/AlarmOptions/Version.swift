import CAlarmVersion

/// The version every entry point's `--version` prints: the Debian package's version when the
/// package built it (ALARM_VERSION at build time), else the source tree's development version.
public enum AlarmVersion {
    public static let string = String(cString: alarm_version())
}

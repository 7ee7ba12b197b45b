import CLinux
import Glibc

/// The kernel's own view of the system clock, as NTP daemons (systemd-timesyncd, chrony, ntpd)
/// leave it.
public enum KernelClock {
    /// True when the clock is synchronized: `STA_UNSYNC` is clear in the kernel's NTP status. An
    /// NTP daemon clears it once it has set the clock; it is set at boot and after the daemon
    /// stops disciplining the clock. Asks only (`modes` 0): no privilege needed, but a seccomp
    /// filter (systemd's `ProtectClock=`) may refuse the call with EPERM.
    /// The corresponding C function is `adjtimex`.
    public static func isSynchronized() throws -> Bool {
        var tx = timex()
        tx.modes = 0
        try valueOrErrno("adjtimex") { adjtimex(&tx) }
        return tx.status & STA_UNSYNC == 0
    }
}

import CLinux
import FoundationEssentials
import Glibc

/// systemd's socket activation, without libsystemd (as `sd_listen_fds(3)` with `unset_environment`
/// true): the descriptors from 3 on that PID 1 (or `systemd-socket-activate`) passed this process.
public enum SocketActivation {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The passed descriptors, each made close-on-exec, when `LISTEN_PID` is this process and
    /// `LISTEN_FDS` a count; none otherwise (the variables were meant for another process, one
    /// that exec'd this one, say). `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` are unset
    /// either way, so no child inherits them.
    public static func takeDescriptors() -> [Int32] {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        let count = descriptorCount(environment: environment, pid: getpid())
        let fds = (0..<Int32(count)).map { firstDescriptor + $0 }
        for fd in fds {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        return fds
    }

    /// How many descriptors `environment` says were passed to process `pid`: 0 unless
    /// `LISTEN_PID` is `pid` and `LISTEN_FDS` a positive number.
    public static func descriptorCount(environment: [String: String], pid: Int32) -> Int {
        guard let listenPID = environment["LISTEN_PID"].flatMap({ Int32($0) }), listenPID == pid,
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count > 0, count < 1024
        else { return 0 }
        return count
    }
}

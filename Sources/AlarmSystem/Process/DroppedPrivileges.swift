import CLinux
import Glibc

/// A user this process can become: for root's `alarm`, which decodes sound files (that any member
/// of the state directory's group may have written) in a child that is not root (issue #42).
public struct UnprivilegedUser: Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var uid: UInt32
    public var gid: UInt32

    public init(name: String, uid: UInt32, gid: UInt32) {
        self.name = name
        self.uid = uid
        self.gid = gid
    }

    public var description: String { name }

    /// The user `alarm` (the one alarmd runs as, made by the package); on a machine without it
    /// (a developer's), `nobody` with its own primary group (`nogroup` on Debian). Nil when
    /// neither exists or one of them is uid 0.
    public static func forDecoding() -> UnprivilegedUser? {
        for name in ["alarm", "nobody"] {
            if let user = named(name), user.uid != 0, user.gid != 0 { return user }
        }
        return nil
    }

    /// The passwd entry called `name`, or nil.
    /// The corresponding C function is `getpwnam_r`.
    public static func named(_ name: String) -> UnprivilegedUser? {
        var size = 4096
        while size <= 1 << 20 {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: size)
            let rc = getpwnam_r(name, &entry, &buffer, size, &result)
            if rc == ERANGE {
                size *= 4
                continue
            }
            guard rc == 0, result != nil else { return nil }
            return UnprivilegedUser(name: name, uid: UInt32(entry.pw_uid), gid: UInt32(entry.pw_gid))
        }
        return nil
    }

    /// Makes this whole process `self`, for good: supplementary groups from the group database
    /// (`initgroups`), then the group id, then the user id (real, effective and saved: `setgid` and
    /// `setuid` as root set all three), then `no_new_privs` (no set-user-id program run from here
    /// gains anything). Then checks what the kernel says: every id is the target's and `setuid(0)`
    /// is refused. Throws, naming the step, when any of it fails; the caller must then not go on.
    ///
    /// Call it before the process opens anything it was asked to read, and with one thread (the
    /// ids are per thread in the kernel; glibc spreads them to every thread, but there is no need).
    /// The corresponding C functions are `initgroups`, `setgid`, `setuid` and `prctl`.
    public func become() throws {
        try valueOrErrno("initgroups(\(name), \(gid))") { initgroups(name, gid_t(gid)) }
        try valueOrErrno("setgid(\(gid))") { setgid(gid_t(gid)) }
        try valueOrErrno("setuid(\(uid))") { setuid(uid_t(uid)) }
        try valueOrErrno("prctl(PR_SET_NO_NEW_PRIVS)") { clinux_set_no_new_privs() }
        var real: uid_t = 0
        var effective: uid_t = 0
        var saved: uid_t = 0
        var realGroup: gid_t = 0
        var effectiveGroup: gid_t = 0
        var savedGroup: gid_t = 0
        try valueOrErrno("getresuid") { getresuid(&real, &effective, &saved) }
        try valueOrErrno("getresgid") { getresgid(&realGroup, &effectiveGroup, &savedGroup) }
        guard [real, effective, saved, getuid(), geteuid()].allSatisfy({ $0 == uid }),
            [realGroup, effectiveGroup, savedGroup, getgid(), getegid()].allSatisfy({ $0 == gid })
        else {
            throw SystemError(
                "still uid \(real)/\(effective)/\(saved) gid \(realGroup)/\(effectiveGroup)/\(savedGroup) after dropping to \(name)",
                errno: EPERM)
        }
        if setuid(0) == 0 { throw SystemError("setuid(0) succeeded after dropping to \(name)", errno: EPERM) }
        guard clinux_get_no_new_privs() == 1 else { throw SystemError("prctl(PR_GET_NO_NEW_PRIVS)", errno: EPERM) }
    }

    /// For a child that must not outlive its parent's wait: SIGKILL when the parent ends (set after
    /// `become`, which clears it), and at most `cpuSeconds` of CPU time. Throws when the parent has
    /// already ended (this process was handed to init or a subreaper: `parent` is no longer its
    /// parent).
    /// The corresponding C functions are `prctl(PR_SET_PDEATHSIG)`, `setrlimit(RLIMIT_CPU)` and `getppid`.
    public static func boundLifetime(parent: Int32, cpuSeconds: Int) throws {
        try valueOrErrno("prctl(PR_SET_PDEATHSIG)") { clinux_set_parent_death_signal(SIGKILL) }
        var limit = rlimit(rlim_cur: rlim_t(cpuSeconds), rlim_max: rlim_t(cpuSeconds))
        try valueOrErrno("setrlimit(RLIMIT_CPU)") { setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit) }
        guard getppid() == parent else { throw SystemError("getppid: the parent \(parent) has ended", errno: ESRCH) }
    }
}

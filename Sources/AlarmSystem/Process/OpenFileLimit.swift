import Glibc

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one (systemd's default soft limit is 1024, its hard
    /// one 524288): a server whose connections cost a descriptor each. Returns the limit now.
    ///
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max || limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}

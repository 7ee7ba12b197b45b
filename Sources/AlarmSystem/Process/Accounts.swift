import Glibc

/// Users, groups and processes.
public enum Accounts {
    /// The id of the group called `name` (for `--fifo-group audio`), or `nil` when there is none.
    /// The corresponding C function is `getgrnam_r`.
    public static func groupID(named name: String) throws -> UInt32? {
        var size = 1024
        while true {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            var buffer = [CChar](repeating: 0, count: size)
            do {
                try zeroOrErrorNumber("getgrnam_r(\(name))") { getgrnam_r(name, &group, &buffer, size, &result) }
            } catch let error as SystemError where error.errno == ERANGE && size < 1 << 20 {
                size *= 4
                continue
            }
            return result == nil ? nil : UInt32(group.gr_gid)
        }
    }

    /// True when a process with this id exists (even one owned by another user), as a lock or
    /// pid file check needs.
    /// The corresponding C function is `kill` (with signal 0, which sends nothing).
    public static func isProcessAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        do {
            try valueOrErrno("kill(\(pid), 0)") { kill(pid, 0) }
            return true
        } catch let error as SystemError {
            return error.errno == EPERM
        } catch {
            return false
        }
    }
}

extension Accounts {
    /// The name of the group with this id, or nil when there is none (or it cannot be looked up).
    /// The corresponding C function is `getgrgid_r`.
    public static func groupName(id: UInt32) -> String? {
        var size = 1024
        while size <= 1 << 20 {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            var buffer = [CChar](repeating: 0, count: size)
            let rc = getgrgid_r(gid_t(id), &group, &buffer, size, &result)
            if rc == ERANGE {
                size *= 4
                continue
            }
            guard rc == 0, result != nil, let name = group.gr_name else { return nil }
            return String(cString: name)
        }
        return nil
    }

    /// The name of the group of the file at `path`, or nil.
    /// The corresponding C function is `stat`.
    public static func groupName(ofFile path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return groupName(id: UInt32(info.st_gid))
    }

    /// The name of the user running this process (for messages), or its uid as text.
    /// The corresponding C function is `getpwuid_r`.
    public static func currentUserName() -> String {
        var user = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &user, &buffer, buffer.count, &result) == 0, result != nil, let name = user.pw_name
        else {
            return "\(geteuid())"
        }
        return String(cString: name)
    }
}

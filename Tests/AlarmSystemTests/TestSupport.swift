import Foundation
import Glibc

/// Waits up to `milliseconds` for `fd` to become readable, with poll(2) (independent of the
/// module's EventLoop, so tests of the wrappers do not depend on it).
func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
    while true {
        let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        let r = poll(&p, 1, left)
        if r > 0 { return true }
        if r == 0 { return false }
        if errno != EINTR { return false }
    }
}

/// A fresh private directory under /tmp, removed by `cleanup()`.
struct TempDir {
    let path: String

    init() {
        var template = Array("/tmp/alarmsystem-test-XXXXXX".utf8CString)
        // The name is read inside the closure: the pointer mkdtemp returns is the buffer's, which
        // is valid only there (read after it, the optimised aarch64 build trapped).
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = made!
    }

    func sub(_ name: String) -> String { path + "/" + name }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// Sets CLOCK_REALTIME to its own current value: a discontinuous set by zero seconds, which is
/// enough for the kernel to cancel TFD_TIMER_CANCEL_ON_SET timers while leaving the time as it is.
func setRealtimeClockToNow() -> Int32 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return clock_settime(CLOCK_REALTIME, &now) == 0 ? 0 : errno
}

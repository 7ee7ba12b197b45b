import CLinux
import Glibc

/// Runs `body` on a new, detached thread named `name` (as Foundation's `Thread` did, without
/// full Foundation), so `top -H`, `ps -L` and /proc/PID/task/TID/comm tell alarmd's threads
/// apart. Linux keeps 15 bytes of a name: a longer one is cut (at a character boundary).
///
/// When no thread can be created, `body` runs on the calling thread rather than never: a
/// caller gets a late, but real, ring.
/// The corresponding C functions are `pthread_create`, `pthread_setname_np` and `pthread_detach`.
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Start: @unchecked Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, _ name: String) {
            self.body = body
            self.name = name
        }
    }
    let start = Unmanaged.passRetained(Start(body, threadName(name))).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            // Named from inside, before the body runs: the name is there as soon as it does work.
            _ = pthread_setname_np(pthread_self(), start.name)
            start.body()
            return nil
        }, start)
    if rc == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Start>.fromOpaque(start).takeRetainedValue().body()
    }
}

/// `name` as Linux keeps it: at most 15 bytes of UTF-8 (16 with the NUL), cut at a character
/// boundary, without NULs.
func threadName(_ name: String) -> String {
    var kept = ""
    var bytes = 0
    for scalar in name.unicodeScalars where scalar != "\0" {
        let length = UTF8.width(scalar)
        guard bytes + length <= 15 else { break }
        bytes += length
        kept.unicodeScalars.append(scalar)
    }
    return kept
}

import Glibc

/// Lines on standard error, each with one `write(2)` (retried on EINTR and short writes), so that
/// lines from two threads never interleave mid-line. Foundation's `FileHandle` is not used: it
/// needs full Foundation, and with it ICU.
public enum StandardError {
    /// Writes `line` and a newline. Errors are ignored: there is nowhere left to report them.
    ///
    /// The corresponding C function is `write`.
    public static func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Lines on standard output, each with one `write(2)` and no buffering: a program that follows
/// something (`alarm watch`) must hand each line on as it comes, also into a pipe.
public enum StandardOutput {
    /// Writes `line` and a newline; false when standard output is gone (EPIPE: the reader left,
    /// with SIGPIPE ignored) or broken.
    ///
    /// The corresponding C function is `write`.
    @discardableResult
    public static func write(_ line: String) -> Bool {
        Array((line + "\n").utf8).withUnsafeBytes { writeAll($0) }
    }

    /// Writes `bytes` as they are (a piece of a long output that is not held whole: `alarm list
    /// --json`); what `print` still holds in its buffer goes out first. False as `write(_:)`.
    ///
    /// The corresponding C function is `write`.
    public static func write(bytes: UnsafeRawBufferPointer) -> Bool {
        fflush(nil)  // every stream: naming `stdout` is not concurrency-safe
        return writeAll(bytes)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}

import Foundation

/// Whether the server still holds `fd` open: false once it has closed its end (a read returns
/// end of file or an error). Waits up to `wait` seconds for the answer.
func isOpen(_ fd: Int32, wait: Double = 0.05) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&p, 1, Int32(wait * 1000))
    guard ready > 0 else { return true }
    var byte: UInt8 = 0
    let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return n > 0 || (n < 0 && errno == EAGAIN)
}

/// Whether a new connection from `source` is kept open by the server for a moment.
func isOpen(_ port: Int, from source: String) -> Bool {
    guard let fd = try? RawHTTP.connect(port: port, from: source) else { return false }
    defer { close(fd) }
    return isOpen(fd, wait: 0.5)
}

/// Raises this process's limit on open descriptors to its hard limit (the tests open more than
/// the usual 1024 sockets).
func raiseOpenFileLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// Sends `text` on `fd`, ignoring a peer that has gone.
@discardableResult
func sendText(_ fd: Int32, _ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        == bytes.count
}

/// Reads what the server sent on `fd` until it closes its end: true when that happens within
/// `seconds`.
func readsToTheEnd(_ fd: Int32, within seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 100) > 0 else { continue }
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return true }
    }
    return false
}

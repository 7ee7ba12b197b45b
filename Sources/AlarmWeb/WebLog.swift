import AlarmSystem

/// alarm-web's log lines on stderr, with the syslog priority prefix journald reads (as alarmd's).
/// Never a token, a cookie or a request's headers.
enum WebLog {
    static func info(_ text: String) { StandardError.write("<6>alarm-web: " + text) }
    static func notice(_ text: String) { StandardError.write("<5>alarm-web: " + text) }
    static func error(_ text: String) { StandardError.write("<3>alarm-web: " + text) }
}

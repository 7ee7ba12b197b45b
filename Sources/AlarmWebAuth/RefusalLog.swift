import AlarmCore
import FoundationEssentials
import Synchronization

/// Which refusals of alarm-web reach the journal: every kind from every address is logged, but
/// at most once per address and reason per `interval`; the next line after a quiet spell says
/// how many more there were. So a flood of bad requests leaves a few lines, not millions.
///
/// A value type with the clock passed in. Memory is bounded: at most `maximumKeys` pairs of
/// address and reason are remembered; past that, refusals from new addresses are counted under
/// the address "others".
public struct RefusalLog: Sendable {
    public let interval: TimeInterval
    public let maximumKeys: Int

    struct Key: Hashable, Sendable {
        var address: String
        var reason: String
    }

    struct Entry: Sendable {
        var logged: Date
        var since: Int
    }

    private var entries: [Key: Entry] = [:]

    public init(interval: TimeInterval = 60, maximumKeys: Int = 1024) {
        self.interval = interval
        self.maximumKeys = maximumKeys
    }

    /// One refusal of `address` for `reason` (a fixed phrase: "wrong token", "wrong Host", …);
    /// `detail` (a header's value, never a token) goes into the line. The line to log now, or
    /// nil when this address already had one for this reason within the interval.
    public mutating func note(address: String, reason: String, detail: String? = nil, now: Date) -> String? {
        var key = Key(address: address, reason: reason)
        if entries[key] == nil && entries.count >= maximumKeys {
            entries = entries.filter { now.timeIntervalSince($0.value.logged) < interval }
            if entries.count >= maximumKeys { key.address = "others" }
        }
        var text = "refused \(key.address): \(reason)"
        if let detail { text += " (\(Self.printable(detail)))" }
        if var e = entries[key] {
            if now.timeIntervalSince(e.logged) < interval && now >= e.logged {
                e.since += 1
                entries[key] = e
                return nil
            }
            if e.since > 0 { text += "; \(e.since) more since the last such line" }
            entries[key] = Entry(logged: now, since: 0)
            return text
        }
        entries[key] = Entry(logged: now, since: 0)
        return text + "; more of these from this address are counted, one line a minute"
    }

    /// How many pairs are remembered (for the test of the bound).
    public var rememberedKeys: Int { entries.count }

    /// A header's value as a log may show it: visible ASCII, at most 80 characters.
    public static func printable(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars.prefix(80) {
            out.unicodeScalars.append(u.isASCII && u.value >= 0x20 && u.value < 0x7f ? u : "?")
        }
        if text.unicodeScalars.count > 80 { out += "…" }
        return out
    }
}

/// One `RefusalLog` for all of the server's threads.
public final class SharedRefusalLog: @unchecked Sendable {
    private let log: Mutex<RefusalLog>
    private let write: @Sendable (String) -> Void

    /// `write`: where the lines go (alarm-web: stderr, with journald's priority prefix).
    public init(_ log: RefusalLog = RefusalLog(), write: @escaping @Sendable (String) -> Void) {
        self.log = Mutex(log)
        self.write = write
    }

    public func refused(_ address: String, _ reason: String, detail: String? = nil, now: Date = Date()) {
        let line = log.withLock { $0.note(address: address, reason: reason, detail: detail, now: now) }
        if let line { write(line) }
    }
}

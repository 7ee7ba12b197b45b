import AlarmCore
import FoundationEssentials
import Synchronization

/// Which refusals of alarm-web reach the journal: every kind from every address is logged, but
/// at most once per address and reason per `interval`; the next line after a quiet spell says
/// how many more there were. So a flood of bad requests leaves a few lines, not millions.
///
/// One reason has at most `linesPerReason` lines an interval, however many addresses: past that,
/// its refusals are counted and `due(now:)` gives one summary line per interval with the count and
/// the addresses (a flood of failed sign-ins from 200 addresses is a few lines, not 200).
///
/// A value type with the clock passed in. Memory is bounded: at most `maximumKeys` pairs of
/// address and reason are remembered; past that, refusals from new addresses are counted under
/// the address "others".
public struct RefusalLog: Sendable {
    public let interval: TimeInterval
    public let maximumKeys: Int
    public let linesPerReason: Int

    struct Key: Hashable, Sendable {
        var address: String
        var reason: String
    }

    struct Entry: Sendable {
        var logged: Date
        var since: Int
        /// Its line was left to the reason's summary.
        var summarized = false
    }

    /// A reason's lines in the current interval, and what its summary will say.
    struct ReasonWindow: Sendable {
        /// The interval of its own lines.
        var start: Date
        var lines = 0
        /// From the first refusal left to the summary; the summary is due an interval later.
        var summaryStart: Date?
        var summarized = 0
        /// The addresses left to the summary, in order, at most `named` of them.
        var addresses: [String] = []
        var distinct = 0
    }

    private var entries: [Key: Entry] = [:]
    private var reasons: [String: ReasonWindow] = [:]
    /// Addresses a summary names; it counts the rest.
    static let named = 10

    public init(interval: TimeInterval = 60, maximumKeys: Int = 1024, linesPerReason: Int = 8) {
        self.interval = interval
        self.maximumKeys = maximumKeys
        self.linesPerReason = linesPerReason
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
        var window = reasons[reason] ?? ReasonWindow(start: now)
        if now.timeIntervalSince(window.start) >= interval || now < window.start {
            window.start = now
            window.lines = 0
        }
        defer { reasons[reason] = window }
        if var e = entries[key] {
            if now.timeIntervalSince(e.logged) < interval && now >= e.logged {
                if e.summarized { window.summarized += 1 } else { e.since += 1 }
                entries[key] = e
                return nil
            }
            guard window.lines < linesPerReason else {
                leaveToSummary(key, &window, now: now)
                return nil
            }
            window.lines += 1
            if e.since > 0 { text += "; \(e.since) more since the last such line" }
            entries[key] = Entry(logged: now, since: 0)
            return text
        }
        guard window.lines < linesPerReason else {
            leaveToSummary(key, &window, now: now)
            return nil
        }
        window.lines += 1
        entries[key] = Entry(logged: now, since: 0)
        return text + "; more of these from this address are counted, one line a minute"
    }

    private mutating func leaveToSummary(_ key: Key, _ window: inout ReasonWindow, now: Date) {
        entries[key] = Entry(logged: now, since: 0, summarized: true)
        if window.summaryStart == nil { window.summaryStart = now }
        window.summarized += 1
        window.distinct += 1
        if window.addresses.count < Self.named { window.addresses.append(key.address) }
    }

    /// The summary lines whose interval has ended: for each reason that had more addresses than
    /// `linesPerReason`, how many refusals and from which addresses were not logged one by one.
    /// alarm-web asks every few seconds.
    public mutating func due(now: Date) -> [String] {
        var lines: [String] = []
        for (reason, w) in reasons.sorted(by: { $0.key < $1.key }) {
            guard let since = w.summaryStart, now.timeIntervalSince(since) >= interval || now < since else { continue }
            var names = w.addresses.joined(separator: ", ")
            if w.distinct > w.addresses.count { names += " and \(w.distinct - w.addresses.count) more" }
            lines.append(
                "refused \(w.summarized) more: \(reason), from \(w.distinct) more addresses (\(names)); each reason has \(linesPerReason) lines of its own a minute, then this summary"
            )
            reasons[reason] = ReasonWindow(start: w.start, lines: w.lines)
            // Their next refusal starts afresh (a line, or the next summary naming them).
            entries = entries.filter { !($0.value.summarized && $0.key.reason == reason) }
        }
        return lines
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
        let lines = log.withLock { log in
            (log.note(address: address, reason: reason, detail: detail, now: now).map { [$0] } ?? [])
                + log.due(now: now)
        }
        for line in lines { write(line) }
    }

    /// Writes the summaries whose interval has ended (alarm-web calls it every few seconds, so a
    /// flood's summary is written when the flood stops too).
    public func flush(now: Date = Date()) {
        for line in log.withLock({ $0.due(now: now) }) { write(line) }
    }
}

import FoundationEssentials

/// How one check of `alarm check` (and of alarmd's pre-flight) came out, mildest first.
///
/// - `ok`: nothing to do.
/// - `warning`: the alarm still rings audibly, but not quite as set (the default tone instead of
///   the chosen sound, another device of the chain, a mixer that must be raised) or something may
///   still change (the clock is not synchronized).
/// - `fail`: as things stand, it will not ring audibly (alarmd is not running, no device opens,
///   the mixer is muted with no floor to raise it, no alarm is set).
public enum CheckStatus: String, Codable, Sendable, Comparable, CaseIterable {
    case ok, warning, fail

    private var rank: Int {
        switch self {
        case .ok: 0
        case .warning: 1
        case .fail: 2
        }
    }

    public static func < (a: CheckStatus, b: CheckStatus) -> Bool { a.rank < b.rank }

    /// The exit status of `alarm check`: 0 all ok, 1 warnings (it will ring), 2 it will not ring
    /// audibly as set.
    public var exitCode: Int32 { Int32(rank) }
}

/// One check: a short stable `name` (`daemon`, `alarm`, `sound`, `device`, `mixer`, `clock`,
/// `zone`, `storage`), its status, and a message that says what was found and what to do.
public struct Check: Equatable, Sendable, Codable {
    public var name: String
    public var status: CheckStatus
    public var message: String

    public init(_ name: String, _ status: CheckStatus, _ message: String) {
        self.name = name
        self.status = status
        self.message = message
    }

    /// "device: ALSA device 'hw:9' cannot be opened ...": how a problem reads in a log line and in
    /// `status.json`'s `warnings`.
    public var line: String { "\(name): \(message)" }
}

/// The checks for one alarm. JSON keys: `alarm` (the id, or null when no alarm is set), `at` (its
/// next ring, RFC 3339 in the alarm's zone, or null), `verdict` (`ok`, `warning`, `fail`: the worst
/// status among `checks`), `checks` (an array of `{"name", "status", "message"}`).
public struct CheckReport: Equatable, Sendable {
    public var alarm: String?
    public var at: Date?
    /// The zone `at` is written in (the alarm's display zone); not part of the JSON.
    public var zone: Zone
    public var checks: [Check]

    public init(alarm: String?, at: Date?, zone: Zone, checks: [Check]) {
        self.alarm = alarm
        self.at = at
        self.zone = zone
        self.checks = checks
    }

    public var verdict: CheckStatus { Self.verdict(checks.map(\.status)) }

    /// The worst of `statuses`; `ok` when there are none.
    public static func verdict(_ statuses: [CheckStatus]) -> CheckStatus { statuses.max() ?? .ok }

    /// The checks that are not `ok`, as lines (`name: message`).
    public var problems: [String] { checks.filter { $0.status != .ok }.map(\.line) }

    /// The check named `name`, if it was made.
    public subscript(name: String) -> Check? { checks.first { $0.name == name } }
}

extension CheckReport: Encodable {
    enum CodingKeys: String, CodingKey {
        case alarm, at, verdict, checks
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(alarm, forKey: .alarm)
        try c.encode(at.map { RFC3339.format($0, in: zone) }, forKey: .at)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(checks, forKey: .checks)
    }
}

import FoundationEssentials

/// `--pre-alarm DURATION[,DURATION…]` and the config's `pre_alarm` (issue #43): how long before
/// each ring that will happen a `pre-alarm` event is written, once per lead (a sunrise light
/// starts on it).
///
/// What the caller may rely on: at least one lead, each whole seconds, more than 0 and at most `maximum`
/// (24 hours: the engine looks at each alarm's next ring only, so a longer lead could not be
/// kept), no lead twice, longest first. The text form is `Durations.format`'s, joined by commas
/// (`30m,10m`), and parses back to the same leads.
public struct PreAlarmLeads: Hashable, Sendable, CustomStringConvertible {
    /// The leads in seconds, longest first.
    public let seconds: [TimeInterval]

    /// The longest lead allowed.
    public static let maximum: TimeInterval = 24 * 3600

    /// Leads as given, checked (see the type's documentation).
    public init(_ seconds: [TimeInterval]) throws(AlarmError) {
        guard !seconds.isEmpty else { throw .invalid("pre-alarm: give at least one duration, e.g. 30m or 30m,10m") }
        var seen = Set<TimeInterval>()
        for s in seconds {
            guard s > 0 else { throw .invalid("pre-alarm: a lead must be more than 0, found \(s) s") }
            // Whole seconds, so the text form (`Durations.format`) reads back the same.
            guard s == s.rounded() else { throw .invalid("pre-alarm: a lead must be whole seconds, found \(s) s") }
            guard s <= Self.maximum else {
                throw .invalid(
                    "pre-alarm: a lead must be at most \(Durations.format(Self.maximum)), found \(Durations.format(s))")
            }
            guard seen.insert(s).inserted else {
                throw .invalid("pre-alarm: the lead \(Durations.format(s)) is given twice")
            }
        }
        self.seconds = seconds.sorted(by: >)
    }

    /// `DURATION[,DURATION…]`, each as `Durations.parse` reads it (`30m`, `1h30m`, `45s`).
    public static func parse(_ text: String) throws(AlarmError) -> PreAlarmLeads {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0).trimmingBlanks()
        }
        var leads: [TimeInterval] = []
        for p in parts {
            guard !p.isEmpty else {
                throw .invalid("pre-alarm: empty duration in '\(text)': write e.g. 30m or 30m,10m")
            }
            do { leads.append(try Durations.parse(p)) } catch {
                throw .invalid("pre-alarm: \(error)")
            }
        }
        return try PreAlarmLeads(leads)
    }

    public var description: String { seconds.map { Durations.format($0) }.joined(separator: ",") }
}

/// One pre-alarm written (state.json `preAlarms`): the alarm, the ring's instant and the lead.
/// The engine keeps them until the ring's instant has passed, so that neither a later event nor
/// a restart writes the same pre-alarm twice.
public struct PreAlarmMark: Hashable, Sendable, Codable {
    public var alarm: String
    public var scheduled: Date
    public var lead: TimeInterval

    public init(alarm: String, scheduled: Date, lead: TimeInterval) {
        self.alarm = alarm
        self.scheduled = scheduled
        self.lead = lead
    }
}

/// A pre-alarm due now (the engine's `.preAlarm` action).
public struct PreAlarmNotice: Equatable, Sendable {
    public var alarm: String
    public var label: String?
    /// The ring's instant.
    public var scheduled: Date
    /// How long before `scheduled` it was due, in seconds.
    public var lead: TimeInterval
    /// Written more than the late tolerance after it was due (alarmd started inside the lead,
    /// the alarm was added or changed inside it, the clock jumped).
    public var late: Bool
    /// The zone its instants are shown in (the alarm's display zone).
    public var zoneIdentifier: String

    public init(
        alarm: String, label: String?, scheduled: Date, lead: TimeInterval, late: Bool, zoneIdentifier: String
    ) {
        self.alarm = alarm
        self.label = label
        self.scheduled = scheduled
        self.lead = lead
        self.late = late
        self.zoneIdentifier = zoneIdentifier
    }
}

extension PreAlarmLeads: Codable {
    /// As its text form, `30m,10m`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        do { self = try Self.parse(text) } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

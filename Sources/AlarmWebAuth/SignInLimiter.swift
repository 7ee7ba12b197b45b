import FoundationEssentials

/// Counts failed sign-ins per client address: after `limit` failures within `window` seconds, that
/// address is blocked until the oldest of the last `limit` is `window` old. `Gate` answers a
/// blocked address's wrong tokens, and anything else that is not the right token or a live
/// session, with HTTP 429; the right token is always let in (issue #42: one local user's guesses
/// from 127.0.0.1, or anyone's through a reverse proxy, must not lock the owner out). Wrong
/// tokens from a blocked address still count, so an address that keeps guessing stays blocked.
///
/// A value type with the clock passed in: the tests decide what time it is. Memory is bounded:
/// at most `maximumAddresses` addresses are remembered (the stalest are forgotten first), each
/// with at most `limit` instants.
public struct SignInLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let maximumAddresses: Int
    private var failures: [String: [Date]] = [:]

    public init(limit: Int = 5, window: TimeInterval = 60, maximumAddresses: Int = 4096) {
        self.limit = limit
        self.window = window
        self.maximumAddresses = maximumAddresses
    }

    /// True when `address` has had `limit` failures within the window before `now`. It does not
    /// depend on what the request sends, so asking it first tells nothing about the token.
    public func isBlocked(_ address: String, now: Date) -> Bool {
        recent(address, now: now).count >= limit
    }

    /// Seconds until `address` may try again (0 when it may now), for `Retry-After`.
    public func retryAfter(_ address: String, now: Date) -> Int {
        let times = recent(address, now: now)
        guard times.count >= limit, let oldest = times.first else { return 0 }
        return max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))
    }

    /// Records one failed sign-in (a wrong token, at the sign-in form or as a Bearer header).
    public mutating func recordFailure(_ address: String, now: Date) {
        var times = recent(address, now: now)
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        failures[address] = times
        if failures.count > maximumAddresses { forgetStalest(now: now) }
    }

    /// How many addresses are remembered (for the tests of the bound).
    public var rememberedAddresses: Int { failures.count }

    private func recent(_ address: String, now: Date) -> [Date] {
        (failures[address] ?? []).filter { now.timeIntervalSince($0) < window && $0 <= now }
    }

    private mutating func forgetStalest(now: Date) {
        failures = failures.filter { !recent($0.key, now: now).isEmpty }
        while failures.count > maximumAddresses {
            guard let stalest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) })
            else { break }
            failures[stalest.key] = nil
        }
    }
}

import AlarmWebAuth
import NIOCore
import Synchronization

/// Every open connection of alarm-web, shared by the event loops and the responder: who may come
/// in, and who makes room when the server is full.
///
/// At `limits.total` the server does not stop accepting (an attacker holding the door shut with
/// idle connections kept the owner out for as long as it liked): a newcomer from an address that
/// holds less than its share of the total gets in, and the connection that has waited longest
/// for a request (idle, or its head or body unfinished) of the address holding the most is
/// closed to make room; one that carried a valid token or session is closed only when no other
/// may be. A newcomer from an address that holds its share is closed unread (cheaply: the owner's
/// new connection waits behind it in the kernel's queue). Connections per
/// client count by address (IPv4) or /64 (IPv6). As the server fills, a kept-alive connection may
/// wait less for its next request (as nginx and Apache's event MPM do under pressure).
final class ConnectionRegistry: @unchecked Sendable {
    /// Where a connection is: waiting for a request (idle), reading its head or body, or being
    /// answered (the handler runs; never closed to make room).
    enum Phase: Sendable { case idle, head, body, answering }

    struct Entry: Sendable {
        let channel: any Channel
        let group: String
        var phase: Phase = .idle
        var since: NIODeadline
        /// A request on it was let in by the token or a session: the owner's.
        var trusted = false
        /// Requests whose end arrived, and requests handed to the responder.
        var ended = 0
        var begun = 0
    }

    struct State: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perGroup: [String: Int] = [:]
    }

    enum Admission: Sendable {
        case admitted
        /// `limits.perAddress` connections of this address (or /64) are open.
        case overAddressCap
        /// Full, and this address already holds its share of the total (the total over the
        /// addresses holding connections): a newcomer from it is refused rather than closing
        /// someone else's connection, so that a device cannot churn the server at the total.
        case overShare(Int)
        /// Full, and every connection is being answered: nobody to close.
        case full
    }

    let limits: ConnectionLimits
    private let state = Mutex(State())

    init(limits: ConnectionLimits) { self.limits = limits }

    var open: Int { state.withLock { $0.entries.count } }

    /// A new connection from `address` (as `HostPolicy.normalized` gives it). At the total, the
    /// connection closed to make room is returned with the answer; the caller closes it.
    func admit(_ channel: any Channel, address: String, now: NIODeadline = .now()) -> (Admission, evicted: Entry?) {
        let group = HostPolicy.clientGroup(address)
        return state.withLock { s in
            guard s.perGroup[group, default: 0] < limits.perAddress else { return (.overAddressCap, nil) }
            var evicted: Entry?
            if s.entries.count >= limits.total {
                let share = max(limits.total / max(s.perGroup.count, 1), 1)
                guard s.perGroup[group, default: 0] < share else { return (.overShare(share), nil) }
                guard let victim = Self.victim(in: s) else { return (.full, nil) }
                evicted = Self.remove(victim, from: &s)
            }
            s.entries[ObjectIdentifier(channel)] = Entry(channel: channel, group: group, since: now)
            s.perGroup[group, default: 0] += 1
            return (.admitted, evicted)
        }
    }

    /// The connection to close for room: not being answered; one without the owner's credentials
    /// before one with them; then one of the address holding the most connections; of those,
    /// the one that has waited longest in its phase.
    private static func victim(in s: State) -> ObjectIdentifier? {
        var best: (id: ObjectIdentifier, rank: (Int, Int), since: NIODeadline)?
        for (id, e) in s.entries where e.phase != .answering {
            let rank = (e.trusted ? 1 : 0, -s.perGroup[e.group, default: 0])
            if let b = best, (b.rank.0, b.rank.1, b.since) <= (rank.0, rank.1, e.since) { continue }
            best = (id, rank, e.since)
        }
        return best?.id
    }

    @discardableResult
    private static func remove(_ id: ObjectIdentifier, from s: inout State) -> Entry? {
        guard let e = s.entries.removeValue(forKey: id) else { return nil }
        let n = s.perGroup[e.group, default: 1] - 1
        s.perGroup[e.group] = n > 0 ? n : nil
        return e
    }

    func leave(_ channel: any Channel) {
        _ = state.withLock { Self.remove(ObjectIdentifier(channel), from: &$0) }
    }

    func set(_ channel: any Channel, _ phase: Phase, now: NIODeadline = .now()) {
        state.withLock { s in
            let id = ObjectIdentifier(channel)
            guard s.entries[id] != nil else { return }
            s.entries[id]?.phase = phase
            s.entries[id]?.since = now
        }
    }

    /// A request on `channel` was let in by the token or a session.
    func trust(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.trusted = true }
    }

    /// The end of a request arrived (its last body byte, or the last chunk).
    func requestEnded(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.ended += 1 }
    }

    /// The responder takes the next request on `channel`: its number on the connection.
    func requestBegun(_ channel: any Channel) -> Int {
        state.withLock { s in
            let id = ObjectIdentifier(channel)
            s.entries[id]?.begun += 1
            return s.entries[id]?.begun ?? 0
        }
    }

    /// Whether request `number` on `channel` arrived whole (its end was read).
    func arrivedWhole(_ channel: any Channel, number: Int) -> Bool {
        state.withLock { ($0.entries[ObjectIdentifier(channel)]?.ended ?? 0) >= number }
    }

    /// How long a kept-alive connection may wait for its next request: `limits.idle` while at most
    /// half the total is open, then less as the server fills, down to one second.
    func idleTimeout() -> TimeAmount {
        let open = self.open
        let total = max(limits.total, 1)
        guard open * 2 > total else { return limits.idle }
        let left = Double(max(total - open, 0)) / Double(total) * 2
        return max(.seconds(1), .nanoseconds(Int64(Double(limits.idle.nanoseconds) * left)))
    }

    /// Closes up to `count` connections that are not being answered, the owner's last, the
    /// longest waiting first (alarm-web over its memory bound). Returns how many.
    func shed(_ count: Int) -> Int {
        let victims = state.withLock { s -> [Entry] in
            var out: [Entry] = []
            while out.count < count, let id = Self.victim(in: s), let e = Self.remove(id, from: &s) { out.append(e) }
            return out
        }
        for e in victims { e.channel.close(promise: nil) }
        return victims.count
    }
}

import NIOCore
import NIOEmbedded
import Testing

@testable import AlarmWeb

/// Who makes room when alarm-web is full (issue #31), without sockets: the registry fed
/// embedded channels and instants.
@Suite struct ConnectionRegistryTests {
    func limits(total: Int, perAddress: Int = 16) -> ConnectionLimits {
        var l = ConnectionLimits()
        l.total = total
        l.perAddress = perAddress
        return l
    }

    @Test func atTheTotalTheLongestWaitingMakesRoomAndTheOwnersGoLast() {
        let r = ConnectionRegistry(limits: limits(total: 4))
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let channels = (0..<4).map { _ in EmbeddedChannel() }
        for (i, c) in channels.enumerated() {
            let (admission, evicted) = r.admit(c, address: "10.0.0.\(i)", now: t0 + .seconds(Int64(i)))
            guard case .admitted = admission else {
                Issue.record("not admitted under the total")
                return
            }
            #expect(evicted == nil)
        }
        // 0: the owner's (trusted), idle longest; 1: being answered; 2: idle; 3: mid-head.
        r.trust(channels[0])
        r.set(channels[1], .answering, now: t0 + .seconds(1))
        r.set(channels[2], .idle, now: t0 + .seconds(2))
        r.set(channels[3], .head, now: t0 + .seconds(10))
        let fifth = EmbeddedChannel()
        let (a5, out5) = r.admit(fifth, address: "10.0.0.9", now: t0 + .seconds(20))
        guard case .admitted = a5 else {
            Issue.record("the fifth was not let in")
            return
        }
        #expect(out5.map { $0.channel === channels[2] } == true, "the idle one, not the owner's or the answering one")
        let sixth = EmbeddedChannel()
        let (_, out6) = r.admit(sixth, address: "10.0.0.8", now: t0 + .seconds(21))
        #expect(out6.map { $0.channel === channels[3] } == true, "then the unfinished head")
        let seventh = EmbeddedChannel()
        let (_, out7) = r.admit(seventh, address: "10.0.0.7", now: t0 + .seconds(22))
        #expect(
            out7.map { $0.channel === fifth } == true, "then the newcomer that waited longest, still not the owner's")
        #expect(r.open == 4)
        // Everything being answered: nobody to close, the newcomer is refused.
        let full = ConnectionRegistry(limits: limits(total: 1))
        let busy = EmbeddedChannel()
        _ = full.admit(busy, address: "10.0.0.1")
        full.set(busy, .answering)
        guard case .full = full.admit(EmbeddedChannel(), address: "10.0.0.2").0 else {
            Issue.record("a connection being answered was closed for room")
            return
        }
    }

    /// At the total, an address holding its share (total / addresses) cannot push others out;
    /// one holding less can, and the room is made at the address holding the most.
    @Test func atTheTotalEachAddressHasItsShare() {
        let r = ConnectionRegistry(limits: limits(total: 4))
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let b = EmbeddedChannel()
        _ = r.admit(b, address: "10.0.0.2", now: t0)  // the oldest, but its address holds one
        var a: [EmbeddedChannel] = []
        for i in 0..<3 {
            a.append(EmbeddedChannel())
            _ = r.admit(a[i], address: "10.0.0.1", now: t0 + .seconds(Int64(1 + i)))
        }
        guard case .overShare(2) = r.admit(EmbeddedChannel(), address: "10.0.0.1", now: t0 + .seconds(9)).0 else {
            Issue.record("an address over its share pushed another out")
            return
        }
        let (admission, out) = r.admit(EmbeddedChannel(), address: "10.0.0.3", now: t0 + .seconds(9))
        guard case .admitted = admission else {
            Issue.record("a new address was refused at the total")
            return
        }
        #expect(out.map { $0.channel === a[0] } == true, "the room comes from the address holding the most")
    }

    @Test func perAddressAndPerSixtyFour() {
        let r = ConnectionRegistry(limits: limits(total: 100, perAddress: 2))
        for a in ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"] {
            guard case .admitted = r.admit(EmbeddedChannel(), address: a).0 else {
                Issue.record("\(a)")
                return
            }
        }
        guard case .overAddressCap = r.admit(EmbeddedChannel(), address: "2001:db8:1:2::77").0 else {
            Issue.record("a third address of the same /64 was let in")
            return
        }
        guard case .admitted = r.admit(EmbeddedChannel(), address: "2001:db8:1:3::1").0 else {
            Issue.record("another /64 was refused")
            return
        }
        let c = EmbeddedChannel()
        _ = r.admit(c, address: "10.0.0.1")
        r.leave(c)
        #expect(r.open == 3)
    }

    @Test func idleKeepAliveShortensAsTheServerFills() {
        let r = ConnectionRegistry(limits: limits(total: 100, perAddress: 100))
        var seen: [Int64] = []
        for n in 1...100 {
            _ = r.admit(EmbeddedChannel(), address: "10.0.0.1")
            if n % 25 == 0 { seen.append(r.idleTimeout().nanoseconds / 1_000_000) }
        }
        // 25 and 50 open: the full 10 s; 75: 5 s; 100: the floor of 1 s.
        #expect(seen == [10_000, 10_000, 5_000, 1_000], "\(seen)")
    }

    @Test func aRequestIsWholeOnlyWhenItsEndArrived() {
        let r = ConnectionRegistry(limits: limits(total: 10))
        let c = EmbeddedChannel()
        _ = r.admit(c, address: "10.0.0.1")
        let first = r.requestBegun(c)
        #expect(!r.arrivedWhole(c, number: first))
        r.requestEnded(c)
        #expect(r.arrivedWhole(c, number: first))
        let second = r.requestBegun(c)
        #expect(!r.arrivedWhole(c, number: second))
    }
}

@Suite struct HTTPDateTests {
    /// The Date header alarm-web's own server sets (Hummingbird's Application did before #42).
    @Test func imfFixdate() {
        #expect(HTTPDate.text(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.text(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.text(secondsSince1970: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.text(secondsSince1970: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }
}

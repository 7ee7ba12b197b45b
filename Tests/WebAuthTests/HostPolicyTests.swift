import AlarmWebAuth
import Foundation
import Testing

@Suite struct HostPolicyTests {
    @Test func theListenAddressLoopbackAndTheHostNameAreOurs() {
        let p = HostPolicy(listen: ListenAddress(host: "192.168.1.23", port: 8475), hostName: "raspberrypi")
        for host in [
            "192.168.1.23:8475", "192.168.1.23", "localhost:8475", "127.0.0.1:8475", "[::1]:8475", "raspberrypi:8475",
            "RaspberryPi.local:8475", "raspberrypi.local.:8475",
        ] {
            #expect(p.check(host: host, origin: nil, changesState: false) == .allowed, "\(host)")
        }
        // DNS rebinding: a hostile name that resolves to the clock.
        #expect(p.check(host: "evil.example:8475", origin: nil, changesState: false) == .wrongHost("evil.example:8475"))
        #expect(p.check(host: "192.168.1.24:8475", origin: nil, changesState: false) == .wrongHost("192.168.1.24:8475"))
        #expect(
            p.check(host: "raspberrypi.evil.example", origin: nil, changesState: false)
                == .wrongHost("raspberrypi.evil.example"))
        #expect(p.check(host: nil, origin: nil, changesState: false) == .missingHost)
        #expect(p.check(host: "", origin: nil, changesState: false) == .missingHost)
        for broken in ["a b", "[::1", "host:port", "x:1:2", "\u{0}", "é.example"] {
            #expect(p.check(host: broken, origin: nil, changesState: false) == .wrongHost(broken), "\(broken)")
        }
    }

    @Test func aWildcardListenTakesTheMachinesAddressesAndWebHostsAddsNames() {
        let p = HostPolicy(
            listen: ListenAddress(host: "0.0.0.0", port: 8475), configured: ["Clock.Example.NET", "clock.lan"],
            addresses: ["10.0.0.5", "fe80::1", "::ffff:10.0.0.6"])
        for host in ["10.0.0.5:8475", "[fe80::1]:8475", "10.0.0.6", "clock.example.net:8475", "clock.lan"] {
            #expect(p.check(host: host, origin: nil, changesState: false) == .allowed, "\(host)")
        }
        #expect(p.check(host: "0.0.0.0:8475", origin: nil, changesState: false) == .wrongHost("0.0.0.0:8475"))
        #expect(p.check(host: "example.net", origin: nil, changesState: false) == .wrongHost("example.net"))
    }

    @Test func changesMustComeFromThePagesOwnOrigin() {
        let p = HostPolicy(listen: ListenAddress(host: "127.0.0.1", port: 8475))
        let host = "127.0.0.1:8475"
        #expect(p.check(host: host, origin: "http://127.0.0.1:8475", changesState: true) == .allowed)
        #expect(p.check(host: host, origin: "HTTP://127.0.0.1:8475", changesState: true) == .allowed)
        // Scripts send no Origin; reading needs none.
        #expect(p.check(host: host, origin: nil, changesState: true) == .allowed)
        #expect(p.check(host: host, origin: "http://evil.example", changesState: false) == .allowed)
        for origin in [
            "http://evil.example", "null", "http://127.0.0.1:8476", "http://127.0.0.1", "http://localhost:8475", "",
        ] {
            #expect(p.check(host: host, origin: origin, changesState: true) == .crossOrigin(origin), "\(origin)")
        }
    }

    @Test func authoritiesParse() {
        #expect(HostPolicy.hostName(ofAuthority: "Example.COM.:80") == "example.com")
        #expect(HostPolicy.hostName(ofAuthority: "[::1]") == "::1")
        #expect(HostPolicy.hostName(ofAuthority: "[::1]:x") == nil)
        #expect(HostPolicy.hostName(ofAuthority: "::1") == nil)
        #expect(HostPolicy.hostName(ofAuthority: ":80") == nil)
    }
}

@Suite struct RefusalLogTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func oneLinePerAddressAndReasonAMinuteWithTheCount() {
        var log = RefusalLog()
        let first = log.note(address: "10.0.0.9", reason: "wrong token", now: t0)
        #expect(first?.hasPrefix("refused 10.0.0.9: wrong token") == true)
        for i in 1...500 {
            #expect(log.note(address: "10.0.0.9", reason: "wrong token", now: t0 + Double(i) * 0.1) == nil)
        }
        // Another reason or another address has a line of its own.
        #expect(
            log.note(address: "10.0.0.9", reason: "wrong Host", detail: "evil.example", now: t0 + 1)?.contains(
                "(evil.example)") == true)
        #expect(log.note(address: "10.0.0.8", reason: "wrong token", now: t0 + 1) != nil)
        let later = log.note(address: "10.0.0.9", reason: "wrong token", now: t0 + 61)
        #expect(later == "refused 10.0.0.9: wrong token; 500 more since the last such line")
        #expect(log.note(address: "10.0.0.9", reason: "wrong token", now: t0 + 62) == nil)
    }

    @Test func memoryIsBoundedAndDetailsArePrintable() {
        var log = RefusalLog(maximumKeys: 100)
        var lines = 0
        for i in 0..<10_000 where log.note(address: "10.0.\(i / 256).\(i % 256)", reason: "wrong Host", now: t0) != nil
        { lines += 1 }
        #expect(log.rememberedKeys <= 101)
        #expect(lines <= 101, "a flood from many addresses leaves a bounded number of lines: \(lines)")
        let line = log.note(
            address: "x", reason: "r", detail: "a\r\nInjected: 1" + String(repeating: "z", count: 500), now: t0 + 100)
        #expect(line?.contains("\n") == false)
        #expect(line?.contains("\r") == false)
        #expect((line?.count ?? 0) < 260)
    }
}

@Suite struct RefusalSummaryTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// 200 addresses failing to sign in, five times each, within a second: eight lines of their
    /// own, then one summary a minute later with the count and the addresses (#31).
    @Test func aFloodFromManyAddressesIsAFewLinesAndOneSummary() {
        var log = RefusalLog()
        var lines: [String] = []
        for round in 0..<5 {
            for i in 0..<200 {
                let now = t0 + Double(round * 200 + i) * 0.0008
                if let line = log.note(address: "127.0.0.\(i + 10)", reason: "failed sign-in", now: now) {
                    lines.append(line)
                }
                lines += log.due(now: now)
            }
        }
        #expect(lines.count == 8, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("refused 127.0.0.") && $0.contains(": failed sign-in") })
        #expect(log.due(now: t0 + 30).isEmpty, "the summary waits for its interval")
        let summary = log.due(now: t0 + 61)
        #expect(summary.count == 1)
        // 1,000 refusals, 40 of them (8 addresses x 5) counted by the eight lines' own addresses.
        #expect(
            summary.first?.hasPrefix(
                "refused 960 more: failed sign-in, from 192 more addresses (127.0.0.18, 127.0.0.19, 127.0.0.20,")
                == true,
            "\(summary)")
        #expect(summary.first?.contains("and 182 more)") == true, "\(summary)")
        #expect(log.due(now: t0 + 200).isEmpty, "one summary, not one a call")
        // Another reason keeps its own eight lines meanwhile.
        #expect(log.note(address: "127.0.0.99", reason: "wrong token", now: t0 + 62) != nil)
    }
}

@Suite struct ClientGroupTests {
    /// IPv4 addresses count one by one; IPv6 ones by their /64, however written (#31).
    @Test func ipv6CountsByItsSixtyFour() {
        #expect(HostPolicy.clientGroup("192.168.1.20") == "192.168.1.20")
        #expect(HostPolicy.clientGroup("::1") == "0:0:0:0::/64")
        #expect(HostPolicy.clientGroup("2001:db8:1:2::10") == "2001:db8:1:2::/64")
        #expect(HostPolicy.clientGroup("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(HostPolicy.clientGroup("2001:0db8:0001:0002:0:0:0:1") == "2001:db8:1:2::/64")
        #expect(HostPolicy.clientGroup("fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(HostPolicy.clientGroup("fd00:1::") == "fd00:1:0:0::/64")
        #expect(HostPolicy.clientGroup("2001:db8::ffff:1.2.3.4") == "2001:db8:0:0::/64")
        #expect(HostPolicy.clientGroup("2001:db8:1:3::10") != HostPolicy.clientGroup("2001:db8:1:2::10"))
        // IPv4 as an IPv6 socket reports it is normalized to IPv4 first.
        #expect(HostPolicy.clientGroup(HostPolicy.normalized("::ffff:10.0.0.7")) == "10.0.0.7")
    }
}

@Suite struct ListenScopeTests {
    /// Issue #42: alarm-web.socket holds the port on every address; web_listen still says which
    /// addresses are served. A connection that came to another one is closed unread.
    @Test func aSocketOnEveryAddressServesOnlyWhatWebListenNames() {
        let loopback = ListenAddress.default
        for local in ["127.0.0.1", "127.0.1.1", "::1", "::ffff:127.0.0.1"] {
            #expect(loopback.serves(localAddress: local), "\(local)")
        }
        for local in ["192.168.1.23", "::ffff:192.168.1.23", "fe80::1", "2001:db8::5"] {
            #expect(!loopback.serves(localAddress: local), "\(local)")
        }
        let lan = ListenAddress(host: "192.168.1.23", port: 8475)
        #expect(lan.serves(localAddress: "192.168.1.23"))
        #expect(lan.serves(localAddress: "::ffff:192.168.1.23"))
        #expect(!lan.serves(localAddress: "127.0.0.1"))
        #expect(!lan.serves(localAddress: "192.168.1.24"))
        #expect(!lan.serves(localAddress: "fd00::23"))
        for wildcard in ["0.0.0.0", "::"] {
            let every = ListenAddress(host: wildcard, port: 8475)
            for local in ["127.0.0.1", "::1", "192.168.1.23", "::ffff:10.0.0.2", "fe80::1"] {
                #expect(every.serves(localAddress: local), "\(wildcard) \(local)")
            }
        }
    }
}

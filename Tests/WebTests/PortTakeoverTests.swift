import AlarmTestSupport
import Foundation
import Testing

/// Issue #42, "the port can be taken": while alarm-web serves, and while it restarts under
/// its socket unit, another local user cannot bind its port on either address family, and the
/// owner's requests (with the token) keep reaching alarm-web over both.
@Suite(.serialized) struct PortTakeoverTests {
    /// Without systemd, the default loopback address: alarm-web holds 127.0.0.1 and [::1], so the
    /// user nobody can bind neither (nor [::]); `curl localhost` (IPv6 first) reaches alarm-web.
    @Test func anotherUserCannotBindTheOtherLoopbackBesideAlarmWeb() throws {
        let h = try WebHarness(withDaemon: false)
        defer { h.shutdown() }
        #expect(h.webLog.contains("[::1]:\(h.port)"), "\(h.webLog)")
        for (host, v6only) in [("::1", true), ("127.0.0.1", false), ("::", true), ("::", false), ("0.0.0.0", false)] {
            let attempt = try Intruder.bind(h, host: host, port: h.port, v6only: v6only)
            #expect(
                !attempt.bound, "nobody bound \(host):\(h.port) (V6ONLY \(v6only)) beside alarm-web: \(attempt.said)")
        }
        for url in ["http://[::1]:\(h.port)/api/alarms", "http://localhost:\(h.port)/api/alarms"] {
            #expect(try Owner.status(h, url) == 200, "\(url)")
        }
        // The probe can bind when the port is free: alarm-web gone, nobody gets [::1].
        _ = h.stopWeb()
        let free = try Intruder.bind(h, host: "::1", port: h.port, v6only: true)
        #expect(free.bound, "the probe could not bind [::1]:\(h.port) with alarm-web stopped: \(free.said)")
    }

    /// Without systemd, web_listen 0.0.0.0: one [::] socket takes both families, so the user
    /// nobody cannot bind [::]:PORT with IPV6_V6ONLY beside it (a phone opening the Pi's name,
    /// IPv6 first, would reach theirs), nor any loopback address.
    @Test func anotherUserCannotBindIPv6BesideAWildcardListener() throws {
        let h = try WebHarness(withDaemon: false, listen: "0.0.0.0:0")
        defer { h.shutdown() }
        #expect(h.webLog.contains("[::]:\(h.port)"), "\(h.webLog)")
        for (host, v6only) in [("::", true), ("::1", true), ("127.0.0.1", false), ("0.0.0.0", false)] {
            let attempt = try Intruder.bind(h, host: host, port: h.port, v6only: v6only)
            #expect(
                !attempt.bound, "nobody bound \(host):\(h.port) (V6ONLY \(v6only)) beside alarm-web: \(attempt.said)")
        }
        for url in ["http://[::1]:\(h.port)/api/alarms", "http://127.0.0.1:\(h.port)/api/alarms"] {
            #expect(try Owner.status(h, url) == 200, "\(url)")
        }
    }

    /// Under socket activation (as `alarm-web.socket`: one [::] socket, BindIPv6Only=both, held
    /// by the activator): requests over both families work with the token; alarm-web killed,
    /// the port is still not another user's while it is down, and after it is started again
    /// the same token works.
    @Test func underSocketActivationThePortOutlivesARestart() throws {
        let h = try WebHarness(withDaemon: false, activated: true)
        defer { h.shutdown() }
        #expect(h.webLog.contains("serving on the sockets systemd passed: [::]:\(h.port) (IPv4 too)"), "\(h.webLog)")
        func requestsWork() throws {
            for url in [
                "http://127.0.0.1:\(h.port)/api/alarms", "http://[::1]:\(h.port)/api/alarms",
                "http://localhost:\(h.port)/api/alarms",
            ] {
                #expect(try Owner.status(h, url) == 200, "\(url): \(h.webLog)")
            }
        }
        func intruderFails(_ when: String) throws {
            for (host, v6only) in [("::1", true), ("127.0.0.1", false), ("::", true)] {
                let attempt = try Intruder.bind(h, host: host, port: h.port, v6only: v6only)
                #expect(!attempt.bound, "\(when): nobody bound \(host):\(h.port) (V6ONLY \(v6only)): \(attempt.said)")
            }
        }
        try requestsWork()
        try intruderFails("alarm-web running")
        for round in 1...2 {
            let child = try #require(SocketActivator.children(h.webLog).last)
            kill(child, SIGKILL)
            // While it is down (the activator waits 1 s before starting it again, as
            // RestartSec= would), the port is the activator's.
            #expect(waitUntil(timeout: 10) { kill(child, 0) != 0 && h.webLog.contains("exited \(child)") })
            try intruderFails("alarm-web killed, round \(round)")
            let back = waitUntil(timeout: 30) {
                h.webLog.components(separatedBy: "listening on http://").count - 1 == round + 1
            }
            #expect(back, "alarm-web did not start again: \(h.webLog)")
            try requestsWork()
            try intruderFails("alarm-web started again, round \(round)")
        }
    }
}

/// The user nobody, trying what a housemate's program would: bind PORT on an address, with
/// SO_REUSEADDR and SO_REUSEPORT (and IPV6_V6ONLY as given), and listen.
enum Intruder {
    static let script = #"""
        use Socket qw(:all);
        my ($host, $port, $v6only) = @ARGV;
        my $family = $host =~ /:/ ? AF_INET6 : AF_INET;
        socket(my $s, $family, SOCK_STREAM, 0) or die "socket: $!\n";
        setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1);
        setsockopt($s, SOL_SOCKET, SO_REUSEPORT, 1);
        setsockopt($s, IPPROTO_IPV6, IPV6_V6ONLY, $v6only) if $family == AF_INET6;
        my $address = $family == AF_INET6
            ? pack_sockaddr_in6($port, inet_pton(AF_INET6, $host)) : pack_sockaddr_in($port, inet_aton($host));
        if (bind($s, $address) && listen($s, 5)) { print "bound\n"; exit 0 }
        print "refused: $!\n";
        exit 1;
        """#

    static func bind(_ h: WebHarness, host: String, port: Int, v6only: Bool) throws -> (bound: Bool, said: String) {
        let r = try h.run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "/usr/bin/perl", "-e", script, host,
                String(port),
                v6only ? "1" : "0",
            ])
        return (r.status == 0 && r.stdout.contains("bound"), r.stdout + r.stderr)
    }
}

/// The owner's requests, by curl (as `curl localhost:8475` tries [::1] first), with the token.
enum Owner {
    static func status(_ h: WebHarness, _ url: String) throws -> Int {
        let r = try h.run(
            "/usr/bin/curl",
            [
                "-sS", "-g", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                "Authorization: Bearer \(h.token)", url,
            ])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}

/// What systemd does for `alarm-web.socket` (ListenStream=PORT, BindIPv6Only=both) and
/// `Restart=`: binds one [::] socket that takes IPv4 too, starts the program with it as
/// descriptor 3 (LISTEN_FDS=1, LISTEN_PID its pid), and starts it again 1 s after it exits,
/// holding the socket all along. Run as `perl -e SCRIPT PROGRAM`; port 0 (any free one). It
/// prints "child PID" and "exited PID" lines; SIGTERM ends the program and it.
enum SocketActivator {
    static let script = #"""
        use Socket qw(:all);
        use POSIX ();
        $| = 1;
        my $program = shift @ARGV;
        # Descriptors up to 3 stay open across exec (the socket may be 3 itself: dup2 is then a no-op).
        $^F = 3;
        socket(my $s, AF_INET6, SOCK_STREAM, 0) or die "socket: $!\n";
        setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1) or die "SO_REUSEADDR: $!\n";
        setsockopt($s, IPPROTO_IPV6, IPV6_V6ONLY, 0) or die "IPV6_V6ONLY: $!\n";
        bind($s, pack_sockaddr_in6(0, inet_pton(AF_INET6, "::"))) or die "bind: $!\n";
        listen($s, 128) or die "listen: $!\n";
        my $child = 0;
        $SIG{TERM} = sub { kill 'TERM', $child if $child; waitpid($child, 0) if $child; exit 0 };
        while (1) {
            $child = fork();
            die "fork: $!\n" unless defined $child;
            if ($child == 0) {
                POSIX::dup2(fileno($s), 3) or die "dup2: $!\n";
                $ENV{LISTEN_FDS} = "1";
                $ENV{LISTEN_PID} = "$$";
                exec($program) or die "exec $program: $!\n";
            }
            print "child $child\n";
            waitpid($child, 0);
            print "exited $child\n";
            sleep 1;
        }
        """#

    /// The process ids the activator started, in order.
    static func children(_ log: String) -> [pid_t] {
        log.split(separator: "\n").compactMap { line in
            line.hasPrefix("child ") ? pid_t(line.dropFirst(6)) : nil
        }
    }
}

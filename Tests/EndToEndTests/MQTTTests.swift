import AlarmTestSupport
import Foundation
import Testing

/// Issue #13: contrib/mqtt/alarm-mqtt (the hook and the service) with a real `mosquitto` broker
/// (Debian's package) started here, the real alarmd and alarm-hooks: Home Assistant discovery, a
/// ring's events on the broker, and `stop` / `ring` / `snooze` from the command topic, heard (or
/// no longer heard) on the PulseAudio sink.
@Suite("MQTT and Home Assistant end to end (issue #13)", .serialized)
struct MQTTTests {
    static let a440 = DaemonHarness.a440
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static var script: String { repo + "/contrib/mqtt/alarm-mqtt" }

    /// A mosquitto on free localhost ports, in memory only: a plain listener on `port` (unless
    /// `plain` is false: then nothing listens there), a TLS listener on `tlsPort` with `tls`'s
    /// certificate (unless `tls` is nil: then nothing listens there); anonymous, or only `users`;
    /// `acl`: the text of an `acl_file`.
    final class Broker: @unchecked Sendable {
        let port: Int
        let tlsPort: Int
        let plain: Bool
        let tls: Certificates?
        let users: [(name: String, password: String)]
        let process: Spawned
        let dir: String

        init(
            dir: String, plain: Bool = true, tls: Certificates? = nil, users: [(name: String, password: String)] = [],
            acl: String? = nil
        ) throws {
            self.dir = dir
            self.plain = plain
            self.tls = tls
            self.users = users
            port = try Self.freePort()
            var other = try Self.freePort()
            while other == port { other = try Self.freePort() }
            tlsPort = other
            var config = "per_listener_settings false\npersistence false\n"
            if users.isEmpty {
                config += "allow_anonymous true\n"
            } else {
                config += "allow_anonymous false\npassword_file \(dir)/mosquitto.passwd\n"
                for (n, user) in users.enumerated() {
                    let made = try ProcessRun.run(
                        URL(fileURLWithPath: "/usr/bin/mosquitto_passwd"),
                        (n == 0 ? ["-c"] : []) + ["-b", dir + "/mosquitto.passwd", user.name, user.password])
                    guard made.status == 0 else { throw PulseNullSink.Failed(description: "mosquitto_passwd: \(made)") }
                }
                chmod(dir + "/mosquitto.passwd", 0o644)  // mosquitto, started as root, reads it as mosquitto
            }
            if let acl {
                try acl.write(toFile: dir + "/mosquitto.acl", atomically: true, encoding: .utf8)
                config += "acl_file \(dir)/mosquitto.acl\n"
            }
            if plain { config += "listener \(port) 127.0.0.1\n" }
            if let tls {
                config += "listener \(tlsPort) 127.0.0.1\ncertfile \(tls.cert)\nkeyfile \(tls.key)\n"
            }
            try config.write(toFile: dir + "/mosquitto.conf", atomically: true, encoding: .utf8)
            process = try Spawned(
                "/usr/sbin/mosquitto", ["-c", dir + "/mosquitto.conf"], environment: [:], output: dir + "/mosquitto.log"
            )
            let listening = (plain ? [port] : []) + (tls != nil ? [tlsPort] : [])
            guard waitUntil(timeout: 20, poll: 0.05, { listening.allSatisfy(Self.accepts) }) else {
                throw PulseNullSink.Failed(description: "mosquitto did not listen on \(listening): \(logText)")
            }
        }

        /// What mosquitto logged (its connections among them).
        var logText: String { (try? String(contentsOfFile: dir + "/mosquitto.log", encoding: .utf8)) ?? "" }

        /// mosquitto_pub's and mosquitto_sub's options to reach this broker: the plain listener
        /// if there is one, else the TLS listener, verified against the test CA.
        var clientArguments: [String] { arguments(as: users.first) }

        func arguments(as user: (name: String, password: String)?) -> [String] {
            var args = ["-h", "127.0.0.1"]
            if let tls, !plain {
                args += ["-p", "\(tlsPort)", "--cafile", tls.ca]
            } else {
                args += ["-p", "\(port)"]
            }
            if let user { args += ["-u", user.name, "-P", user.password] }
            return args
        }

        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_in(
                sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
                sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
            }
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
            }
            return Int(UInt16(bigEndian: addr.sin_port))
        }

        static func accepts(_ port: Int) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_in(
                sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian,
                sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            return withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } == 0
        }

        /// mosquitto_pub, as a Home Assistant button press would publish (`retain`: as a
        /// careless or hostile publisher might, `-r`).
        /// `user`: as that user, not the first of `users`.
        func publish(
            _ topic: String, _ payload: String, retain: Bool = false, as user: (name: String, password: String)? = nil
        ) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
            p.arguments =
                arguments(as: user ?? users.first) + ["-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : [])
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                throw PulseNullSink.Failed(description: "mosquitto_pub exited \(p.terminationStatus)")
            }
        }

        func stop() { process.terminate() }
    }

    /// Everything a subscriber to `#` receives, as (topic, payload) lines of mosquitto_sub -v.
    final class Subscriber: @unchecked Sendable {
        let process: Spawned
        let path: String

        init(_ broker: Broker, dir: String) throws {
            path = dir + "/sub.txt"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(fd) }
            process = try Spawned(
                "/usr/bin/mosquitto_sub", broker.clientArguments + ["-v", "-q", "1", "-t", "#"],
                environment: [:], stdoutFD: fd)
        }

        var messages: [(topic: String, payload: String)] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        }

        func payloads(_ topic: String) -> [String] { messages.filter { $0.topic == topic }.map(\.payload) }

        /// Whether it receives: mosquitto_sub subscribes some time after it starts, and a probe
        /// published before that is lost (not retained), so publish until one arrives.
        func receives(from broker: Broker) throws -> Bool {
            for _ in 0..<40 {
                try broker.publish("probe", "hello")
                if waitUntil(timeout: 0.5, { payloads("probe").contains("hello") }) { return true }
            }
            return false
        }

        func json(_ topic: String) -> [[String: Any]] {
            payloads(topic).compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func stop() { process.terminate() }
    }

    /// Whether the sink goes quiet within `within` seconds of `mark` and stays so for a second,
    /// by the recording (which may lag the sink: it is given 10 s more than it needs to arrive).
    func silenced(_ h: DaemonHarness, after mark: Int, within: Double) -> Bool {
        _ = h.wait(within + 1.5 + 10) { h.recorder.count >= mark + Int((within + 1.5) * Double(h.rate)) }
        guard let quiet = Recording.firstSilence(h.recorder.samples, from: mark, length: h.rate, threshold: 50) else {
            return false
        }
        return Double(quiet - mark) / Double(h.rate) < within
    }

    @Test(
        "discovery, a ring's events through the broker, and stop / ring / snooze from the command topic silence or ring the sink"
    )
    func ringAndCommands() throws {
        let h = try DaemonHarness(config: "ring = 60s\n", withA440: true)
        defer { h.shutdown() }
        let broker = try Broker(dir: h.root)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: h.root)
        defer { sub.stop() }
        // mosquitto_sub subscribes some time after it starts: a probe published before that is
        // lost (not retained), so publish until one arrives.
        var connected = false
        for _ in 0..<30 where !connected {
            try broker.publish("probe", "hello")
            connected = h.wait(0.5) { sub.payloads("probe").contains("hello") }
        }
        #expect(connected, "the subscriber is not connected")

        // The hook (a link into hooks.d, as the README says) and the service, on one config.
        let hooks = h.root + "/hooks.d"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: hooks + "/50-mqtt", withDestinationPath: Self.script)
        try "host = 127.0.0.1\nport = \(broker.port)\ntls = no\nnode_id = bedside\nname = Bedside alarm\n".write(
            toFile: h.root + "/mqtt.conf", atomically: true, encoding: .utf8)
        h.environment["ALARM_HOOKS_DIR"] = hooks
        h.environment["ALARM_MQTT_CONFIG"] = h.root + "/mqtt.conf"
        try h.start()
        let runner = try Follower(h, "alarm-hooks", [], output: h.root + "/hooks.log", mergeStderr: true)
        defer { runner.stop() }
        #expect(runner.waitUntilWatching())
        let service = try Spawned(
            "/usr/bin/python3", [Self.script, "serve"], environment: h.environment, output: h.root + "/mqtt.log")
        defer { service.terminate() }
        let serviceLog = { (try? String(contentsOfFile: h.root + "/mqtt.log", encoding: .utf8)) ?? "" }

        // Home Assistant discovery: one device, the alarm, the next alarm as a timestamp, buttons.
        #expect(
            h.wait(20) { sub.payloads("alarm/bedside/availability").last == "online" },
            "the service did not come online: \(serviceLog())")
        let next = try #require(
            sub.json("homeassistant/sensor/bedside/next/config").last, "\(sub.messages.map(\.topic))")
        #expect(next["device_class"] as? String == "timestamp")
        #expect(next["state_topic"] as? String == "alarm/bedside/next")
        #expect((next["device"] as? [String: Any])?["name"] as? String == "Bedside alarm")
        let state = try #require(sub.json("homeassistant/sensor/bedside/state/config").last)
        #expect(state["state_topic"] as? String == "alarm/bedside/state")
        for (button, payload) in [("snooze", "snooze"), ("stop", "stop"), ("ring", "ring")] {
            let b = try #require(sub.json("homeassistant/button/bedside/\(button)/config").last, "no \(button) button")
            #expect(b["command_topic"] as? String == "alarm/bedside/command")
            #expect(b["payload_press"] as? String == payload)
            #expect(b["availability_topic"] as? String == "alarm/bedside/availability")
        }
        let events = try #require(sub.json("homeassistant/event/bedside/event/config").last)
        #expect((events["event_types"] as? [String])?.contains("ringing") == true)
        #expect(sub.payloads("alarm/bedside/state").last == "idle")

        // A ring: its events and the state through the broker.
        #expect(try h.cli("add", "--in", "3s", "--id", "mq", "--label", "Via MQTT", "--sound", Self.a440).status == 0)
        #expect(
            h.wait(15) { sub.payloads("alarm/bedside/next").last?.hasPrefix("20") == true },
            "no next alarm published: \(runner.text)")
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(
            h.wait(15) { sub.json("alarm/bedside/event").contains { $0["event"] as? String == "ringing" } },
            "no ringing event on the broker: \(runner.text)")
        let ringing = try #require(sub.json("alarm/bedside/event").first { $0["event"] as? String == "ringing" })
        #expect(ringing["alarm"] as? String == "mq")
        #expect(ringing["label"] as? String == "Via MQTT")
        #expect(ringing["event_type"] as? String == "ringing")
        #expect(ringing["sound"] as? String == Self.a440)
        #expect(h.wait(10) { sub.payloads("alarm/bedside/state").last == "ringing" })

        // Stop from the command topic (Home Assistant's Stop button): the sink goes quiet.
        Thread.sleep(forTimeInterval: 0.5)
        var mark = h.recorder.count
        try broker.publish("alarm/bedside/command", "stop")
        #expect(
            silenced(h, after: mark, within: 3), "stop on the command topic did not silence the ring: \(serviceLog())")
        #expect(
            h.wait(10) { sub.json("alarm/bedside/event").contains { $0["event"] as? String == "stopped" } },
            "\(runner.text)")
        #expect(h.wait(10) { sub.payloads("alarm/bedside/state").last == "idle" })
        #expect(h.history().first { $0.string("alarm") == "mq" }?.string("outcome") == "stopped")

        // Ring now, snooze, stop: all from the command topic.
        mark = h.recorder.count
        try broker.publish("alarm/bedside/command", "ring")
        _ = try #require(
            h.recorder.waitForSound(from: mark, timeout: 15), "ring on the command topic rang nothing: \(serviceLog())")
        #expect(h.wait(10) { h.status()?.string("state") == "ringing" })
        mark = h.recorder.count
        try broker.publish("alarm/bedside/command", "snooze 1h")
        #expect(silenced(h, after: mark, within: 3), "snooze on the command topic did not silence it")
        #expect(h.wait(10) { sub.payloads("alarm/bedside/state").last == "snoozed" })
        try broker.publish("alarm/bedside/command", "stop")
        #expect(h.wait(10) { h.status()?.string("state") == "idle" })
        // Anything else is refused and logged, never written to the FIFO.
        try broker.publish("alarm/bedside/command", "reload\nstop")
        #expect(h.wait(10) { serviceLog().contains("ignored command") }, "\(serviceLog())")
    }
}

import AlarmTestSupport
import Foundation
import Testing

/// Issue #42: nobody on the MQTT broker but a publisher allowed on the command topic takes the
/// clock over. alarm-mqtt with a real `mosquitto`: a retained command is never obeyed (it would be
/// replayed at every reconnect); TLS whenever the broker offers it, never in clear after a
/// certificate that does not verify; a config file with a password that others may read refused.
@Suite("MQTT: retained commands, TLS, the password's file (issue #42)", .serialized)
struct MQTTTrustTests {
    typealias Broker = MQTTTests.Broker
    typealias Subscriber = MQTTTests.Subscriber
    typealias Certificates = MQTTTests.Certificates
    static var script: String { MQTTTests.script }

    /// A scratch directory for the tests that need no alarmd (alarm-mqtt's runtime_dir too:
    /// without status.json it publishes discovery and availability only).
    final class Scratch: @unchecked Sendable {
        let path = FileManager.default.temporaryDirectory.path + "/alarm-mqtt-trust-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    /// `alarm-mqtt serve` on `config` (written at `mode`), its log in dir/mqtt.log.
    static func serve(
        _ dir: String, config: String, mode: mode_t = 0o600, environment: [String: String] = [:]
    ) throws
        -> (Spawned, () -> String)
    {
        try config.write(toFile: dir + "/mqtt.conf", atomically: true, encoding: .utf8)
        chmod(dir + "/mqtt.conf", mode)
        let env = environment.merging(["ALARM_MQTT_CONFIG": dir + "/mqtt.conf"]) { $1 }
        let service = try Spawned("/usr/bin/python3", [script, "serve"], environment: env, output: dir + "/mqtt.log")
        return (service, { (try? String(contentsOfFile: dir + "/mqtt.log", encoding: .utf8)) ?? "" })
    }

    @Test("a retained stop on the command topic does not stop a ring and is logged; a stop not retained does")
    func retainedCommandIgnored() throws {
        let h = try DaemonHarness(config: "ring = 60s\n", withA440: true)
        defer { h.shutdown() }
        let broker = try Broker(dir: h.root)
        defer { broker.stop() }
        try h.start()
        #expect(try h.cli("add", "--in", "3s", "--id", "rt", "--sound", MQTTTests.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(h.wait(10) { h.status()?.string("state") == "ringing" })

        // Anyone on the broker leaves a retained stop; the service then (re)connects and gets it.
        try broker.publish("alarm/bedside/command", "stop", retain: true)
        let (service, serviceLog) = try Self.serve(
            h.root, config: "host = 127.0.0.1\nport = \(broker.port)\ntls = no\nnode_id = bedside\n",
            environment: h.environment)
        defer { service.terminate() }
        #expect(
            h.wait(20) { serviceLog().contains("ignoring a retained command 'stop' on alarm/bedside/command") },
            "\(serviceLog())")
        #expect(serviceLog().contains("<4>ignoring a retained command"), "logged at warning")
        #expect(!serviceLog().contains("sent to alarmd"), "\(serviceLog())")
        #expect(h.status()?.string("state") == "ringing")
        var mark = h.recorder.count
        #expect(h.recorder.waitForSound(from: mark, timeout: 10) != nil, "the retained stop silenced the ring")

        // A stop given now (not retained) is obeyed.
        mark = h.recorder.count
        try broker.publish("alarm/bedside/command", "stop")
        #expect(h.wait(20) { h.status()?.string("state") == "idle" }, "\(serviceLog())")
        #expect(serviceLog().contains("command 'stop' sent to alarmd"), "\(serviceLog())")
        #expect(h.history().first { $0.string("alarm") == "rt" }?.string("outcome") == "stopped")
    }

    @Test("tls = auto with ca_file connects over TLS to a broker that has no plain listener")
    func autoUsesTLS() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let certs = try Certificates(in: dir.path)
        let broker = try Broker(dir: dir.path, plain: false, tls: certs)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")
        let (service, serviceLog) = try Self.serve(
            dir.path,
            config: "host = 127.0.0.1\nport = \(broker.port)\ntls_port = \(broker.tlsPort)\nca_file = \(certs.ca)\n"
                + "node_id = bedside\nruntime_dir = \(dir.path)\n")
        defer { service.terminate() }
        #expect(
            waitUntil(timeout: 20) { sub.payloads("alarm/bedside/availability").last == "online" },
            "not online through the TLS listener: \(serviceLog())")
        #expect(serviceLog().contains("connected to 127.0.0.1:\(broker.tlsPort) over TLS"), "\(serviceLog())")
        #expect(!serviceLog().contains("in clear"), "\(serviceLog())")
    }

    @Test("tls = auto never falls back to plain after a certificate that does not verify, and says why")
    func autoRefusesUnverifiedCertificate() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let certs = try Certificates(in: dir.path)
        let broker = try Broker(dir: dir.path, plain: true, tls: certs)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)  // on the plain listener
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")
        let (service, serviceLog) = try Self.serve(
            dir.path,
            config: "host = 127.0.0.1\nport = \(broker.port)\ntls_port = \(broker.tlsPort)\nnode_id = bedside\n"
                + "runtime_dir = \(dir.path)\n")
        defer { service.terminate() }
        // Two attempts (the second 10 s after the first), both refused for the certificate.
        let refusal = "the certificate of the broker 127.0.0.1:\(broker.tlsPort) does not verify"
        #expect(
            waitUntil(timeout: 40) { serviceLog().components(separatedBy: refusal).count > 2 },
            "not refused twice: \(serviceLog())")
        #expect(serviceLog().contains("<3>" + refusal), "logged at error")
        #expect(serviceLog().contains("ca_file"), "\(serviceLog())")
        #expect(!serviceLog().contains("connected to"), "\(serviceLog())")
        #expect(!broker.logText.contains("as alarm-mqtt-bedside"), "alarm-mqtt got in: \(broker.logText)")
        #expect(sub.payloads("alarm/bedside/availability").isEmpty)
    }

    @Test("tls = auto with no TLS listener falls back to plain and warns once")
    func autoFallsBackWhenNoTLS() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let broker = try Broker(dir: dir.path, plain: true)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")
        let (service, serviceLog) = try Self.serve(
            dir.path,
            config: "host = 127.0.0.1\nport = \(broker.port)\ntls_port = \(broker.tlsPort)\nnode_id = bedside\n"
                + "runtime_dir = \(dir.path)\n")
        defer { service.terminate() }
        #expect(
            waitUntil(timeout: 20) { sub.payloads("alarm/bedside/availability").last == "online" },
            "not online: \(serviceLog())")
        let warning =
            "<4>the broker 127.0.0.1 offers no TLS on port \(broker.tlsPort): connected on port \(broker.port) "
        #expect(serviceLog().components(separatedBy: warning).count == 2, "warned once: \(serviceLog())")
        #expect(serviceLog().contains("set tls = yes to refuse that"), "\(serviceLog())")
    }

    @Test("a config written before tls_port (tls = yes, port = the TLS port) still uses TLS, in the hook too")
    func legacyTLSConfig() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let certs = try Certificates(in: dir.path)
        let broker = try Broker(dir: dir.path, plain: false, tls: certs)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")
        try #"{"state":"idle"}"#.write(toFile: dir.path + "/status.json", atomically: true, encoding: .utf8)
        try
            ("host = 127.0.0.1\nport = \(broker.tlsPort)\ntls = yes\nca_file = \(certs.ca)\nnode_id = bedside\n"
            + "runtime_dir = \(dir.path)\n").write(toFile: dir.path + "/mqtt.conf", atomically: true, encoding: .utf8)
        let hook = try ProcessRun.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [Self.script, "--config", dir.path + "/mqtt.conf", "hook"],
            timeout: 30)
        #expect(hook.status == 0, "\(hook.stderr)")
        #expect(waitUntil(timeout: 20) { sub.payloads("alarm/bedside/state").last == "idle" }, "\(hook.stderr)")
    }

    @Test("a config with a password readable by its group is refused with the fix; at 0600 it connects")
    func passwordFileMode() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let broker = try Broker(dir: dir.path, users: [("ha", "ha-secret"), ("alarm", "alarm-secret")])
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")
        let config =
            "host = 127.0.0.1\nport = \(broker.port)\ntls = no\nusername = alarm\nnode_id = bedside\n"
            + "runtime_dir = \(dir.path)\n"
        let path = dir.path + "/mqtt.conf"

        try (config + "password = alarm-secret\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o640)
        let refused = try ProcessRun.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [Self.script, "--config", path, "serve"], timeout: 30)
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("\(path) holds a password and is readable by its group (mode 0640)"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("chmod 0600 \(path)"), "\(refused.stderr)")

        let (service, serviceLog) = try Self.serve(dir.path, config: config + "password = alarm-secret\n", mode: 0o600)
        defer { service.terminate() }
        #expect(
            waitUntil(timeout: 20) { sub.payloads("alarm/bedside/availability").last == "online" },
            "not online at 0600: \(serviceLog())")
        service.terminate()

        // No password in the file (mode 0644 then is fine): systemd's LoadCredential=mqtt-password.
        let credentials = dir.path + "/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "alarm-secret\n".write(toFile: credentials + "/mqtt-password", atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { sub.payloads("alarm/bedside/availability").last == "offline" })
        let (viaCredential, credentialLog) = try Self.serve(
            dir.path, config: config, mode: 0o644, environment: ["CREDENTIALS_DIRECTORY": credentials])
        defer { viaCredential.terminate() }
        #expect(
            waitUntil(timeout: 20) { sub.payloads("alarm/bedside/availability").last == "online" },
            "not online with the credential: \(credentialLog())")
    }

    @Test("the broker ACL of docs/events.md: Home Assistant's user commands the clock, another user cannot")
    func documentedACL() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        // The ACL exactly as the guide gives it: the first ``` block after its heading.
        let guide = try String(contentsOfFile: MQTTTests.repo + "/docs/events.md", encoding: .utf8)
        let section = try #require(guide.range(of: "**Who may command the clock: a broker ACL.**"))
        let block = guide[section.upperBound...].components(separatedBy: "```")
        let acl = try #require(block.count > 2 ? block[1] : nil)
        #expect(acl.contains("user alarm"))
        let ha = (name: "homeassistant", password: "ha-secret")
        let plug = (name: "plug", password: "plug-secret")
        let broker = try Broker(dir: dir.path, users: [ha, ("alarm", "alarm-secret"), plug], acl: acl)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: dir.path)  // as Home Assistant
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected: \(broker.logText)")
        let (service, serviceLog) = try Self.serve(
            dir.path,
            config: "host = 127.0.0.1\nport = \(broker.port)\ntls = no\nusername = alarm\npassword = alarm-secret\n"
                + "node_id = bedroom\nruntime_dir = \(dir.path)\n")
        defer { service.terminate() }
        // The clock may publish its state and discovery; Home Assistant reads them.
        #expect(
            waitUntil(timeout: 20) { sub.payloads("alarm/bedroom/availability").last == "online" },
            "not online: \(serviceLog()) \(broker.logText)")
        #expect(!sub.payloads("homeassistant/button/bedroom/stop/config").isEmpty)
        // The plug's command is dropped by the broker, Home Assistant's reaches alarm-mqtt (no
        // alarmd here: "not sent", which shows it arrived). mosquitto handles one message after
        // the other: once the second has arrived, the first would have.
        try broker.publish("alarm/bedroom/command", "snooze 7m", as: plug)
        try broker.publish("alarm/bedroom/command", "snooze 9m", as: ha)
        #expect(waitUntil(timeout: 20) { serviceLog().contains("command 'snooze 9m'") }, "\(serviceLog())")
        #expect(!serviceLog().contains("snooze 7m"), "the plug commanded the clock: \(serviceLog())")
    }
}

extension MQTTTests {
    /// A throwaway CA and a server certificate it signed, for 127.0.0.1, made with openssl.
    struct Certificates {
        let ca: String
        let cert: String
        let key: String

        init(in dir: String) throws {
            ca = dir + "/ca.pem"
            cert = dir + "/server.pem"
            key = dir + "/server.key"
            let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            let extensions = [
                "subjectAltName=IP:127.0.0.1", "basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature",
                "extendedKeyUsage=serverAuth", "authorityKeyIdentifier=keyid", "subjectKeyIdentifier=hash",
            ]
            try (extensions.joined(separator: "\n") + "\n").write(
                toFile: dir + "/server.ext", atomically: true, encoding: .utf8)
            for args in [
                ["req", "-x509"] + ec + [
                    "-keyout", dir + "/ca.key", "-out", ca, "-days", "2", "-subj", "/CN=alarm test CA", "-addext",
                    "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ],
                ["req"] + ec + ["-keyout", key, "-out", dir + "/server.csr", "-subj", "/CN=127.0.0.1"],
                [
                    "x509", "-req", "-in", dir + "/server.csr", "-CA", ca, "-CAkey", dir + "/ca.key", "-CAcreateserial",
                    "-out", cert, "-days", "2", "-extfile", dir + "/server.ext",
                ],
            ] {
                let made = try ProcessRun.run(URL(fileURLWithPath: "/usr/bin/openssl"), args)
                guard made.status == 0 else {
                    throw PulseNullSink.Failed(description: "openssl \(args): \(made.stderr)")
                }
            }
            chmod(key, 0o644)  // mosquitto, started as root, reads it as the user mosquitto
        }
    }
}

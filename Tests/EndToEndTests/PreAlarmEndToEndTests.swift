import AlarmTestSupport
import Foundation
import Testing

/// Issue #43: the pre-alarm through the real alarmd, `alarm watch`, `alarm-hooks` with a hook
/// of its own and contrib/mqtt/alarm-mqtt on a real mosquitto; `skip` on the command topic
/// (Home Assistant's "Skip next") skips the next alarm's next ring, the `next` sensor then names
/// the following one; a skipped or paused ring has no pre-alarm.
@Suite("pre-alarm and Skip next end to end (issue #43)", .serialized)
struct PreAlarmEndToEndTests {
    typealias Broker = MQTTTests.Broker
    typealias Subscriber = MQTTTests.Subscriber

    func preAlarms(_ objects: [[String: Any]], _ id: String) -> [[String: Any]] {
        objects.filter { $0["event"] as? String == "pre-alarm" && $0["alarm"] as? String == id }
    }

    @Test(
        "a pre-alarm reaches alarm watch, a hook (ALARM_EVENT=pre-alarm, ALARM_LEAD) and the broker before its ring; skip from the command topic and a pause leave their rings without one"
    )
    func preAlarmSkipAndPause() throws {
        let h = try DaemonHarness(config: "ring = 10s\n", withA440: true)
        defer { h.shutdown() }
        let broker = try Broker(dir: h.root)
        defer { broker.stop() }
        let sub = try Subscriber(broker, dir: h.root)
        defer { sub.stop() }
        #expect(try sub.receives(from: broker), "the subscriber is not connected")

        let hooks = h.root + "/hooks.d"
        let record = h.root + "/record.txt"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$ALARM_EVENT $ALARM_ID $ALARM_LEAD $ALARM_SCHEDULED\" >> '\(record)'\n".write(
            toFile: hooks + "/10-record", atomically: true, encoding: .utf8)
        chmod(hooks + "/10-record", 0o755)
        try FileManager.default.createSymbolicLink(atPath: hooks + "/50-mqtt", withDestinationPath: MQTTTests.script)
        try "host = 127.0.0.1\nport = \(broker.port)\ntls = no\nnode_id = bedside\n".write(
            toFile: h.root + "/mqtt.conf", atomically: true, encoding: .utf8)
        h.environment["ALARM_HOOKS_DIR"] = hooks
        h.environment["ALARM_MQTT_CONFIG"] = h.root + "/mqtt.conf"
        try h.start()
        let runner = try Follower(h, "alarm-hooks", [], output: h.root + "/hooks.log", mergeStderr: true)
        defer { runner.stop() }
        let watch = try Follower(h, "alarm", ["watch", "--json"], output: h.root + "/watch.json")
        defer { watch.stop() }
        #expect(runner.waitUntilWatching(), "alarm-hooks did not start: \(runner.text)")
        #expect(watch.waitUntilWatching(), "alarm watch did not start: \(watch.text)")
        let service = try Spawned(
            "/usr/bin/python3", [MQTTTests.script, "serve"], environment: h.environment, output: h.root + "/mqtt.log")
        defer { service.terminate() }
        let serviceLog = { (try? String(contentsOfFile: h.root + "/mqtt.log", encoding: .utf8)) ?? "" }
        #expect(
            h.wait(30) { sub.payloads("alarm/bedside/availability").last == "online" },
            "the service did not come online: \(serviceLog())")
        // Discovery: the Skip next button and pre-alarm among the event entity's types.
        let skip = try #require(sub.json("homeassistant/button/bedside/skip/config").last, "no Skip next button")
        #expect(skip["name"] as? String == "Skip next")
        #expect(skip["command_topic"] as? String == "alarm/bedside/command")
        #expect(skip["payload_press"] as? String == "skip")
        let eventEntity = try #require(sub.json("homeassistant/event/bedside/event/config").last)
        #expect((eventEntity["event_types"] as? [String])?.contains("pre-alarm") == true)

        // 1. A ring in 8 s with a 5 s lead: the pre-alarm comes about 3 s from now, before it.
        #expect(
            try h.cli(
                "add", "--in", "8s", "--id", "sun", "--label", "Sunrise", "--sound", DaemonHarness.a440,
                "--pre-alarm", "5s"
            ).status == 0)
        #expect(h.wait(30) { !preAlarms(watch.objects, "sun").isEmpty }, "alarm watch saw no pre-alarm: \(h.log)")
        let seen = try #require(preAlarms(watch.objects, "sun").first)
        #expect(seen["label"] as? String == "Sunrise")
        #expect((seen["lead"] as? NSNumber)?.doubleValue == 5)
        #expect(seen["late"] as? Bool == false)
        let scheduled = try #require(seen["scheduled"] as? String)
        #expect(
            h.wait(30) {
                watch.objects.contains { $0["event"] as? String == "ringing" && $0["alarm"] as? String == "sun" }
            },
            "no ring after the pre-alarm: \(h.log)")
        let ringing = try #require(watch.objects.first { $0["event"] as? String == "ringing" })
        #expect(ringing["scheduled"] as? String == scheduled, "the pre-alarm names the ring's instant")
        let order = watch.objects.compactMap { $0["event"] as? String }.filter {
            ["pre-alarm", "ringing"].contains($0)
        }
        #expect(order.first == "pre-alarm")
        #expect(preAlarms(watch.objects, "sun").count == 1, "exactly once")
        // The hook and the broker got it too.
        #expect(
            h.wait(20) {
                ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains(
                    "pre-alarm sun 5 \(scheduled)")
            }, "the hook did not get ALARM_EVENT=pre-alarm, ALARM_LEAD=5: \(runner.text)")
        #expect(
            h.wait(20) { sub.json("alarm/bedside/event").contains { $0["event_type"] as? String == "pre-alarm" } },
            "no pre-alarm on the broker: \(runner.text)")
        let mqttEvent = try #require(
            sub.json("alarm/bedside/event").first { $0["event_type"] as? String == "pre-alarm" })
        #expect(mqttEvent["alarm"] as? String == "sun")
        #expect((mqttEvent["lead"] as? NSNumber)?.doubleValue == 5)
        #expect(mqttEvent["scheduled"] as? String == scheduled)
        #expect(try h.cli("stop").status == 0)

        // 2. Two alarms with a 5 s lead: `skip` from the command topic skips the nearer one;
        // the next sensor then names the other; a pause leaves that one without a pre-alarm.
        #expect(try h.cli("add", "--in", "25s", "--id", "first", "--pre-alarm", "5s").status == 0)
        #expect(try h.cli("add", "--in", "45s", "--id", "second", "--pre-alarm", "5s").status == 0)
        let firstAt = try #require(
            h.wait(15) { h.status().flatMap(nextID) == "first" } ? h.status().flatMap(nextAt) : nil)
        try broker.publish("alarm/bedside/command", "skip")
        #expect(
            h.wait(15) { h.status().flatMap(nextID) == "second" }, "skip did not skip 'first': \(h.log) \(serviceLog())"
        )
        let secondAt = try #require(h.status().flatMap(nextAt))
        #expect(secondAt != firstAt)
        #expect(
            h.wait(20) { sub.payloads("alarm/bedside/next").last == secondAt },
            "the next sensor does not name the ring after the skipped one: \(sub.payloads("alarm/bedside/next"))")
        #expect(try h.cli("pause", "second").status == 0)
        #expect(
            h.wait(20) { sub.payloads("alarm/bedside/next").last == "None" }, "\(sub.payloads("alarm/bedside/next"))")
        // Past both rings: the skip is logged, the pause in history; no pre-alarm, no ring.
        #expect(h.wait(90) { h.log.contains("'first': skipped the occurrence") }, "\(h.log)")
        #expect(
            h.wait(90) { h.history().contains { $0.string("alarm") == "second" && $0.string("outcome") == "paused" } },
            "\(h.history())")
        #expect(h.wait(10) { watch.objects.contains { $0["event"] as? String == "paused" } })
        #expect(preAlarms(watch.objects, "first").isEmpty, "a skipped ring has no pre-alarm")
        #expect(preAlarms(watch.objects, "second").isEmpty, "a paused ring has no pre-alarm")
        #expect(!watch.objects.contains { $0["event"] as? String == "ringing" && $0["alarm"] as? String != "sun" })
        #expect(!(((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains("pre-alarm first")))
        #expect(
            !sub.json("alarm/bedside/event").contains {
                ($0["alarm"] as? String).map { ["first", "second"].contains($0) } == true
                    && $0["event_type"] as? String == "pre-alarm"
            })
    }

    @Test(
        "alarmd started inside the lead writes the pre-alarm at once, late; a crash and a restart after it write it never again, and the next lead once, on time"
    )
    func lateAndRestart() throws {
        let h = try DaemonHarness(config: "ring = 5s\n")
        defer { h.shutdown() }
        // Added while alarmd is down: the 25 s lead has begun when it starts.
        #expect(try h.cli("add", "--in", "20s", "--id", "late", "--pre-alarm", "25s,10s").status == 0)
        try h.start()
        #expect(h.wait(20) { !preAlarms(h.events(), "late").isEmpty }, "no pre-alarm at the start: \(h.log)")
        let first = try #require(preAlarms(h.events(), "late").first)
        #expect((first["lead"] as? NSNumber)?.doubleValue == 25)
        #expect(first["late"] as? Bool == true, "written after its time: late")
        // A crash (nothing saved at exit) and a restart, still inside the 25 s lead: the
        // pre-alarm written before the crash is not written again.
        h.crash()
        try h.start()
        // The 10 s lead falls due about 10 s before the ring: written once, not late.
        #expect(
            h.wait(40) { preAlarms(h.events(), "late").contains { ($0["lead"] as? NSNumber)?.doubleValue == 10 } },
            "no 10 s pre-alarm: \(h.log)")
        #expect(h.wait(40) { h.events().contains { $0["event"] as? String == "ringing" } }, "\(h.log)")
        let written = preAlarms(h.events(), "late")
        #expect(written.count == 2, "each lead exactly once: \(written)")
        #expect(written.last?["late"] as? Bool == false)
        #expect(written.allSatisfy { $0["scheduled"] as? String == first["scheduled"] as? String })
    }

    func nextID(_ status: [String: Any]) -> String? { (status["next"] as? [String: Any])?["id"] as? String }
    func nextAt(_ status: [String: Any]) -> String? { (status["next"] as? [String: Any])?["at"] as? String }
}

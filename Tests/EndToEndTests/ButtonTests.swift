import AlarmTestSupport
import Foundation
import Testing

/// Issue #30: `alarm-button` as a process. (Its presses go through the kernel only in the system
/// test's guests, where uinput and qemu's USB keyboard are: this machine has no /dev/input.)
@Suite("alarm-button end to end (issue #30)", .serialized)
struct ButtonTests {
    @Test("--help names the settings: button_device, button_keys, button_hold; and the gpio-key overlay's safe keycode")
    func help() throws {
        let r = try Binaries.run("alarm-button", ["--help"])
        #expect(r.status == 0, "\(r.stderr)")
        for word in [
            "button_device", "button_keys", "button_hold", "--button-device", "--button-keys", "--button-hold",
            "keycode=256",
        ] {
            #expect(r.stdout.contains(word), "\(word) missing from: \(r.stdout)")
        }
    }

    @Test("a key that is not a key, or a hold that is not a duration, is refused before anything runs")
    func badFlags() throws {
        let keys = try Binaries.run("alarm-button", ["--button-keys", "KEY_ENTER,banana"])
        #expect(keys.status == 64, "\(keys.stderr)")
        #expect(keys.stderr.contains("'banana' is not a key"), "\(keys.stderr)")
        let hold = try Binaries.run("alarm-button", ["--button-hold", "soon"])
        #expect(hold.status == 64, "\(hold.stderr)")
    }

    @Test("an absent device is waited for, said once, not a crash loop; SIGTERM ends it cleanly")
    func absentDevice() throws {
        let h = try AlarmdHarness(config: "button_device = /nonexistent/input/event9\n", audio: .device("null"))
        defer { h.shutdown() }
        try h.start()
        let p = try h.spawn("alarm-button", ["--verbose"], output: h.root + "/button.log")
        defer { p.terminate() }
        let log = { (try? String(contentsOfFile: h.root + "/button.log", encoding: .utf8)) ?? "" }
        #expect(waitUntil(timeout: 20) { log().contains("waiting for it") }, "\(log())")
        #expect(log().contains("no input device at /nonexistent/input/event9"), "\(log())")
        // Still there after a retry (5 s), and it said so once.
        Thread.sleep(forTimeInterval: 6)
        #expect(p.isRunning, "alarm-button left: \(p.ending ?? "?"): \(log())")
        #expect(
            log().components(separatedBy: "no input device at").count == 2, "said more than once: \(log())")
        p.signal(SIGTERM)
        #expect(p.wait(timeout: 20) == 0, "\(log())")
        #expect(log().contains("alarm-button stopped"), "\(log())")
    }

    @Test("a broken config file is a warning: the button must still be able to stop an alarm")
    func brokenConfig() throws {
        let h = try AlarmdHarness(
            config: "button_device = /nonexistent/event9\nnonsense here\n", audio: .device("null"))
        defer { h.shutdown() }
        let p = try h.spawn("alarm-button", [], output: h.root + "/button.log")
        defer { p.terminate() }
        let log = { (try? String(contentsOfFile: h.root + "/button.log", encoding: .utf8)) ?? "" }
        #expect(waitUntil(timeout: 20) { log().contains("waiting for it") }, "\(log())")
        #expect(log().contains("using the other settings"), "\(log())")
        // The broken file's button_device is not used: the default (gpio-keys) is looked for.
        #expect(log().contains("no gpio-keys input device"), "\(log())")
        #expect(p.isRunning)
    }

    @Test("alarm devices --json: button_device, button (null: nothing matches here) and inputs")
    func devicesJSON() throws {
        let h = try AlarmdHarness(config: "button_device = Some Keyboard\n", audio: .device("null"))
        defer { h.shutdown() }
        let r = try h.cli("devices", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(o["button_device"] as? String == "Some Keyboard")
        #expect(o["button"] is NSNull)
        #expect(o["inputs"] is [Any])
        let text = try h.cli("devices")
        #expect(
            text.stdout.contains("button (alarm-button): none: no input device matches button_device Some Keyboard"),
            "\(text.stdout)")
    }
}

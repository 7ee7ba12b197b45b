import AlarmCore
import AlarmState
import Foundation
import Testing

@Suite("Configuration: flag, then environment, then config file, then default")
struct ConfigurationTests {
    func tempFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("alarm-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("defaults when nothing is given")
    func defaults() throws {
        let c = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(c.stateDir == "/var/lib/alarm")
        #expect(c.runtimeDir == "/run/alarm")
        #expect(c.device == "default")
        #expect(c.snooze == 540)
        #expect(c.ring == 600)
        #expect(c.grace == 600)
        #expect(c.fifoPath == "/run/alarm/control")
        #expect(c.statusPath == "/run/alarm/status.json")
    }

    @Test("every setting the parser knows is in alarm.conf(5) and in the example config")
    func everyKeyIsDocumented() throws {
        var message = ""
        do { _ = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("no_such_key = 1\n")]) } catch {
            message = "\(error)"
        }
        let list = try #require(
            message.range(of: "(known: ").map { message[$0.upperBound...] }, "no list of keys in: \(message)")
        let keys = list.prefix { $0 != ")" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(keys.count >= 25, "\(keys)")
        // The checkout: where this file was compiled, else the working directory (the arm64 suite
        // is compiled in a root where the checkout is /src, and run from the checkout).
        var repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: repo.appendingPathComponent("man/alarm.conf.5").path) {
            repo = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        }
        let manual = try String(contentsOf: repo.appendingPathComponent("man/alarm.conf.5"), encoding: .utf8)
        let example = try String(contentsOf: repo.appendingPathComponent("etc/alarm.conf"), encoding: .utf8)
        for key in keys {
            #expect(manual.contains(".BI \"\(key) = \""), "man/alarm.conf.5 does not describe \(key)")
            #expect(example.contains("#\(key) = "), "etc/alarm.conf does not show \(key)")
        }
    }

    @Test("a flag beats the environment, which beats the file")
    func precedence() throws {
        let file = try tempFile("device = hw:1\nstate_dir = /from/file\nsnooze = 5m # short\n")
        let env = [
            "ALARM_CONFIG": file, "ALARM_STATE_DIR": "/from/env", "ALARM_DEVICE": "pulse", "ALARM_SOUNDS_DIR": "/a:/b",
        ]
        let c = try Configuration.resolve(flags: .init(device: "plughw:0,0"), environment: env)
        #expect(c.device == "plughw:0,0")
        #expect(c.stateDir == "/from/env")
        #expect(c.snooze == 300)
        #expect(c.soundsDirs == ["/a", "/b"])
        let d = try Configuration.resolve(environment: ["ALARM_CONFIG": file])
        #expect(d.device == "hw:1")
        #expect(d.stateDir == "/from/file")
    }

    @Test("holidays: none by default; a relative path is read next to the config file")
    func holidaysSetting() throws {
        #expect(try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")]).holidays == nil)
        let file = try tempFile("holidays = feiertage.ics\n")
        let dir = (file as NSString).deletingLastPathComponent
        #expect(try Configuration.resolve(environment: ["ALARM_CONFIG": file]).holidays == dir + "/feiertage.ics")
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("holidays = /etc/alarm/holidays.txt")])
                .holidays
                == "/etc/alarm/holidays.txt")
    }

    @Test("a holidays file that cannot be used is a problem naming the file, the line and the reason")
    func holidaysFileProblems() throws {
        let good = try tempFile("2026-12-25 Christmas\n")
        #expect(try HolidaysFile.load(good).holiday(on: CivilTime(year: 2026, month: 12, day: 25)) == "Christmas")
        let bad = try tempFile("2026-12-25 Christmas\n2026-02-31 nope\n")
        #expect(throws: HolidaysFile.Problem.self) { try HolidaysFile.load(bad) }
        do { _ = try HolidaysFile.load(bad) } catch {
            #expect("\(error)" == "holidays file \(bad): line 2: '2026-02-31' is not a date: February 2026 has 28 days")
        }
        do { _ = try HolidaysFile.load("/nonexistent/holidays.ics") } catch {
            #expect("\(error)".contains("does not exist"))
        }
    }

    @Test("mixer_floor and mixer_control: 50 % and the card's first control by default; 0 turns the floor off")
    func mixerSettings() throws {
        let d = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(d.mixerFloor == 50)
        #expect(d.mixerControl == nil)
        let c = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile("mixer_floor = 70%\nmixer_control = Speaker\n")
        ])
        #expect(c.mixerFloor == 70)
        #expect(c.mixerControl == "Speaker")
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("mixer-floor = 0")]).mixerFloor == 0)
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("mixer_floor = 35 %")]).mixerFloor
                == 35)
        for bad in ["101", "-1", "half", "50.5"] {
            let path = try tempFile("mixer_floor = \(bad)")
            #expect {
                try Configuration.resolve(environment: ["ALARM_CONFIG": path])
            } throws: { error in
                "\(error)".contains(
                    "line 1: mixer_floor must be a whole percentage 0..100 (0 turns the floor off), found '\(bad)'")
            }
        }
    }

    @Test("bad config files are refused with the file, line and what is wrong")
    func refusals() throws {
        for (text, fragment) in [
            ("snooze = 5", "line 1: snooze: invalid duration '5'"),
            ("\nvolume = 150", "line 2: volume must be a whole percentage"),
            ("colour = red", "unknown setting 'colour'"),
            ("snooze", "expected 'key = value'"),
        ] {
            let path = try tempFile(text)
            #expect {
                try Configuration.resolve(environment: ["ALARM_CONFIG": path])
            } throws: { error in
                "\(error)".contains(fragment) && "\(error)".contains(path)
            }
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: .init(config: "/nonexistent/alarm.conf"), environment: [:])
        }
    }

    @Test("issue #11 keys: preflight (0 is off), fallback_command (the rest of the line), mixer_floor, mixer_control")
    func checkKeys() throws {
        let defaults = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(defaults.preflight == 600 && defaults.fallbackCommand == nil)
        #expect(defaults.mixerFloor == 50 && defaults.mixerControl == nil)
        let c = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile(
                "preflight = 5s\nfallback_command = /usr/local/bin/buzz --pin=17 >> /var/lib/alarm/buzz.log\nmixer_floor = 30 %\nmixer_control = Speaker\n"
            )
        ])
        #expect(c.preflight == 5)
        #expect(c.fallbackCommand == "/usr/local/bin/buzz --pin=17 >> /var/lib/alarm/buzz.log")
        #expect(c.mixerFloor == 30 && c.mixerControl == "Speaker")
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("preflight = 0\nmixer_floor = 0")])
                .preflight == 0)
        for (text, fragment) in [
            ("preflight = soon", "preflight: invalid duration"), ("mixer_floor = 120", "mixer_floor must be"),
        ] {
            let path = try tempFile(text)
            #expect { try Configuration.resolve(environment: ["ALARM_CONFIG": path]) } throws: {
                "\($0)".contains(fragment)
            }
        }
    }

    @Test(
        "alarm-web keys: web_hosts (names, commas or blanks), web_connections_per_address (16), web_connections (512)")
    func webKeys() throws {
        let defaults = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(defaults.webHosts.isEmpty && defaults.webConnectionsPerAddress == 16 && defaults.webConnections == 512)
        let d = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile(
                "web_hosts = clock.example.net, clock.lan\nweb_connections_per_address = 64\nweb_connections = 2000\n")
        ])
        #expect(d.webHosts == ["clock.example.net", "clock.lan"])
        #expect(d.webConnectionsPerAddress == 64 && d.webConnections == 2000)
        // web_memory_limit (#31): 64 MiB by default; sizes as systemd writes them.
        #expect(defaults.webMemoryLimit == 64 << 20)
        for (text, bytes) in [("96M", 96 << 20), ("1G", 1 << 30), ("20000k", 20000 << 10), ("10485760", 10 << 20)] {
            let c = try Configuration.resolve(environment: [
                "ALARM_CONFIG": try tempFile("web_memory_limit = \(text)\n")
            ])
            #expect(c.webMemoryLimit == bytes, "\(text)")
        }
        for (text, fragment) in [
            ("web_hosts = evil/path", "web_hosts: 'evil/path'"), ("web_connections = 0", "web_connections: '0'"),
            ("web_connections_per_address = many", "web_connections_per_address: 'many'"),
            ("web_memory_limit = 4M", "web_memory_limit: '4M' is not a size from 8M up"),
            ("web_memory_limit = lots", "web_memory_limit: 'lots'"),
            ("web_memory_limit = 99999999999G", "web_memory_limit: '99999999999G'"),
        ] {
            let path = try tempFile(text)
            #expect { try Configuration.resolve(environment: ["ALARM_CONFIG": path]) } throws: {
                "\($0)".contains(fragment)
            }
        }
    }

    @Test("issue #30 keys: button_device (unset), button_keys (any: empty; names or codes), button_hold (2 s)")
    func buttonKeys() throws {
        let defaults = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(defaults.buttonDevice == nil && defaults.buttonKeys.isEmpty && defaults.buttonHold == 2)
        let c = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile(
                "button_device = /dev/input/by-path/platform-button@11-event\nbutton_keys = KEY_ENTER, 256\nbutton_hold = 1.5s\n"
            )
        ])
        #expect(c.buttonDevice == "/dev/input/by-path/platform-button@11-event")
        #expect(c.buttonKeys == [28, 256])
        #expect(c.buttonHold == 1.5)
        #expect(
            try Configuration.resolve(environment: [
                "ALARM_CONFIG": try tempFile("button_device = QEMU QEMU USB Keyboard\n")
            ]).buttonDevice == "QEMU QEMU USB Keyboard")
        for (text, fragment) in [
            ("button_keys = KEY_ENTER, banana", "line 1: button_keys: 'banana' is not a key"),
            ("button_hold = soon", "line 1: button_hold"), ("button_hold = 2m", "longer than a minute"),
        ] {
            let path = try tempFile(text)
            #expect { try Configuration.resolve(environment: ["ALARM_CONFIG": path]) } throws: {
                "\($0)".contains(fragment)
            }
        }
    }

    @Test(
        "issue #13 keys: hooks_dir (ALARM_HOOKS_DIR beats it), hook_timeout (10 s by default, a duration); the event log's path"
    )
    func hookKeys() throws {
        let defaults = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(defaults.hooksDir == "/etc/alarm/hooks.d" && defaults.hookTimeout == 10)
        #expect(defaults.eventsPath == "/run/alarm/events.jsonl")
        let file = try tempFile("hooks_dir = /srv/hooks\nhook_timeout = 1m30s\n")
        let c = try Configuration.resolve(environment: ["ALARM_CONFIG": file])
        #expect(c.hooksDir == "/srv/hooks" && c.hookTimeout == 90)
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": file, "ALARM_HOOKS_DIR": "/tmp/h"]).hooksDir
                == "/tmp/h")
        for (text, fragment) in [
            ("hook_timeout = 0s", "hook_timeout: invalid duration '0s'"),
            ("hook_timeout = soon", "hook_timeout: invalid duration"),
        ] {
            let path = try tempFile(text)
            #expect { try Configuration.resolve(environment: ["ALARM_CONFIG": path]) } throws: {
                "\($0)".contains(fragment)
            }
        }
    }

    @Test("issue #13 ringing keys: volume_from (0), max_snoozes (unlimited, a number), when_ignored (snooze, silence)")
    func ringingKeys() throws {
        let d = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(d.volumeFrom == 0)
        #expect(d.maxSnoozes == .unlimited)
        #expect(d.whenIgnored == .snooze)
        let c = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile("volume_from = 20%\nmax_snoozes = 3\nwhen_ignored = silence\n")
        ])
        #expect(c.volumeFrom == 20)
        #expect(c.maxSnoozes == .limited(3))
        #expect(c.whenIgnored == .silence)
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("max_snoozes = unlimited\n")])
                .maxSnoozes == .unlimited)
        for bad in ["max_snoozes = many", "when_ignored = stop", "volume_from = 120"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile(bad + "\n")])
            }
        }
    }
}

extension ConfigurationTests {
    @Test("issue #43 keys: sound (a file, a list, '*' or a stream URL), stream_timeout (5 s), stream_socket")
    func streamKeys() throws {
        let d = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("")])
        #expect(d.sound == nil)
        #expect(d.streamTimeout == 5)
        #expect(d.streamSocket == "/run/alarm-stream/socket")
        let c = try Configuration.resolve(environment: [
            "ALARM_CONFIG": try tempFile(
                "sound = http://radio.example:8000/live.mp3\nstream_timeout = 8s\nstream_socket = /tmp/s/socket\n")
        ])
        #expect(c.sound == "http://radio.example:8000/live.mp3")
        #expect(c.streamTimeout == 8)
        #expect(c.streamSocket == "/tmp/s/socket")
        #expect(
            try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile("sound = a.wav, b.flac\n")]).sound
                == "a.wav, b.flac")
        let refused: [(String, String)] = [
            ("sound = ftp://radio.example/a.mp3", "only http and https streams are played"),
            ("sound = http://radio.example/a b.mp3", "cannot contain spaces"),
            ("sound = ../a.wav", "contains '/'"),
            ("stream_timeout = 0", "stream_timeout"),
            ("stream_timeout = 2m", "between 1s and 60s"),
            ("stream_socket = run/socket", "absolute path"),
        ]
        for (line, words) in refused {
            do {
                _ = try Configuration.resolve(environment: ["ALARM_CONFIG": try tempFile(line + "\n")])
                Issue.record("'\(line)' was taken")
            } catch {
                #expect("\(error)".contains(words), "\(line): \(error)")
            }
        }
    }

    @Test("SoundSpec: what --sound, the config and alarm-web take, and --fallback-sound's single name")
    func soundSpec() {
        #expect(SoundSpec.problem("https://r.example/live.ogg") == nil)
        #expect(SoundSpec.problem("chime.flac") == nil)
        #expect(SoundSpec.problem("*") == nil)
        #expect(SoundSpec.problem("ftp://r.example/a")?.contains("not 'ftp'") == true)
        #expect(SoundSpec.problem(" , ")?.contains("no sound named") == true)
        #expect(SoundSpec.fallbackProblem("chime.flac") == nil)
        #expect(SoundSpec.fallbackProblem("a.wav,b.wav")?.contains("must be one sound file name") == true)
        #expect(SoundSpec.fallbackProblem("http://r.example/a")?.contains("must be one sound file name") == true)
        #expect(SoundSpec.fallbackProblem("../x.wav")?.contains("contains '/'") == true)
    }
}

@Suite("AlarmStore and a state directory that does not exist yet")
struct StoreDirectoryTests {
    @Test("the first add creates the state directory instead of failing on its lock file")
    func createsDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = AlarmStore(stateDir: root + "/a/b/state")
        #expect(try store.load().isEmpty)
        _ = try store.add(Alarm(id: "x", trigger: .calendar(try CalendarExpression("07:00"))))
        #expect(try store.load().map(\.id) == ["x"])
    }
}

import AlarmCore
import AlarmState
import Foundation
import Testing

/// The config file's drop-ins (issue #41): `FILE.d/*.conf` after the file, in name order, the
/// later winning, as systemd's; and where each setting came from (`alarm config`).
@Suite("Configuration: drop-ins in alarm.conf.d, and where each setting came from")
struct DropInTests {
    /// A config file and its drop-in directory in a temporary directory, removed at the end.
    final class Dir: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-dropins-" + UUID().uuidString
        var conf: String { root + "/alarm.conf" }
        var dropIns: String { conf + ".d" }
        init() throws { try FileManager.default.createDirectory(atPath: dropIns, withIntermediateDirectories: true) }
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: name.hasPrefix("/") ? name : dropIns + "/" + name, atomically: true, encoding: .utf8)
        }
        func resolve(
            _ environment: [String: String] = [:], flags: Configuration.Flags = .init()
        ) throws
            -> Configuration
        {
            try Configuration.resolve(flags: flags, environment: ["ALARM_CONFIG": conf].merging(environment) { $1 })
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("the file, then each *.conf of FILE.d in name order: the later wins, other files are ignored")
    func laterWins() throws {
        let d = try Dir()
        try d.write(d.conf, "snooze = 5m\nvolume = 40\n")
        try d.write("20-b.conf", "# the second\nsnooze = 8m\ndevice = hw:CARD=B\n")
        try d.write("10-a.conf", "snooze = 7m\nring = 3m\n")
        try d.write("30-notes.txt", "this is not a setting\n")
        try d.write(".40-hidden.conf", "snooze = 1m\n")
        try d.write("50-old.conf.dpkg-old", "snooze = 2m\n")
        try FileManager.default.createDirectory(atPath: d.dropIns + "/60-dir.conf", withIntermediateDirectories: true)
        let c = try d.resolve()
        #expect(c.snooze == 8 * 60)
        #expect(c.ring == 3 * 60)
        #expect(c.volume == 40)
        #expect(c.device == "hw:CARD=B")
        #expect(c.origins["snooze"] == d.dropIns + "/20-b.conf:2")
        #expect(c.origins["ring"] == d.dropIns + "/10-a.conf:2")
        #expect(c.origins["volume"] == d.conf + ":2")
        #expect(c.origins["grace"] == nil)
    }

    @Test("name order is byte order, as systemd's: 10 before 9, upper case before lower")
    func byteOrder() throws {
        let d = try Dir()
        for (name, dev) in [("a.conf", "a"), ("A.conf", "A"), ("9-x.conf", "9"), ("10-x.conf", "10")] {
            try d.write(name, "device = \(dev)\n")
        }
        #expect(
            try Configuration.dropInPaths(for: d.conf).map { ($0 as NSString).lastPathComponent } == [
                "10-x.conf", "9-x.conf", "A.conf", "a.conf",
            ])
        #expect(try d.resolve().device == "a")
    }

    @Test("drop-ins without the file: read; a named file with neither is an error")
    func noMainFile() throws {
        let d = try Dir()
        #expect(throws: ConfigurationError.self) { try d.resolve() }
        try d.write("50-button.conf", "button_hold = 3s\n")
        let c = try d.resolve()
        #expect(c.buttonHold == 3)
        #expect(c.origins["button_hold"] == d.dropIns + "/50-button.conf:1")
    }

    @Test("an unknown key or a bad value in a drop-in names that file and line")
    func errorsNameTheDropIn() throws {
        let d = try Dir()
        try d.write(d.conf, "snooze = 5m\n")
        try d.write("10-ok.conf", "volume = 50\n")
        try d.write("20-typo.conf", "\n# a comment\nsnoze = 5m\n")
        do {
            _ = try d.resolve()
            Issue.record("a drop-in's unknown key was accepted")
        } catch let e as ConfigurationError {
            #expect(e.path == d.dropIns + "/20-typo.conf")
            #expect(e.line == 3)
            #expect(e.message.contains("unknown setting 'snoze'"), "\(e)")
        }
        // Every problem of every file, for alarm config.
        try d.write("30-bad.conf", "volume = loud\nring = 2m\nmixer_floor = 200\n")
        let problems = Configuration.problems(environment: ["ALARM_CONFIG": d.conf])
        #expect(
            problems.map { "\(($0.path as NSString).lastPathComponent):\($0.line ?? 0)" } == [
                "20-typo.conf:3", "30-bad.conf:1", "30-bad.conf:3",
            ])
        // A config the commands that must work anyway (stop, snooze) still resolve without it.
        let (lenient, problem) = Configuration.resolveLeniently(environment: ["ALARM_CONFIG": d.conf])
        #expect(problem != nil)
        #expect(lenient.snooze == 9 * 60)
    }

    @Test("a relative holidays path in a drop-in is read from the config file's directory")
    func relativePaths() throws {
        let d = try Dir()
        try d.write("50-holidays.conf", "holidays = holidays.ics\n")
        #expect(try d.resolve().holidays == d.root + "/holidays.ics")
        try d.write(d.conf, "holidays = days.txt\n")
        try FileManager.default.removeItem(atPath: d.dropIns + "/50-holidays.conf")
        #expect(try d.resolve().holidays == d.root + "/days.txt")
    }

    @Test("the environment and options win over the files, and say so")
    func environmentAndOptions() throws {
        let d = try Dir()
        try d.write("10.conf", "device = hw:1\nstate_dir = /srv/alarm\n")
        let c = try d.resolve(["ALARM_DEVICE": "hw:2"], flags: .init(stateDir: "/tmp/s"))
        #expect(c.device == "hw:2")
        #expect(c.origins["device"] == "environment ALARM_DEVICE")
        #expect(c.stateDir == "/tmp/s")
        #expect(c.origins["state_dir"] == "option --state-dir")
        let listed = Dictionary(uniqueKeysWithValues: c.effectiveSettings().map { ($0.key, ($0.value, $0.source)) })
        #expect(listed["device"]?.0 == "hw:2")
        #expect(listed["snooze"]?.0 == "9m")
        #expect(listed["snooze"]?.1 == "default")
        #expect(listed["mixer_control"]?.0 == nil)
    }

    @Test("every setting alarm config lists is one the parser takes, its default written back unchanged")
    func settingsRoundTrip() throws {
        let d = try Dir()
        let defaults = Configuration().effectiveSettings()
        #expect(defaults.count == Set(defaults.map(\.key)).count, "a key listed twice")
        var lines = ""
        for s in defaults { if let v = s.value { lines += "\(s.key) = \(v)\n" } }
        try d.write(d.conf, lines)
        let back = try d.resolve()
        for (a, b) in zip(defaults, back.effectiveSettings()) {
            #expect(a.key == b.key)
            #expect(a.value == b.value, "\(a.key): written \(a.value ?? "nil"), read back \(b.value ?? "nil")")
            if a.value != nil { #expect(b.source.hasPrefix(d.conf + ":"), "\(a.key): \(b.source)") }
        }
        #expect(back == Configuration.withConfigPath(d.conf))
    }
}

extension Configuration {
    fileprivate static func withConfigPath(_ path: String) -> Configuration {
        var c = Configuration()
        c.configPath = path
        c.localtimeIsExplicit = true
        return c
    }
}

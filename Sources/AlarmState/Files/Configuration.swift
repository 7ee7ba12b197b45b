import AlarmCore
import AlarmSystem
import FoundationEssentials

/// Where things live and the defaults alarms fall back on. Both programs resolve it the same
/// way, each setting from the first of: a command-line flag, an environment variable, the config
/// file, the built-in default.
public struct Configuration: Equatable, Sendable {
    /// Alarms, persisted ring/snooze state, history (`--state-dir`, `ALARM_STATE_DIR`).
    public var stateDir = "/var/lib/alarm"
    /// The FIFO `control` and `status.json` (`--runtime-dir`, `ALARM_RUNTIME_DIR`).
    public var runtimeDir = "/run/alarm"
    /// Sound directories in lookup order (`--sounds-dir`, `ALARM_SOUNDS_DIR`, colon-separated);
    /// nil means the installed sounds, then `sounds/` in the state directory.
    public var soundsDirs: [String]? = nil
    /// The ALSA PCM (`--device`, `ALARM_DEVICE`).
    public var device = "default"
    /// The config file (`--config`, `ALARM_CONFIG`).
    public var configPath = Configuration.defaultConfigPath
    /// The zone file watched for zone changes (`--localtime`, `ALARM_LOCALTIME`).
    public var localtimePath = "/etc/localtime"
    /// True when the zone file was set by flag, environment or config file (then `TZ` is ignored).
    public var localtimeIsExplicit = false
    /// The group allowed to write the FIFO (config `fifo_group`); nil keeps the daemon's group.
    public var fifoGroup: String? = nil
    /// Alarm defaults: snooze length, ring length before auto-silence, volume (percent),
    /// fade-in, and how late a missed occurrence may still ring.
    public var snooze: TimeInterval = 9 * 60
    public var ring: TimeInterval = 10 * 60
    public var volume = 100
    public var fadeIn: TimeInterval = 0
    public var grace: TimeInterval = 10 * 60
    /// Issue #13: the volume the fade-in starts at (`volume_from`, percent), the snooze limit
    /// (`max_snoozes`, a number or `unlimited`), and what a ring nobody answers does
    /// (`when_ignored`, `snooze` or `silence`; see `WhenIgnored` for why `snooze`).
    public var volumeFrom = 0
    public var maxSnoozes: SnoozeLimit = .unlimited
    public var whenIgnored: WhenIgnored = .snooze
    /// Issue #43: the pre-alarm leads of every alarm without its own `--pre-alarm` (`pre_alarm`,
    /// `DURATION[,DURATION…]`, each at most 24h; `none`: no pre-alarm). Nil: none.
    public var preAlarm: PreAlarmLeads? = nil
    /// How long before each ring alarmd runs the checks of `alarm check` (config `preflight`);
    /// 0 turns them off.
    public var preflight: TimeInterval = 10 * 60
    /// Run through `/bin/sh -c` when no ALSA device can play while an alarm should ring (config
    /// `fallback_command`): a GPIO buzzer, a smart plug. Nil: none.
    public var fallbackCommand: String? = nil
    /// The volume floor in percent (config `mixer_floor`, 0 turns it off): when a ring starts,
    /// the card's playback control is unmuted and raised to it if lower, and put back after.
    public var mixerFloor = 50
    /// The mixer control the floor applies to (config `mixer_control`: `Master`, or `Master,1`
    /// for index 1); nil: the card's first playback volume control (Master, PCM, Speaker, …).
    public var mixerControl: String? = nil
    /// The holidays file (config `holidays`, issue #12): dates, ranges or an iCalendar file whose
    /// days alarms added with `--skip-holidays` do not ring on. A relative path is read from the
    /// config file's directory. Nil: no holidays.
    public var holidays: String? = nil

    /// The executables `alarm-hooks` runs for each event (config `hooks_dir`, `ALARM_HOOKS_DIR`).
    public var hooksDir = "/etc/alarm/hooks.d"
    /// How long one hook may run before it is killed (config `hook_timeout`).
    public var hookTimeout: TimeInterval = 10
    /// Issue #43: what an alarm without its own `--sound` plays (config `sound`): a sound file
    /// name, a comma-separated list, `*` or an http/https stream. Nil: the default tone.
    public var sound: String? = nil
    /// Issue #43: how long a stream may give no audio, at a ring's start or in its course, before
    /// the fallback plays (config `stream_timeout`, 1 s to 60 s).
    public var streamTimeout: TimeInterval = 5
    /// Issue #43: alarm-stream's socket, through which alarmd and `alarm check` get a stream's
    /// decoded audio (config `stream_socket`, an absolute path).
    public var streamSocket = "/run/alarm-stream/socket"
    /// Where alarm-web listens (config `web_listen`, `HOST:PORT`): loopback unless set.
    public var webListen = "127.0.0.1:8475"
    /// alarm-web's access token (config `web_token_file`).
    public var webTokenPath = "/etc/alarm/web-token"
    /// Names alarm-web answers to besides its addresses, `localhost` and the host name (config
    /// `web_hosts`, separated by commas or blanks: `alarm.example.net, clock.lan`). A request
    /// that calls it by any other name is refused (DNS rebinding).
    public var webHosts: [String] = []
    /// How many connections one client address may hold open to alarm-web (config
    /// `web_connections_per_address`; raise it behind a reverse proxy that funnels every client
    /// through one address) and how many all clients together (`web_connections`).
    public var webConnectionsPerAddress = 16
    public var webConnections = 512
    /// alarm-web's own bound on its resident memory, in bytes: past it, it closes connections
    /// (the owner's last) and gives freed memory back, so the unit's MemoryMax is a backstop.
    public var webMemoryLimit = 64 * 1024 * 1024
    /// alarm-button's input device (config `button_device`, issue #30): a path such as
    /// `/dev/input/by-path/platform-button@11-event`, or a device name as
    /// `/proc/bus/input/devices` shows it. Nil: the first device of the kernel's `gpio-keys`
    /// driver (the Raspberry Pi's `gpio-key` overlay).
    public var buttonDevice: String? = nil
    /// The key codes that count as the button (config `button_keys`: `KEY_ENTER, 256`); empty:
    /// any key of the device.
    public var buttonKeys: Set<Int> = []
    /// How long a press must be held to stop the alarm (config `button_hold`); shorter snoozes.
    public var buttonHold: TimeInterval = 2
    /// Where each setting that is not its default came from (`alarm config`): `FILE:LINE`,
    /// `environment NAME` or `option --name`, by key. Not part of equality.
    public var origins = Origins()

    public static let defaultConfigPath = "/etc/alarm/alarm.conf"

    public init() {}

    public var alarmsPath: String { stateDir + "/alarms.json" }
    public var fifoPath: String { runtimeDir + "/control" }
    public var statusPath: String { runtimeDir + "/status.json" }
    /// What alarmd did, one JSON object per line, for `alarm watch` and hooks (`EventLog`).
    public var eventsPath: String { runtimeDir + "/events.jsonl" }
    /// Held (flock) by the running alarmd: one daemon per runtime directory, and the sign that
    /// one runs for a user who may not write the FIFO (`alarm status`).
    public var daemonLockPath: String { runtimeDir + "/alarmd.lock" }

    /// Values given on the command line; nil where the flag was not given.
    public struct Flags: Sendable {
        public var stateDir: String?
        public var runtimeDir: String?
        public var soundsDir: String?
        public var device: String?
        public var config: String?
        public var localtime: String?
        public init(
            stateDir: String? = nil, runtimeDir: String? = nil, soundsDir: String? = nil, device: String? = nil,
            config: String? = nil, localtime: String? = nil
        ) {
            self.stateDir = stateDir
            self.runtimeDir = runtimeDir
            self.soundsDir = soundsDir
            self.device = device
            self.config = config
            self.localtime = localtime
        }
    }

    /// Resolves every setting. A config file named by flag or environment must exist; the
    /// default one may be absent. Throws `ConfigurationError` naming the file, line and key.
    public static func resolve(
        flags: Flags = Flags(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Configuration {
        var c = Configuration()
        func pick(_ flag: String?, _ env: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            if let v = environment[env], !v.isEmpty { return v }
            return nil
        }
        /// Where a flag's or variable's value came from, for `alarm config`.
        func origin(_ flag: String?, _ option: String, _ env: String) -> String {
            if let flag, !flag.isEmpty { return "option --\(option)" }
            return "environment \(env)"
        }
        let explicitConfig = pick(flags.config, "ALARM_CONFIG")
        c.configPath = explicitConfig ?? defaultConfigPath
        for path in try files(of: c.configPath, named: explicitConfig != nil) {
            try c.apply(file: path, base: c.configPath)
        }
        if let v = pick(flags.stateDir, "ALARM_STATE_DIR") {
            c.stateDir = v
            c.origins["state_dir"] = origin(flags.stateDir, "state-dir", "ALARM_STATE_DIR")
        }
        if let v = pick(flags.runtimeDir, "ALARM_RUNTIME_DIR") {
            c.runtimeDir = v
            c.origins["runtime_dir"] = origin(flags.runtimeDir, "runtime-dir", "ALARM_RUNTIME_DIR")
        }
        if let v = pick(flags.soundsDir, "ALARM_SOUNDS_DIR") {
            c.soundsDirs = v.split(separator: ":").map(String.init)
            c.origins["sounds_dir"] = origin(flags.soundsDir, "sounds-dir", "ALARM_SOUNDS_DIR")
        }
        if let v = pick(flags.device, "ALARM_DEVICE") {
            c.device = v
            c.origins["device"] = origin(flags.device, "device", "ALARM_DEVICE")
        }
        if let v = pick(nil, "ALARM_HOOKS_DIR") {
            c.hooksDir = v
            c.origins["hooks_dir"] = "environment ALARM_HOOKS_DIR"
        }
        if let v = pick(flags.localtime, "ALARM_LOCALTIME") {
            c.localtimePath = v
            c.localtimeIsExplicit = true
            c.origins["localtime"] = origin(flags.localtime, "localtime", "ALARM_LOCALTIME")
        }
        return c
    }

    /// Like `resolve`, but a config file that cannot be used is skipped (flags, environment and
    /// defaults still apply) and its error returned, for commands that must work even then:
    /// a typo in the config file must never keep anyone from stopping a ringing alarm.
    public static func resolveLeniently(
        flags: Flags = Flags(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (Configuration, ConfigurationError?) {
        do {
            return (try resolve(flags: flags, environment: environment), nil)
        } catch let error as ConfigurationError {
            var noFile = flags
            noFile.config = "/dev/null"
            let fallback = (try? resolve(flags: noFile, environment: environment)) ?? Configuration()
            return (fallback, error)
        } catch {
            return (Configuration(), ConfigurationError(path: "?", line: nil, message: "\(error)"))
        }
    }

    /// Reads `key = value` lines; `#` starts a comment. Keys: snooze, ring, volume, volume_from,
    /// fade_in, max_snoozes, when_ignored, pre_alarm, grace, device, sounds_dir, state_dir, runtime_dir,
    /// fifo_group, localtime, preflight, fallback_command, mixer_floor, mixer_control, hooks_dir,
    /// hook_timeout, sound, stream_timeout, stream_socket, holidays, web_listen, web_token_file,
    /// web_hosts, web_connections, web_connections_per_address,
    /// button_device, button_keys, button_hold.
    mutating func apply(file path: String, base: String? = nil) throws {
        var errors: [ConfigurationError]? = nil
        try apply(file: path, base: base, collecting: &errors)
    }

    /// As `apply(file:)`; with `collecting` non-nil, a bad line is added to it and the rest of
    /// the file still read (`alarm config` names every problem, not only the first). `base`: the
    /// file relative paths are read beside (a drop-in's are the config file's), else `path`.
    mutating func apply(
        file path: String, base: String? = nil, collecting errors: inout [ConfigurationError]?
    )
        throws
    {
        // Plain open and read: /dev/null (no config) works too.
        guard let bytes = try? AtomicFile.read(path) else {
            throw ConfigurationError(path: path, line: nil, message: "cannot be opened for reading")
        }
        guard bytes.count <= 64 * 1024, let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(path: path, line: nil, message: "is not a UTF-8 text file of at most 64 KiB")
        }
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line =
                raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingBlanks()
            if trimmed.isEmpty { continue }
            do {
                try apply(line: trimmed, number: n + 1, of: path, base: base ?? path)
            } catch let error as ConfigurationError where errors != nil {
                errors?.append(error)
            }
        }
    }

    /// One `key = value` line (comment and blanks already trimmed away) of the file `path`.
    private mutating func apply(line trimmed: String, number: Int, of path: String, base: String) throws {
        let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
        func fail(_ m: String) -> ConfigurationError { ConfigurationError(path: path, line: number, message: m) }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw fail("expected 'key = value', found '\(trimmed)'")
        }
        let (key, value) = (parts[0].lowercased().replacing("-", with: "_"), parts[1])
        func duration() throws -> TimeInterval {
            do { return try Durations.parse(value) } catch { throw fail("\(key): \(error)") }
        }
        switch key {
        case "snooze": snooze = try duration()
        case "ring": ring = try duration()
        case "grace": grace = try duration()
        case "fade_in":
            fadeIn = value == "0" ? 0 : try duration()
        case "volume":
            guard let v = Self.percent(value) else {
                throw fail("volume must be a whole percentage 0..100, found '\(value)'")
            }
            volume = v
        case "volume_from":
            guard let v = Self.percent(value) else {
                throw fail("volume_from must be a whole percentage 0..100, found '\(value)'")
            }
            volumeFrom = v
        case "max_snoozes":
            do { maxSnoozes = try SnoozeLimit.parse(value) } catch { throw fail("\(error)") }
        case "when_ignored":
            do { whenIgnored = try WhenIgnored.parse(value) } catch { throw fail("\(error)") }
        case "pre_alarm":
            if value.lowercased() == "none" {
                preAlarm = nil
            } else {
                do { preAlarm = try PreAlarmLeads.parse(value) } catch { throw fail("\(error)") }
            }
        case "mixer_floor":
            guard let v = Self.percent(value) else {
                throw fail(
                    "mixer_floor must be a whole percentage 0..100 (0 turns the floor off), found '\(value)'")
            }
            mixerFloor = v
        case "mixer_control": mixerControl = value
        case "device": device = value
        case "sounds_dir": soundsDirs = value.split(separator: ":").map(String.init)
        case "state_dir": stateDir = value
        case "runtime_dir": runtimeDir = value
        case "fifo_group": fifoGroup = value
        case "localtime":
            localtimePath = value
            localtimeIsExplicit = true
        case "preflight":
            preflight = value == "0" ? 0 : try duration()
        case "fallback_command": fallbackCommand = value
        case "hooks_dir": hooksDir = value
        case "hook_timeout": hookTimeout = try duration()
        case "sound":
            if value.lowercased() == "default" {
                sound = nil
            } else {
                if let problem = SoundSpec.problem(value) { throw fail("sound: \(problem)") }
                sound = value
            }
        case "stream_timeout":
            let t = try duration()
            guard t >= 1, t <= 60 else {
                throw fail("stream_timeout must be between 1s and 60s, found '\(value)'")
            }
            streamTimeout = t
        case "stream_socket":
            guard value.hasPrefix("/"), value.utf8.count <= 107 else {
                throw fail("stream_socket must be an absolute path of at most 107 bytes, found '\(value)'")
            }
            streamSocket = value
        case "holidays":
            if value.hasPrefix("/") {
                holidays = value
            } else {
                let dir = base.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
                    separator: "/")
                holidays = (dir.isEmpty ? (base.hasPrefix("/") ? "" : ".") : dir) + "/" + value
            }
        case "web_listen": webListen = value
        case "web_token_file": webTokenPath = value
        case "web_connections_per_address", "web_connections":
            guard let n = Int(value), (1...65536).contains(n) else {
                throw fail("\(key): '\(value)' is not a number from 1 to 65536")
            }
            if key == "web_connections" { webConnections = n } else { webConnectionsPerAddress = n }
        case "web_memory_limit":
            guard let bytes = Self.byteSize(value), bytes >= 8 * 1024 * 1024, bytes <= 1 << 40 else {
                throw fail("web_memory_limit: '\(value)' is not a size from 8M up (bytes, or with K, M or G)")
            }
            webMemoryLimit = bytes
        case "web_hosts":
            webHosts = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
            for h in webHosts
            where h.contains(where: {
                !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":"))
            }) {
                throw fail("web_hosts: '\(h)' is not a host name or address")
            }
        case "button_device": buttonDevice = value
        case "button_keys":
            do { buttonKeys = try KeyCodes.parseList(value) } catch { throw fail("button_keys: \(error)") }
        case "button_hold":
            let hold = try duration()
            guard hold <= 60 else { throw fail("button_hold: \(value) is longer than a minute") }
            buttonHold = hold
        default:
            throw fail(
                "unknown setting '\(parts[0])' (known: \(Self.settings.map(\.key).joined(separator: ", ")))"
            )
        }
        origins[key] = "\(path):\(number)"
    }

    /// `50` or `50%` (a space before `%` too) in 0...100.
    static func percent(_ text: String) -> Int? {
        let digits = text.hasSuffix("%") ? String(text.dropLast()).trimmingBlanks() : text
        guard let v = Int(digits), (0...100).contains(v) else { return nil }
        return v
    }

    /// A size as systemd writes one: bytes, or a number with K, M or G (powers of 1024).
    static func byteSize(_ text: String) -> Int? {
        guard let last = text.last else { return nil }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let scale = units[Character(last.uppercased())]
        guard let n = Int(scale == nil ? text : String(text.dropLast())), n >= 0 else { return nil }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: scale ?? 1)
        return overflow ? nil : bytes
    }
}

public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String
    public var description: String {
        "config file \(path)\(line.map { ", line \($0)" } ?? ""): \(message)"
    }
}

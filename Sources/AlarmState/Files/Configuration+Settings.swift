import AlarmCore
import AlarmSystem
import FoundationEssentials

/// The settings as a list (`alarm config`), the drop-in directory, and where each value came
/// from (issue #41).
extension Configuration {
    /// Where settings came from, by key (`FILE:LINE`, `environment NAME`, `option --name`). Two
    /// configurations with the same settings are equal wherever their settings came from.
    public struct Origins: Equatable, Sendable {
        var byKey: [String: String] = [:]
        public init() {}
        public subscript(key: String) -> String? {
            get { byKey[key] }
            set { byKey[key] = newValue }
        }
        public static func == (_: Origins, _: Origins) -> Bool { true }
    }

    /// One setting of the config file: its key and its effective value as the file would write
    /// it (nil: unset, and what applies then).
    public struct Setting: Sendable {
        public var key: String
        public var value: @Sendable (Configuration) -> String?
        /// What applies while the setting is unset (for settings with no default value).
        public var unset: String = ""
    }

    /// Every key the config file takes, in the order `alarm config` lists them; `apply` refuses
    /// any other. A new setting is added here and in `apply`, which a test checks against each
    /// other.
    public static let settings: [Setting] = [
        Setting(key: "snooze") { Durations.format($0.snooze) },
        Setting(key: "ring") { Durations.format($0.ring) },
        Setting(key: "volume") { "\($0.volume)" },
        Setting(key: "volume_from") { "\($0.volumeFrom)" },
        Setting(key: "fade_in") { $0.fadeIn == 0 ? "0" : Durations.format($0.fadeIn) },
        Setting(key: "max_snoozes") { $0.maxSnoozes.description },
        Setting(key: "when_ignored") { $0.whenIgnored.rawValue },
        Setting(key: "pre_alarm", value: { $0.preAlarm?.description }, unset: "none"),
        Setting(key: "sound", value: { $0.sound }, unset: "the default tone"),
        Setting(key: "stream_timeout") { Durations.format($0.streamTimeout) },
        Setting(key: "stream_socket") { $0.streamSocket },
        Setting(key: "grace") { Durations.format($0.grace) },
        Setting(key: "device") { $0.device },
        Setting(
            key: "sounds_dir", value: { $0.soundsDirs?.joined(separator: ":") },
            unset: "the installed sounds, then sounds/ in state_dir"),
        Setting(key: "state_dir") { $0.stateDir },
        Setting(key: "runtime_dir") { $0.runtimeDir },
        Setting(key: "fifo_group", value: { $0.fifoGroup }, unset: "the daemon's own group"),
        Setting(key: "localtime") { $0.localtimePath },
        Setting(key: "preflight") { $0.preflight == 0 ? "0" : Durations.format($0.preflight) },
        Setting(key: "fallback_command", value: { $0.fallbackCommand }, unset: "none"),
        Setting(key: "mixer_floor") { "\($0.mixerFloor)" },
        Setting(
            key: "mixer_control", value: { $0.mixerControl },
            unset: "the card's first playback volume control"),
        Setting(key: "hooks_dir") { $0.hooksDir },
        Setting(key: "hook_timeout") { Durations.format($0.hookTimeout) },
        Setting(key: "holidays", value: { $0.holidays }, unset: "no holidays"),
        Setting(key: "web_listen") { $0.webListen },
        Setting(key: "web_token_file") { $0.webTokenPath },
        Setting(
            key: "web_hosts", value: { $0.webHosts.isEmpty ? nil : $0.webHosts.joined(separator: ", ") },
            unset: "its addresses, localhost and the host name only"),
        Setting(key: "web_connections") { "\($0.webConnections)" },
        Setting(key: "web_connections_per_address") { "\($0.webConnectionsPerAddress)" },
        Setting(key: "web_memory_limit") { byteSizeText($0.webMemoryLimit) },
        Setting(
            key: "button_device", value: { $0.buttonDevice },
            unset: "the first gpio-keys device that sends one of button_keys, never a power button only"),
        Setting(
            key: "button_keys",
            value: {
                $0.buttonKeys.isEmpty ? nil : $0.buttonKeys.sorted().map(KeyCodes.name(of:)).joined(separator: ", ")
            },
            unset: "any key of the device"),
        Setting(key: "button_hold") { Durations.format($0.buttonHold) },
    ]

    /// The files a configuration is read from, in order: the config file `path`, then its
    /// drop-ins (FILE.d/*.conf in name order, the later winning), as systemd's, so that settings
    /// in a drop-in survive an upgrade that replaces the file. The file may be absent; one named
    /// (`named`: by --config or ALARM_CONFIG) with no drop-ins either is an error. `resolve` and
    /// `problems` read the same list.
    static func files(of path: String, named: Bool) throws -> [String] {
        let dropIns = try dropInPaths(for: path)
        if FileManager.default.fileExists(atPath: path) { return [path] + dropIns }
        if named && dropIns.isEmpty {
            throw ConfigurationError(path: path, line: nil, message: "the config file does not exist")
        }
        return dropIns
    }

    /// The drop-ins of the config file `path`: the regular files (or links to them) named
    /// `*.conf` in `path.d/`, in byte order of their names, as systemd orders its drop-ins. None
    /// when the directory does not exist; one that cannot be read is an error.
    public static func dropInPaths(for path: String) throws -> [String] {
        let dir = path + ".d"
        var isDir = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else { return [] }
        guard isDir else {
            throw ConfigurationError(path: dir, line: nil, message: "is not a directory (drop-ins go into it)")
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
            throw ConfigurationError(path: dir, line: nil, message: "cannot be listed: \(error)")
        }
        return
            names
            .filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { dir + "/" + $0 }
            .filter { p in
                var d = false
                return FileManager.default.fileExists(atPath: p, isDirectory: &d) && !d
            }
    }

    /// Each setting with its effective value and where it came from: `default`, `FILE:LINE`,
    /// `environment NAME` or `option --name`.
    public func effectiveSettings() -> [(key: String, value: String?, source: String, unset: String)] {
        Self.settings.map { s in
            (s.key, s.value(self), origins[s.key] ?? "default", s.unset)
        }
    }

    /// Every problem of the config file and its drop-ins, each line's, not only the first (for
    /// `alarm config`): the same files `resolve` reads.
    public static func problems(
        flags: Flags = Flags(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [ConfigurationError] {
        let explicit = [flags.config, environment["ALARM_CONFIG"]].compactMap { $0 }.first { !$0.isEmpty }
        let path = explicit ?? defaultConfigPath
        var errors: [ConfigurationError]? = []
        var scratch = Configuration()
        do {
            for p in try files(of: path, named: explicit != nil) {
                do { try scratch.apply(file: p, base: path, collecting: &errors) } catch let e as ConfigurationError {
                    errors?.append(e)
                }
            }
        } catch let e as ConfigurationError {
            errors?.append(e)
        } catch {
            errors?.append(ConfigurationError(path: path, line: nil, message: "\(error)"))
        }
        return errors ?? []
    }

    /// `64M`, as the file takes it (bytes, or K, M, G).
    static func byteSizeText(_ bytes: Int) -> String {
        for (unit, size) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes % size == 0 && bytes >= size {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}

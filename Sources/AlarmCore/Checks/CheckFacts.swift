import FoundationEssentials

/// What `alarm check` and alarmd's pre-flight found out about the system, as plain values: the
/// rules in `CheckRules` turn them into checks without any I/O, so each verdict can be tested with
/// made-up facts. Gathering them is `Preflight`'s job (AlarmDaemon).
public enum CheckFacts {
    /// Whether alarmd runs, and what its `status.json` says (nil when it wrote none yet).
    public enum Daemon: Equatable, Sendable {
        case notRunning(why: String)
        case running(EngineStatus?)
    }

    /// Which sound an alarm will play.
    public enum Sound: Equatable, Sendable {
        /// The alarm asks for the default tone.
        case defaultTone
        /// The chosen file resolves and decodes: `detail` says what it is ("WAV, 2.1 s").
        case plays(name: String, detail: String)
        /// The chosen file will not play (`problem` says why): the default tone rings instead.
        case replaced(name: String, problem: String)
        /// The stream (issue #43) gave no second of audio through alarm-stream (`problem` names
        /// the URL and why): at the ring its fallback plays.
        case streamFails(url: String, problem: String)
    }

    /// One device of the chain (the configured one, then `default`, then the first card), tried
    /// now without making a sound.
    public struct Device: Equatable, Sendable {
        public enum Result: Equatable, Sendable {
            /// It opened and took the clip's format. `card` is its sound card (index and name),
            /// nil for a device that is not one card (`pulse`, `null`).
            case opens(card: Card?)
            /// It exists but another program holds it (EBUSY).
            case busy(String)
            /// This user may not open it (EACCES / EPERM): says nothing about alarmd's access.
            case denied(String)
            case fails(String)
        }

        public struct Card: Equatable, Sendable {
            public var index: Int
            public var name: String
            public init(index: Int, name: String) {
                self.index = index
                self.name = name
            }
        }

        public var name: String
        public var result: Result
        public init(name: String, result: Result) {
            self.name = name
            self.result = result
        }
    }

    /// The card's playback mixer control, read through alsa-lib's mixer API.
    public enum Mixer: Equatable, Sendable {
        case reading(control: String, card: String, percent: Int, muted: Bool)
        /// Nothing to read: the device is not a card, or the card has no playback volume control.
        case none(String)
        /// It could not be read (`why`).
        case unreadable(String)
        /// No device opens, so there is no card to look at.
        case noDevice
    }

    /// The kernel's view of the system clock (`adjtimex`, `STA_UNSYNC`).
    public enum Clock: Equatable, Sendable {
        case synchronized(String)
        case unsynchronized(String)
        /// It could not be asked (`adjtimex` refused, as in alarmd's sandbox) and nothing else said.
        case unknown(String)
    }

    /// The state directory: whether it can be written, and the bytes free for an unprivileged user.
    public struct Storage: Equatable, Sendable {
        public enum Writable: Equatable, Sendable {
            case yes
            case no(String)
            /// Not this user's to write (a user outside the group): alarmd's own access is not known here.
            case notChecked(String)
        }

        public var directory: String
        public var writable: Writable
        public var freeBytes: Int64?
        public var freeError: String?

        public init(directory: String, writable: Writable, freeBytes: Int64?, freeError: String? = nil) {
            self.directory = directory
            self.writable = writable
            self.freeBytes = freeBytes
            self.freeError = freeError
        }
    }

    /// The system zone and the alarm's relation to zones.
    public struct Zones: Equatable, Sendable {
        /// The system zone's name, and whether it was read from the zone file (false: UTC by default).
        public var system: String
        public var systemKnown: Bool
        /// Where the system zone comes from (`/etc/localtime`, `TZ`).
        public var source: String
        public var mode: ZoneMode?
        /// The zone a pinned alarm names, and whether the tz database has it.
        public var pinned: String?
        public var pinnedKnown: Bool
        /// The UTC offset in force at the ring, in the alarm's zone ("+01:00").
        public var offset: String?

        public init(
            system: String, systemKnown: Bool, source: String, mode: ZoneMode?, pinned: String? = nil,
            pinnedKnown: Bool = true, offset: String? = nil
        ) {
            self.system = system
            self.systemKnown = systemKnown
            self.source = source
            self.mode = mode
            self.pinned = pinned
            self.pinnedKnown = pinnedKnown
            self.offset = offset
        }
    }
}

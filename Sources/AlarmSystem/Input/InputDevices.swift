import Glibc

/// The input devices the kernel knows (`/proc/bus/input/devices`), and which of them a
/// `button_device` setting names (issue #30).
public enum InputDevices {
    /// One device as `/proc/bus/input/devices` describes it.
    public struct Info: Equatable, Sendable {
        /// `N: Name="..."`.
        public var name: String
        /// `P: Phys=...` (`usb-0000:00:14.0-1/input0`, `gpio-keys/input0`); may be empty.
        public var phys: String
        /// `S: Sysfs=...` (`/devices/platform/button@11/input/input0`).
        public var sysfs: String
        /// `H: Handlers=...`: `kbd event0`, `sysrq kbd leds event3`.
        public var handlers: [String]
        /// Whether it reports keys or buttons at all (`B: EV=` has `EV_KEY`).
        public var hasKeys: Bool
        /// The key and button codes it can send (`B: KEY=`); empty when not listed.
        public var keys: Set<Int> = []

        /// `/dev/input/eventN`, when an evdev handler is attached.
        public var eventPath: String? {
            handlers.first { $0.hasPrefix("event") }.map { "/dev/input/" + $0 }
        }

        /// Made by the kernel's `gpio-keys` driver (the Raspberry Pi's `gpio-key` overlay).
        public var isGPIOKey: Bool {
            phys.hasPrefix("gpio-keys") || name.hasPrefix("gpio_keys") || name.hasPrefix("gpio-keys")
                || sysfs.contains("gpio-keys") || sysfs.contains("gpio_keys")
        }

        public init(
            name: String, phys: String = "", sysfs: String = "", handlers: [String], hasKeys: Bool = true,
            keys: Set<Int> = []
        ) {
            self.name = name
            self.phys = phys
            self.sysfs = sysfs
            self.handlers = handlers
            self.hasKeys = hasKeys
            self.keys = keys
        }
    }

    public static let procFile = "/proc/bus/input/devices"

    /// The devices listed in `procFile`; none when it cannot be read.
    public static func list(procFile: String = procFile) -> [Info] {
        guard let bytes = try? AtomicFile.read(procFile) else { return [] }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// Parses the text of `/proc/bus/input/devices`: blocks separated by blank lines, lines
    /// `X: Key=value`.
    public static func parse(_ text: String) -> [Info] {
        var out: [Info] = []
        var current: Info?
        func flush() {
            if let c = current { out.append(c) }
            current = nil
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty {
                flush()
                continue
            }
            guard line.count > 3, line.dropFirst().hasPrefix(": ") else { continue }
            if current == nil { current = Info(name: "", handlers: [], hasKeys: false) }
            let body = String(line.dropFirst(3))
            let (key, value) = body.split(separator: "=", maxSplits: 1).map(String.init).pair
            let tag: Character = line.first ?? " "
            switch (tag, key) {
            case ("N", "Name"):
                var v = value
                if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
                current?.name = v
            case ("P", "Phys"): current?.phys = value
            case ("S", "Sysfs"): current?.sysfs = value
            case ("H", "Handlers"): current?.handlers = value.split(separator: " ").map(String.init)
            case ("B", "EV"):
                // A hex mask; EV_KEY is bit 1.
                current?.hasKeys = (UInt64(value.trimmingCharacters(in: " "), radix: 16) ?? 0) & 0b10 != 0
            case ("B", "KEY"): current?.keys = keyBits(value)
            default: break
            }
        }
        flush()
        return out
    }

    /// The codes set in a `B: KEY=` bitmap: words of the kernel's `long` in hex, the highest
    /// first, separated by blanks (`10000000000000 0`: KEY_POWER, 116). Our builds are 64-bit,
    /// as are the kernels they run on.
    static func keyBits(_ text: String) -> Set<Int> {
        var out: Set<Int> = []
        for (i, word) in text.split(separator: " ").reversed().enumerated() {
            guard let bits = UInt64(word, radix: 16) else { return [] }
            for b in 0..<64 where bits & (1 << UInt64(b)) != 0 { out.insert(i * 64 + b) }
        }
        return out
    }

    /// KEY_POWER (116), the key of a power button.
    public static let powerKey = 116

    /// Which device alarm-button takes, and which it passed over and why (issue #41).
    public struct Choice: Equatable, Sendable {
        /// The device to open: a path as set, or the `eventN` node of the device chosen; nil
        /// when none matches now.
        public var path: String?
        /// The `gpio-keys` devices not taken while `button_device` is unset, each with why.
        public var passedOver: [PassedOver] = []
        public struct PassedOver: Equatable, Sendable {
            public var path: String
            public var name: String
            public var phys: String
            public var why: Reason
            public init(path: String, name: String, phys: String, why: Reason) {
                self.path = path
                self.name = name
                self.phys = phys
                self.why = why
            }
        }
        public enum Reason: Equatable, Sendable {
            /// Its only key is KEY_POWER and `button_keys` does not name it.
            case powerButton
            /// It can send none of `button_keys`; what it can send.
            case noneOfTheKeys(sends: Set<Int>)
        }
    }

    /// The button by a `button_device` setting and the `button_keys` that count (empty: any).
    /// A path (`/dev/input/by-id/...`, `/dev/input/event3`) is taken as it is; anything else is a
    /// device name as `/proc/bus/input/devices` shows it (exact, else ignoring case). Unset: the
    /// first device of the kernel's `gpio-keys` driver (the Raspberry Pi's `gpio-key` overlay)
    /// that can send one of `keys`, never a keyboard nobody named; with `keys` empty, one that
    /// can send a key other than KEY_POWER. A device whose only key is KEY_POWER is a power button
    /// (a Raspberry Pi 5's own `pwr_button` is a gpio-keys device): taking it would keep
    /// systemd-logind from it, so it is passed over unless `keys` names KEY_POWER.
    public static func choose(_ setting: String?, keys: Set<Int>, among devices: [Info]) -> Choice {
        if let setting, setting.hasPrefix("/") { return Choice(path: setting) }
        let candidates = devices.filter { $0.eventPath != nil && $0.hasKeys }
        if let setting, !setting.isEmpty {
            if let exact = candidates.first(where: { $0.name == setting }) { return Choice(path: exact.eventPath) }
            return Choice(path: candidates.first { $0.name.lowercased() == setting.lowercased() }?.eventPath)
        }
        var choice = Choice(path: nil)
        for d in candidates where d.isGPIOKey {
            // A device whose keys the kernel did not list is taken as before: nothing to judge by.
            let why: Choice.Reason?
            if d.keys.isEmpty {
                why = nil
            } else if !keys.isEmpty {
                why = d.keys.isDisjoint(with: keys) ? .noneOfTheKeys(sends: d.keys) : nil
            } else if d.keys == [powerKey] {
                why = .powerButton
            } else {
                why = nil
            }
            if let why {
                choice.passedOver.append(.init(path: d.eventPath!, name: d.name, phys: d.phys, why: why))
            } else if choice.path == nil {
                choice.path = d.eventPath
            }
        }
        return choice
    }

    /// `path` with its symbolic links followed (`/dev/input/by-path/...-event` →
    /// `/dev/input/event3`); nil when it does not exist.
    /// The corresponding C function is `realpath`.
    public static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

extension Array where Element == String {
    fileprivate var pair: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let c = s.first, chars.contains(c) { s = s.dropFirst() }
        while let c = s.last, chars.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

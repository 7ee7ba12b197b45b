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

        /// `/dev/input/eventN`, when an evdev handler is attached.
        public var eventPath: String? {
            handlers.first { $0.hasPrefix("event") }.map { "/dev/input/" + $0 }
        }

        /// Made by the kernel's `gpio-keys` driver (the Raspberry Pi's `gpio-key` overlay).
        public var isGPIOKey: Bool {
            phys.hasPrefix("gpio-keys") || name.hasPrefix("gpio_keys") || name.hasPrefix("gpio-keys")
                || sysfs.contains("gpio-keys") || sysfs.contains("gpio_keys")
        }

        public init(name: String, phys: String = "", sysfs: String = "", handlers: [String], hasKeys: Bool = true) {
            self.name = name
            self.phys = phys
            self.sysfs = sysfs
            self.handlers = handlers
            self.hasKeys = hasKeys
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
            default: break
            }
        }
        flush()
        return out
    }

    /// Where the button is, by a `button_device` setting: a path (`/dev/input/by-path/...`,
    /// `/dev/input/event3`) is taken as it is; anything else is a device name as
    /// `/proc/bus/input/devices` shows it (exact, else ignoring case). Unset: the first device of
    /// the kernel's `gpio-keys` driver (the `gpio-key` overlay's button), never a keyboard
    /// nobody named. Nil when nothing matches now.
    public static func resolve(_ setting: String?, among devices: [Info]) -> String? {
        if let setting, setting.hasPrefix("/") { return setting }
        let candidates = devices.filter { $0.eventPath != nil && $0.hasKeys }
        guard let setting, !setting.isEmpty else {
            return candidates.first { $0.isGPIOKey }?.eventPath
        }
        if let exact = candidates.first(where: { $0.name == setting }) { return exact.eventPath }
        return candidates.first { $0.name.lowercased() == setting.lowercased() }?.eventPath
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

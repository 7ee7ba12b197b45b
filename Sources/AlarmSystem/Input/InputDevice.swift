import CLinux
import Glibc

/// One event of an input device (`struct input_event`): `type` (`EV_KEY` = 1 for keys and
/// buttons, `EV_SYN` = 0 closes a report), `code` (the key), `value` (for keys: 0 up, 1 down,
/// 2 autorepeat), at `time` seconds on `CLOCK_MONOTONIC` (set by `InputDevice.init`).
public struct InputEvent: Equatable, Sendable {
    public static let key = 1
    public var type: Int
    public var code: Int
    public var value: Int
    public var time: Double

    public init(type: Int, code: Int, value: Int, time: Double) {
        self.type = type
        self.code = code
        self.value = value
        self.time = time
    }
}

/// An open evdev device, `/dev/input/eventN` (issue #30's button): a USB keyboard or presenter,
/// a Bluetooth remote, or a GPIO pin the kernel's `gpio-keys` driver turns into a key (the
/// Raspberry Pi's `gpio-key` overlay). Read without blocking; its events are stamped on
/// `CLOCK_MONOTONIC`, the clock of `MonotonicClock.now` and of a `.monotonic` `TimerFD`.
public final class InputDevice {
    public let path: String
    public let descriptor: Int32
    /// The device's name as the kernel has it (`/proc/bus/input/devices`' `N: Name=`).
    public let name: String
    /// Its physical path (`P: Phys=`, e.g. `usb-0000:00:14.0-1/input0`, `gpio-keys/input0`).
    public let phys: String
    /// The key codes it can send (`EVIOCGBIT(EV_KEY)`).
    public let keys: Set<Int>
    /// Whether this process holds the device for itself (`EVIOCGRAB`).
    public private(set) var grabbed = false

    /// Opens `path` for reading, its events stamped on `CLOCK_MONOTONIC`.
    /// The corresponding C functions are `open` and `ioctl` (`EVIOCSCLOCKID`, `EVIOCGNAME`,
    /// `EVIOCGPHYS`, `EVIOCGBIT`).
    public init(path: String) throws {
        self.path = path
        let fd = try valueOrErrno("open \(path)") { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        do {
            try valueOrErrno("EVIOCSCLOCKID \(path)") { clinux_eviocsclockid(fd, CLOCK_MONOTONIC) }
            name = try Self.text(fd, path, "EVIOCGNAME", clinux_eviocgname)
            phys = (try? Self.text(fd, path, "EVIOCGPHYS", clinux_eviocgphys)) ?? ""
            var bits = [UInt8](repeating: 0, count: Int(KEY_MAX) / 8 + 1)
            let n = try valueOrErrno("EVIOCGBIT(EV_KEY) \(path)") { clinux_eviocgbit_key(fd, &bits, Int32(bits.count)) }
            keys = Self.codes(Array(bits.prefix(Int(n))))
        } catch {
            _ = close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { _ = close(descriptor) }

    /// Takes the device for this process alone: its keys reach no other reader (the console,
    /// systemd-logind, a desktop) while it is held. Released on close.
    /// The corresponding C function is `ioctl` (`EVIOCGRAB`).
    public func grab() throws {
        try valueOrErrno("EVIOCGRAB \(path)") { clinux_eviocgrab(descriptor, 1) }
        grabbed = true
    }

    /// The key codes held down now (`EVIOCGKEY`).
    /// The corresponding C function is `ioctl` (`EVIOCGKEY`).
    public func keysDown() throws -> Set<Int> {
        var bits = [UInt8](repeating: 0, count: Int(KEY_MAX) / 8 + 1)
        let n = try valueOrErrno("EVIOCGKEY \(path)") { clinux_eviocgkey(descriptor, &bits, Int32(bits.count)) }
        return Self.codes(Array(bits.prefix(Int(n))))
    }

    /// What the device has sent since the last read (nothing when it has nothing); `gone` when
    /// it was unplugged (`ENODEV`): the caller closes it and waits for it to come back.
    /// The corresponding C function is `read`.
    public func read() throws -> (events: [InputEvent], gone: Bool) {
        let size = MemoryLayout<input_event>.stride
        var buffer = [input_event](repeating: input_event(), count: 64)
        var out: [InputEvent] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in Glibc.read(descriptor, raw.baseAddress, raw.count) }
            if n < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN: return (out, false)
                case ENODEV: return (out, true)
                default: throw SystemError("read \(path)", errno: errno)
                }
            }
            if n == 0 { return (out, true) }
            for e in buffer.prefix(n / size) {
                out.append(
                    InputEvent(
                        type: Int(e.type), code: Int(e.code), value: Int(e.value),
                        time: Double(e.time.tv_sec) + Double(e.time.tv_usec) / 1e6))
            }
            if n < buffer.count * size { return (out, false) }
        }
    }

    private static func text(
        _ fd: Int32, _ path: String, _ what: String, _ call: (Int32, UnsafeMutablePointer<CChar>, Int32) -> Int32
    ) throws -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = try valueOrErrno("\(what) \(path)") { call(fd, &buffer, Int32(buffer.count - 1)) }
        let bytes = buffer.prefix(max(0, Int(n))).prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bit numbers set in a kernel bit mask.
    static func codes(_ bits: [UInt8]) -> Set<Int> {
        var out = Set<Int>()
        for (i, byte) in bits.enumerated() where byte != 0 {
            for b in 0..<8 where byte & (1 << b) != 0 { out.insert(i * 8 + b) }
        }
        return out
    }
}

/// `CLOCK_MONOTONIC`: the clock input events are stamped on (`InputDevice`), in seconds.
public enum MonotonicClock {
    /// The corresponding C function is `clock_gettime`.
    public static var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

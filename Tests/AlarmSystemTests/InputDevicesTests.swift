import AlarmSystem
import Testing

/// Issue #30: which input device `button_device` names, from `/proc/bus/input/devices` as the
/// kernel writes it (this text: a Raspberry Pi with the gpio-key overlay and a USB keyboard, and
/// a qemu guest's power button).
@Suite("input devices: /proc/bus/input/devices and button_device")
struct InputDevicesTests {
    static let text = """
        I: Bus=0019 Vendor=0001 Product=0001 Version=0100
        N: Name="Power Button"
        P: Phys=LNXPWRBN/button/input0
        S: Sysfs=/devices/LNXSYSTM:00/LNXPWRBN:00/input/input0
        U: Uniq=
        H: Handlers=kbd event0 
        B: PROP=0
        B: EV=3
        B: KEY=10000000000000 0

        I: Bus=0019 Vendor=0001 Product=0001 Version=0100
        N: Name="button@11"
        P: Phys=gpio-keys/input0
        S: Sysfs=/devices/platform/button@11/input/input1
        U: Uniq=
        H: Handlers=event1 
        B: PROP=0
        B: EV=3
        B: KEY=1 0 0 0 0 0 0 0

        I: Bus=0003 Vendor=0627 Product=0001 Version=0111
        N: Name="QEMU QEMU USB Keyboard"
        P: Phys=usb-0000:00:04.0-1/input0
        S: Sysfs=/devices/pci0000:00/0000:00:04.0/usb1/1-1/1-1:1.0/0003:0627:0001.0001/input/input2
        U: Uniq=68284-0000:00:04.0-1
        H: Handlers=sysrq kbd leds event2 
        B: PROP=0
        B: EV=120013
        B: KEY=1000000000007 ff9f207ac14057ff febeffdfffefffff fffffffffffffffe

        I: Bus=0011 Vendor=0002 Product=0006 Version=0000
        N: Name="ImExPS/2 Generic Explorer Mouse"
        P: Phys=isa0060/serio1/input0
        S: Sysfs=/devices/platform/i8042/serio1/input/input3
        U: Uniq=
        H: Handlers=mouse0 event3 
        B: PROP=1
        B: EV=7

        I: Bus=0000 Vendor=0000 Product=0000 Version=0000
        N: Name="no handlers"
        P: Phys=
        S: Sysfs=/devices/virtual/input/input9
        U: Uniq=
        H: Handlers=
        B: PROP=0
        B: EV=3

        """

    @Test("each block: name, phys, sysfs, handlers, whether it has keys")
    func parse() {
        let d = InputDevices.parse(Self.text)
        #expect(
            d.map(\.name) == [
                "Power Button", "button@11", "QEMU QEMU USB Keyboard", "ImExPS/2 Generic Explorer Mouse", "no handlers",
            ])
        #expect(
            d.map(\.eventPath) == [
                "/dev/input/event0", "/dev/input/event1", "/dev/input/event2", "/dev/input/event3", nil,
            ])
        #expect(d.map(\.isGPIOKey) == [false, true, false, false, false])
        #expect(d.map(\.hasKeys) == [true, true, true, true, true])
        #expect(d[2].phys == "usb-0000:00:04.0-1/input0")
        #expect(d[2].handlers == ["sysrq", "kbd", "leds", "event2"])
    }

    @Test("button_device: unset is the gpio-keys device; a name, exact or in any case; a path as it is")
    func resolve() {
        let d = InputDevices.parse(Self.text)
        #expect(InputDevices.resolve(nil, among: d) == "/dev/input/event1")
        #expect(InputDevices.resolve("", among: d) == "/dev/input/event1")
        #expect(InputDevices.resolve("QEMU QEMU USB Keyboard", among: d) == "/dev/input/event2")
        #expect(InputDevices.resolve("qemu qemu usb keyboard", among: d) == "/dev/input/event2")
        #expect(
            InputDevices.resolve("/dev/input/by-path/platform-button@11-event", among: d)
                == "/dev/input/by-path/platform-button@11-event")
        #expect(InputDevices.resolve("Nobody's Keyboard", among: d) == nil)
        #expect(InputDevices.resolve("no handlers", among: d) == nil)
        // Without a gpio-keys device, unset names nothing: no keyboard is taken unasked.
        #expect(InputDevices.resolve(nil, among: d.filter { !$0.isGPIOKey }) == nil)
    }

    @Test("an empty or unreadable list is no devices")
    func empty() {
        #expect(InputDevices.parse("").isEmpty)
        #expect(InputDevices.list(procFile: "/nonexistent/devices").isEmpty)
    }
}

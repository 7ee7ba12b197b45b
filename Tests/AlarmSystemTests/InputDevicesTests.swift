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

    @Test(
        "button_device: unset is the gpio-keys device (a button, not a power button); a name, exact or in any case; a path as it is"
    )
    func resolve() {
        let d = InputDevices.parse(Self.text)
        #expect(InputDevices.choose(nil, keys: [], among: d).path == "/dev/input/event1")
        #expect(InputDevices.choose("", keys: [], among: d).path == "/dev/input/event1")
        #expect(InputDevices.choose("QEMU QEMU USB Keyboard", keys: [], among: d).path == "/dev/input/event2")
        #expect(InputDevices.choose("qemu qemu usb keyboard", keys: [], among: d).path == "/dev/input/event2")
        #expect(
            InputDevices.choose("/dev/input/by-path/platform-button@11-event", keys: [], among: d).path
                == "/dev/input/by-path/platform-button@11-event")
        #expect(InputDevices.choose("Nobody's Keyboard", keys: [], among: d).path == nil)
        #expect(InputDevices.choose("no handlers", keys: [], among: d).path == nil)
        // Without a gpio-keys device, unset names nothing: no keyboard is taken unasked.
        #expect(InputDevices.choose(nil, keys: [], among: d.filter { !$0.isGPIOKey }).path == nil)
    }

    /// A Raspberry Pi 5 with the gpio-key overlay (keycode=256): its own power button
    /// (`pwr_button`, gpio-keys, KEY_POWER, from the bcm2712 device tree) and the overlay's
    /// `button@11` (BTN_0), as a 64-bit kernel writes them.
    static func pi5(powerFirst: Bool = true) -> [InputDevices.Info] {
        let power = """
            I: Bus=0019 Vendor=0001 Product=0001 Version=0100
            N: Name="pwr_button"
            P: Phys=gpio-keys/input0
            S: Sysfs=/devices/platform/pwr_button/input/input0
            H: Handlers=kbd event0
            B: PROP=0
            B: EV=3
            B: KEY=10000000000000 0

            """
        let button = """
            I: Bus=0019 Vendor=0001 Product=0001 Version=0100
            N: Name="button@11"
            P: Phys=gpio-keys/input0
            S: Sysfs=/devices/platform/button@11/input/input1
            H: Handlers=event1
            B: PROP=0
            B: EV=3
            B: KEY=1 0 0 0 0

            """
        return InputDevices.parse(powerFirst ? power + "\n" + button : button + "\n" + power)
    }

    @Test("B: KEY=, the codes a device sends: the power button's KEY_POWER, the overlay's BTN_0, a keyboard's Enter")
    func keys() {
        let d = InputDevices.parse(Self.text)
        #expect(d[0].keys == [116])
        #expect(d[2].keys.contains(28))
        #expect(d[2].keys.count > 80)
        #expect(d[3].keys.isEmpty)
        #expect(Self.pi5().map(\.keys) == [[116], [256]])
    }

    @Test("button_device unset: a gpio-keys device whose only key is KEY_POWER (a Pi 5's power button) is passed over")
    func powerButtonPassedOver() {
        for powerFirst in [true, false] {
            let d = Self.pi5(powerFirst: powerFirst)
            let choice = InputDevices.choose(nil, keys: [], among: d)
            #expect(choice.path == "/dev/input/event1", "power first: \(powerFirst)")
            #expect(
                choice.passedOver == [
                    .init(path: "/dev/input/event0", name: "pwr_button", phys: "gpio-keys/input0", why: .powerButton)
                ])
            // The overlay's button by its key: taken; the power button sends none of them.
            let byKey = InputDevices.choose(nil, keys: [256], among: d)
            #expect(byKey.path == "/dev/input/event1")
            #expect(byKey.passedOver.map(\.why) == [.noneOfTheKeys(sends: [116])])
        }
        // Alone, the power button is not taken: no button, said why.
        let alone = InputDevices.choose(nil, keys: [], among: Self.pi5().filter { $0.name == "pwr_button" })
        #expect(alone.path == nil)
        #expect(alone.passedOver.count == 1)
    }

    @Test("button_keys naming KEY_POWER takes the power button; a name or path in button_device is taken as set")
    func powerButtonWhenAsked() {
        let d = Self.pi5()
        let asked = InputDevices.choose(nil, keys: [116], among: d)
        #expect(asked.path == "/dev/input/event0")
        #expect(asked.passedOver.map(\.name) == ["button@11"])
        #expect(InputDevices.choose(nil, keys: [116, 256], among: d).path == "/dev/input/event0")
        #expect(InputDevices.choose("pwr_button", keys: [], among: d).path == "/dev/input/event0")
        #expect(InputDevices.choose("pwr_button", keys: [], among: d).passedOver.isEmpty)
        #expect(
            InputDevices.choose("/dev/input/by-path/platform-pwr_button-event", keys: [], among: d).path
                == "/dev/input/by-path/platform-pwr_button-event")
    }

    @Test("an empty or unreadable list is no devices")
    func empty() {
        #expect(InputDevices.parse("").isEmpty)
        #expect(InputDevices.list(procFile: "/nonexistent/devices").isEmpty)
    }
}

#!/usr/bin/env python3
"""A key device made through the kernel's uinput, for the system test's button scenario (issue
#30): the events reach alarm-button through the input core and evdev, as a real button's do.
Standard library only (the guest has python3 and nothing more).

    uinput.py [--phys PHYS] NAME CODE... < COMMANDS

makes the device NAME (with the physical path PHYS, as `P: Phys=` shows it: gpio-keys/input0 makes
it look like the gpio-key overlay's button) able to send the key CODEs (decimal), prints "ready"
once it exists, then
runs one command per line of its input until it ends:
    press CODE SECONDS    down, held SECONDS, up
    bounce CODE           down, up 4 ms later, down 4 ms later, up 150 ms later: one press
    destroy               removes the device (as an unplugged USB button goes)
    create                makes it again
    sleep SECONDS
and prints "done LINE" after each, with a flush, so the caller can wait for it.
"""
import fcntl, os, struct, sys, time

UI_SET_EVBIT = 0x40045564    # _IOW('U', 100, int)
UI_SET_KEYBIT = 0x40045565   # _IOW('U', 101, int)
UI_DEV_CREATE = 0x5501       # _IO('U', 1)
UI_DEV_DESTROY = 0x5502      # _IO('U', 2)
UI_SET_PHYS = 0x4008556C     # _IOW('U', 108, char *) on a 64-bit kernel
EV_SYN, EV_KEY = 0, 1
BUS_VIRTUAL = 0x06

args = sys.argv[1:]
phys = None
if args[:1] == ["--phys"]:
    phys, args = args[1], args[2:]
name, codes = args[0], [int(c) for c in args[1:]]
fd = None


def create():
    global fd
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
    for c in codes:
        fcntl.ioctl(fd, UI_SET_KEYBIT, c)
    if phys is not None:
        fcntl.ioctl(fd, UI_SET_PHYS, phys.encode() + b"\0")
    # struct uinput_user_dev: name[80], input_id (4 x u16), ff_effects_max, absmax/absmin/absfuzz/absflat[64]
    dev = struct.pack("80sHHHHi", name.encode()[:79], BUS_VIRTUAL, 0x1234, 0x5678, 1, 0) + b"\0" * (4 * 64 * 4)
    os.write(fd, dev)
    fcntl.ioctl(fd, UI_DEV_CREATE)
    time.sleep(0.5)  # udev makes the node and sets its group


def destroy():
    global fd
    fcntl.ioctl(fd, UI_DEV_DESTROY)
    os.close(fd)
    fd = None


def emit(code, value):
    # struct input_event (64-bit): timeval (the kernel stamps its own), type, code, value; then a report.
    os.write(fd, struct.pack("llHHi", 0, 0, EV_KEY, code, value))
    os.write(fd, struct.pack("llHHi", 0, 0, EV_SYN, 0, 0))


create()
print("ready", flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "press":
        emit(int(words[1]), 1)
        time.sleep(float(words[2]))
        emit(int(words[1]), 0)
    elif words[0] == "bounce":
        c = int(words[1])
        emit(c, 1); time.sleep(0.004); emit(c, 0); time.sleep(0.004); emit(c, 1); time.sleep(0.15); emit(c, 0)
    elif words[0] == "destroy":
        destroy()
    elif words[0] == "create":
        create()
    elif words[0] == "sleep":
        time.sleep(float(words[1]))
    print("done " + line.strip(), flush=True)
if fd is not None:
    destroy()

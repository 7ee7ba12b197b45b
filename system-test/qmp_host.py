#!/usr/bin/env python3
"""The host's side of the system test's button scenario (issue #30): a USB keyboard that qemu
emulates (usb-kbd on a qemu-xhci controller) is the button; this presses and holds its keys
through QMP's input-send-event, and unplugs and plugs it back (device_del, device_add), when the
guest asks. The events then reach the guest as a real USB button's do: through xhci, usbhid and
evdev. Standard library only.

    qmp_host.py OUT_DIR QMP_SOCKET SECONDS

The guest writes OUT_DIR/qmp-N.req (N = 1, 2, ...), one line:
    key QCODE SECONDS     the key down, held SECONDS, up (QCODE as QMP names keys: ret, a, f13)
    unplug                device_del of the keyboard, until qemu says DEVICE_DELETED
    plug                  device_add of it again, on the same controller and port
    powerdown             system_powerdown: on the arm64 virt machine (booted with its device
                          tree) a 100 ms pulse on the PL061 GPIO line of its gpio-keys node,
                          KEY_POWER through the kernel's gpio-keys driver, as the Pi's gpio-key
                          overlay sends a key
and this answers OUT_DIR/qmp-N.done: "ok", or "error ..." with what qemu said.
"""
import json, os, socket, sys, time

out, path, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
deadline = time.time() + limit
# On port 1 every time: qemu's usb-kbd takes its serial from the port it is on, and udev its
# /dev/input/by-id link from the serial, so a keyboard plugged back elsewhere would be another
# device by-id (as a real button without a serial plugged into another socket is).
DEVICE = {"driver": "usb-kbd", "id": "usbbutton", "bus": "xhci.0", "port": "1"}

while not os.path.exists(path):
    if time.time() > deadline:
        sys.exit(0)
    time.sleep(0.2)
sock = socket.socket(socket.AF_UNIX)
for _ in range(100):
    try:
        sock.connect(path)
        break
    except OSError:
        time.sleep(0.2)
f = sock.makefile("rw", encoding="utf-8", newline="\n")
events = []


def read():
    line = f.readline()
    if not line:
        raise EOFError("qemu closed the QMP socket")
    return json.loads(line)


def execute(command, arguments=None):
    msg = {"execute": command}
    if arguments is not None:
        msg["arguments"] = arguments
    f.write(json.dumps(msg) + "\n")
    f.flush()
    while True:
        r = read()
        if "event" in r:
            events.append(r)
            continue
        if "error" in r:
            raise RuntimeError("%s: %s" % (command, r["error"].get("desc", r["error"])))
        return r.get("return")


def key(qcode, down):
    execute("input-send-event", {"events": [{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}]})


read()  # the greeting
execute("qmp_capabilities")
n = 1
while time.time() < deadline:
    req = os.path.join(out, "qmp-%d.req" % n)
    if not os.path.exists(req):
        time.sleep(0.05)
        continue
    words = open(req).read().split()
    try:
        if words[0] == "key":
            key(words[1], True)
            time.sleep(float(words[2]))
            key(words[1], False)
        elif words[0] == "unplug":
            execute("device_del", {"id": DEVICE["id"]})
            sock.settimeout(20)
            while not any(e.get("event") == "DEVICE_DELETED" and e.get("data", {}).get("device") == DEVICE["id"] for e in events):
                r = read()
                if "event" in r:
                    events.append(r)
            sock.settimeout(None)
        elif words[0] == "plug":
            execute("device_add", DEVICE)
        elif words[0] == "powerdown":
            execute("system_powerdown")
        else:
            raise RuntimeError("unknown request " + " ".join(words))
        answer = "ok"
    except Exception as e:  # tell the guest, go on
        answer = "error %s" % e
    tmp = os.path.join(out, "qmp-%d.done.tmp" % n)
    with open(tmp, "w") as o:
        o.write(answer + "\n")
    os.rename(tmp, os.path.join(out, "qmp-%d.done" % n))
    n += 1

#!/usr/bin/env python3
"""The host's side of the system test's radio station (scenario stream, issue #43): Debian's
icecast2 on this machine's loopback, which the guest reaches through qemu's user network as
10.0.2.2:PORT, with ffmpeg feeding its mount /live.mp3 in real time (lavfi: a 660 Hz sine at half
of full scale, MP3 at 128 kbit/s), as the StreamTests harness does. No burst on connect: a
listener gets the stream as it is made.

OUT_DIR/ready is written once icecast lists the mount (its status page). When the guest writes
OUT_DIR/stop, icecast and ffmpeg are killed (SIGKILL: the station gone at once, mid-stream) and
OUT_DIR/stopped is written ("EPOCH" of the kill). Everything ends after SECONDS or on SIGTERM.
Logs: OUT_DIR/host.log, OUT_DIR/icecast/ (icecast's error and access logs, copied there at the
end when run as root, and ffmpeg's output).
Standard library only.

    stream_host.py OUT_DIR PORT SECONDS
"""
import atexit, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

out, port, limit = os.path.abspath(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
FREQUENCY = 660
MOUNT = "/live.mp3"
work = os.path.join(out, "icecast")
os.makedirs(os.path.join(work, "log"), exist_ok=True)
log = open(os.path.join(out, "host.log"), "a", buffering=1)


def say(what):
    log.write("%.3f %s\n" % (time.time(), what))


# icecast2 refuses to run as root: as root it changes to nobody, who writes the logs. Not under
# OUT_DIR then: that is in the checkout, whose parent may be a 0700 directory nobody cannot pass
# (CI's fresh clone: "could not open error logging ...: Permission denied", icecast2 exiting 1
# three times). A directory of its own under /tmp instead, copied to OUT_DIR/icecast/log at the end.
security = ""
logdir = os.path.join(work, "log")
if os.geteuid() == 0:
    logdir = tempfile.mkdtemp(prefix="alarm-stream-host-")
    os.chmod(logdir, 0o777)
    security = "<security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>"

    def keep_logs():
        for name in os.listdir(logdir):
            shutil.copy(os.path.join(logdir, name), os.path.join(work, "log", name))
        shutil.rmtree(logdir, ignore_errors=True)

    atexit.register(keep_logs)
config = os.path.join(work, "icecast.xml")
with open(config, "w") as f:
    f.write(f"""<icecast>
  <location>alarm system test</location><admin>root@localhost</admin>
  <limits><clients>10</clients><sources>2</sources><burst-on-connect>0</burst-on-connect>
    <burst-size>0</burst-size><source-timeout>10</source-timeout></limits>
  <authentication><source-password>alarm-source</source-password>
    <admin-user>admin</admin-user><admin-password>alarm-admin</admin-password></authentication>
  <hostname>127.0.0.1</hostname>
  <listen-socket><port>{port}</port><bind-address>127.0.0.1</bind-address></listen-socket>
  <paths><basedir>/usr/share/icecast2</basedir><logdir>{logdir}</logdir>
    <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
  <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
  {security}
</icecast>
""")


def live():
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status-json.xsl", timeout=2) as r:
            return f"{port}{MOUNT}\"" in r.read().decode("utf-8", "replace")
    except OSError:
        return False


def wait(seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        if what():
            return True
        time.sleep(0.2)
    return False


procs = []


def kill_all():
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
    procs.clear()


signal.signal(signal.SIGTERM, lambda *_: (kill_all(), sys.exit(0)))
# Debian's icecast2 2.4.4 now and then crashes (SIGSEGV) as it starts, when the first requests
# come before its stats thread runs (the StreamTests harness says more): such a start is made
# again, at most three tries.
def accepts():
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


started = False
for attempt in range(3):
    server = subprocess.Popen(["icecast2", "-c", config], cwd=logdir, stdout=open(os.path.join(work, "icecast.out"), "a"),
                              stderr=subprocess.STDOUT)
    procs.append(server)
    if wait(10, lambda: server.poll() is not None or accepts()) and server.poll() is None:
        source = subprocess.Popen(
            ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
             f"sine=frequency={FREQUENCY}:sample_rate=44100", "-af", "volume=4", "-ac", "2",
             "-c:a", "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-f", "mp3",
             f"icecast://source:alarm-source@127.0.0.1:{port}{MOUNT}"],
            cwd=work, stdout=open(os.path.join(work, "ffmpeg.out"), "a"), stderr=subprocess.STDOUT)
        procs.append(source)
        if wait(15, lambda: server.poll() is not None or source.poll() is not None or live()) and \
                server.poll() is None and source.poll() is None:
            started = True
            break
    say("try %d: icecast2 %s, the mount not live; again" % (attempt + 1, "ended %s" % server.poll() if server.poll() is not None else "running"))
    kill_all()
if not started:
    say("icecast2 and ffmpeg did not give a live %s in three tries (see %s)" % (MOUNT, work))
    sys.exit(1)
say("live: http://127.0.0.1:%d%s (%d Hz)" % (port, MOUNT, FREQUENCY))
with open(os.path.join(out, "ready.tmp"), "w") as f:
    f.write("%d %s\n" % (FREQUENCY, MOUNT))
os.rename(os.path.join(out, "ready.tmp"), os.path.join(out, "ready"))

deadline = time.time() + limit
request = os.path.join(out, "stop")
while time.time() < deadline:
    if os.path.exists(request):
        kill_all()
        at = time.time()
        say("stopped: icecast2 and ffmpeg killed")
        with open(os.path.join(out, "stopped.tmp"), "w") as f:
            f.write("%.3f\n" % at)
        os.rename(os.path.join(out, "stopped.tmp"), os.path.join(out, "stopped"))
        break
    if any(p.poll() is not None for p in procs):
        say("icecast2 or ffmpeg ended by itself: %s" % [p.poll() for p in procs])
        kill_all()
        break
    time.sleep(0.05)
kill_all()

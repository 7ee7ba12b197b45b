"""alarmd and alarm as processes in a temporary directory; a private PulseAudio null sink.

Times are taken with time.time() (CLOCK_REALTIME, the clock alarmd's history uses) right when
the event is seen: status.json changes are watched with inotify (alarmd replaces the file by
rename, so IN_MOVED_TO), READY=1 arrives on a NOTIFY_SOCKET this harness binds.
"""
import ctypes
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

_libc = ctypes.CDLL(None, use_errno=True)
IN_MOVED_TO, IN_CLOSE_WRITE, IN_CREATE = 0x80, 0x8, 0x100


class DirWatch:
    """inotify on one directory; `wait` blocks until any entry is created, written or renamed in."""

    def __init__(self, directory):
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if _libc.inotify_add_watch(self.fd, directory.encode(), IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch " + directory)

    def drain(self):
        try:
            while os.read(self.fd, 65536):
                pass
        except BlockingIOError:
            pass

    def wait(self, seconds):
        select.select([self.fd], [], [], max(0, seconds))
        self.drain()

    def close(self):
        os.close(self.fd)


class Alarmd:
    """One alarmd with its own state, runtime and sounds directories, zone file and config."""

    def __init__(self, bin_dir, root, device="null", config="", extra_env=None, sounds_dir=None):
        self.bin_dir, self.root = bin_dir, root
        self.state = os.path.join(root, "state")
        self.runtime = os.path.join(root, "run")
        for d in (self.state, self.runtime):
            os.makedirs(d, exist_ok=True)
        localtime = os.path.join(root, "localtime")
        if not os.path.islink(localtime):
            os.symlink("/usr/share/zoneinfo/UTC", localtime)
        conf = os.path.join(root, "alarm.conf")
        with open(conf, "w") as f:
            f.write(config)
        self.env = dict(os.environ)
        self.env.update(extra_env or {})
        self.env.update({
            "ALARM_STATE_DIR": self.state, "ALARM_RUNTIME_DIR": self.runtime, "ALARM_DEVICE": device,
            "ALARM_CONFIG": conf, "ALARM_LOCALTIME": localtime, "TZ": "UTC",
            "ALARM_SOUNDS_DIR": sounds_dir or os.path.join(root, "sounds"),
        })
        self.env.pop("NOTIFY_SOCKET", None)
        self.proc = None
        self.watch = DirWatch(self.runtime)
        self.status_path = os.path.join(self.runtime, "status.json")
        self.fifo_path = os.path.join(self.runtime, "control")
        self.history_path = os.path.join(self.state, "history.jsonl")
        self.log_path = os.path.join(root, "alarmd.log")

    @property
    def pid(self):
        return self.proc.pid

    def start(self, timeout=30):
        """Spawns alarmd; returns seconds from spawn to READY=1 and to the first status.json."""
        sock_path = os.path.join(self.root, "notify.sock")
        if os.path.exists(sock_path):
            os.unlink(sock_path)
        if os.path.exists(self.status_path):
            os.unlink(self.status_path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(sock_path)
        env = dict(self.env, NOTIFY_SOCKET=sock_path)
        self.watch.drain()
        log = open(self.log_path, "a")
        t0 = time.time()
        self.proc = subprocess.Popen([os.path.join(self.bin_dir, "alarmd")], env=env, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=log)
        log.close()
        ready = status = None
        deadline = t0 + timeout
        while (ready is None or status is None) and time.time() < deadline:
            if status is None and os.path.exists(self.status_path):
                status = time.time() - t0
            r, _, _ = select.select([sock, self.watch.fd], [], [], 0.5)
            if sock in r:
                msg = sock.recv(4096).decode(errors="replace")
                if ready is None and "READY=1" in msg.split("\n"):
                    ready = time.time() - t0
            if self.watch.fd in r:
                self.watch.drain()
            if self.proc.poll() is not None:
                raise RuntimeError("alarmd exited at start: " + self.log_tail())
        sock.close()
        if ready is None:
            raise RuntimeError("alarmd did not say READY=1 in %d s: %s" % (timeout, self.log_tail()))
        return ready, status

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def log_tail(self, n=20):
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def cli(self, *args, check=True, stdout_path=None):
        """Runs `alarm ARGS`; returns (seconds, stdout). With stdout_path, stdout goes to that file
        (as `alarm export > FILE` would) and "" is returned: no pipe for this process to drain."""
        out = open(stdout_path, "w") if stdout_path else subprocess.PIPE
        try:
            t0 = time.perf_counter()
            r = subprocess.run([os.path.join(self.bin_dir, "alarm"), *args], env=self.env, stdout=out,
                               stderr=subprocess.PIPE, text=True)
            seconds = time.perf_counter() - t0
        finally:
            if stdout_path:
                out.close()
        if check and r.returncode != 0:
            raise RuntimeError("alarm %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return seconds, r.stdout or ""

    def status(self):
        try:
            with open(self.status_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait_status(self, predicate, timeout):
        """Waits until status.json satisfies predicate; (time.time() when seen, status) or (None, last)."""
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if st is not None and predicate(st):
                return time.time(), st
            left = deadline - time.monotonic()
            if left <= 0:
                return None, st
            self.watch.wait(min(left, 0.25))

    def send(self, line):
        """Writes one line to the FIFO; returns time.time() just before the write."""
        fd = os.open(self.fifo_path, os.O_WRONLY | os.O_NONBLOCK)
        try:
            t = time.time()
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
        return t

    def history(self):
        entries = []
        try:
            with open(self.history_path) as f:
                for line in f:
                    if line.strip():
                        entries.append(json.loads(line))
        except FileNotFoundError:
            pass
        return entries

    def close(self):
        self.stop()
        if self.watch:
            self.watch.close()
            self.watch = None


class PulseSink:
    """A private `pulseaudio -n` with one mono null sink, as in shared/TESTING.md."""

    def __init__(self, name="alarmbench", rate=48000):
        self.name, self.rate = name, rate
        self.dir = tempfile.mkdtemp(prefix="alarm-bench-pulse-")
        os.chmod(self.dir, 0o700)
        self.env = {"XDG_RUNTIME_DIR": self.dir, "PULSE_SERVER": "unix:" + self.dir + "/pulse/native", "HOME": self.dir}
        env = dict(os.environ, **self.env)
        self.log = open(os.path.join(self.dir, "pulseaudio.log"), "w")
        self.server = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
             "-L", "module-native-protocol-unix",
             "-L", "module-null-sink sink_name=%s rate=%d channels=1" % (name, rate)],
            env=env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.recorder = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError("pulseaudio exited: " + open(self.log.name).read())
            r = subprocess.run(["pactl", "list", "short", "sinks"], env=env, capture_output=True, text=True)
            if r.returncode == 0 and name in r.stdout:
                return
            time.sleep(0.1)
        self.close()
        raise RuntimeError("pulseaudio did not come up in 20 s")

    def record(self, path):
        """Starts parec on the sink's monitor into a raw s16le mono file."""
        self.record_path = path
        self.record_file = open(path, "wb")
        self.recorder = subprocess.Popen(
            ["parec", "-d", self.name + ".monitor", "--format=s16le", "--rate=%d" % self.rate, "--channels=1",
             "--raw", "--latency-msec=10"],
            env=dict(os.environ, **self.env), stdin=subprocess.DEVNULL, stdout=self.record_file,
            stderr=subprocess.DEVNULL)

    def stop_recording(self):
        if self.recorder:
            self.recorder.terminate()
            self.recorder.wait(5)
            self.recorder = None
            self.record_file.close()

    def close(self):
        self.stop_recording()
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def sound_bursts(path, rate, threshold=300, gap=0.25):
    """(start, end) sample indices of the runs of sound in a raw s16le recording; runs closer
    than `gap` seconds are one burst."""
    import array
    samples = array.array("h")
    with open(path, "rb") as f:
        data = f.read()
    samples.frombytes(data[: len(data) // 2 * 2])
    bursts = []
    gap_n = int(gap * rate)
    start = last = None
    for i, s in enumerate(samples):
        if s > threshold or s < -threshold:
            if start is None:
                start = i
            elif i - last > gap_n:
                bursts.append((start, last))
                start = i
            last = i
    if start is not None:
        bursts.append((start, last))
    return bursts


def write_sine(path, seconds=10.0, freq=440.0, rate=48000):
    """A continuous sine clip (WAV, 16-bit mono), so the end of sound in a recording is the stop."""
    import math
    import struct
    import wave
    n = int(seconds * rate)
    frames = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(n))
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)

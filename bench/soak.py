#!/usr/bin/env python3
"""The soak benchmark of issue #42: one alarmd, with alarm-button, alarm-hooks and alarm-web
attached, through many ring / snooze / re-ring / stop cycles, sampled as it goes.

  python3 bench/soak.py [--cycles 10000] [--sample-every 50] [--bin .build/release]
                        [--samples .build/bench/soak.jsonl]
  python3 bench/soak.py --report .build/bench/soak.jsonl [--out BENCHMARKS.md]

Each cycle is real: `alarm add --at T --id soak --snooze 1s` schedules a once alarm at the next
whole second at least one second away (`--lead` and `--snooze` change both figures: `--lead 0.25
--snooze 0.3` makes a cycle about one second, so 10,000 of them fit in under three hours;
alarm instants are whole seconds, so a cycle cannot be shorter than one); alarmd's timer fires it (device null: playback costs
nothing); once status.json says it rings, it is snoozed (a short press of the button, or
`snooze 1s` on the FIFO), rings again one second later when its snooze timer fires, and is
stopped (the button held, or `stop`). Then alarm-web is asked GET /api/status with the token, on a
new connection. alarm-hooks runs one hook (a shell script that appends one byte to a file) for
every event alarmd logs.

The button: with /dev/uinput (the system test's guest, a Pi), a key device is made through the
kernel's uinput (system-test/uinput.py) and alarm-button reads it: a 0.1 s press snoozes, a
press held past `button_hold` (1 s here) stops. Without it (this project's build machines: no
uinput module) alarm-button still runs, waiting for its device, and the snooze and stop go
through the FIFO as `alarm snooze` and `alarm stop` send them; the samples say which.

Every `--sample-every` cycles (and at cycle 0, before the first) one JSON line is appended to
--samples: for alarmd and each attached process, resident / anonymous / private memory,
open descriptors (/proc/PID/fd), threads, CPU seconds and bytes written (/proc/PID/io
write_bytes: to the disk, and wchar: through write calls); the sizes of history.jsonl (and its
lines), events.jsonl and events.jsonl.1, alarms.json and the state directory; the mean seconds
per cycle since the last sample. The file is flushed line by line: a long run can be read (and
reported with --report) while it goes, and one that is stopped (Ctrl-C, SIGTERM) ends with a
last sample. A cycle that does not complete in time is logged as a "miss" line and the next one
begins; alarmd's exit ends the run.

--report reads such a file and writes the section "## soak" of BENCHMARKS.md (or --out),
keeping the rest of the file: start, end and maximum of every figure, growth per 1,000 cycles
(least squares over the second half of the run, after the start-up's allocations have settled),
and a verdict against the issue's goal: no growth beyond the logs' own rotation bounds.
"""
import argparse
import http.client
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import procstats  # noqa: E402
from harness import Alarmd  # noqa: E402

SOAK_HEADING = "## soak"
BUTTON_NAME = "alarm-soak-button"
BUTTON_KEY = 256  # BTN_0, the gpio-key overlay's keycode=256
HOLD = 1.0  # button_hold
# The logs' own bounds (Sources/AlarmState/Files/HistoryLog.swift and the event log's writer,
# docs/events.md): history.jsonl is trimmed to its newest 1,000 lines when it passes 2,000;
# events.jsonl is renamed to events.jsonl.1 past 1 MiB.
HISTORY_MAX_LINES = 2000
EVENTS_MAX_BYTES = 1 << 20


def log(text):
    print("bench/soak: " + text, file=sys.stderr, flush=True)


def rfc3339(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def io_bytes(pid):
    fields = {}
    with open("/proc/%d/io" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = int(v)
    return fields


def proc_sample(pid):
    m = procstats.memory(pid)
    io = io_bytes(pid)
    return {"rss": m["rss"], "anon": m["anon"], "private": m["private"], "threads": m["threads"],
            "fds": len(os.listdir("/proc/%d/fd" % pid)), "cpu": procstats.cpu_seconds(pid),
            "write_bytes": io["write_bytes"], "wchar": io["wchar"]}


def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def tree_bytes(path):
    total = 0
    for d, _, files in os.walk(path):
        for name in files:
            total += size(os.path.join(d, name))
    return total


class Soak:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.abspath(args.bin)
        self.root = tempfile.mkdtemp(prefix="alarm-soak-")
        self.procs = {}
        self.button = None
        self.out = None
        self.d = None
        self.shm = None
        self.stopping = False

    # ---- the processes -------------------------------------------------------------------
    def start(self):
        for b in ("alarmd", "alarm", "alarm-web", "alarm-hooks", "alarm-button"):
            if not os.access(os.path.join(self.bin, b), os.X_OK):
                sys.exit("bench/soak: %s/%s is missing: swift build -c release --static-swift-stdlib first" % (self.bin, b))
        self.uinput = os.path.exists("/dev/uinput")
        hooks = os.path.join(self.root, "hooks")
        os.makedirs(hooks)
        self.hook_ran = os.path.join(self.root, "hook-ran")
        hook = os.path.join(hooks, "count")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\nprintf x >> %s\n" % self.hook_ran)
        os.chmod(hook, 0o755)
        # The runtime directory on a tmpfs, as /run/alarm is: status.json and the event log are
        # not disk writes on a real machine, and must not be counted as such here.
        self.shm = tempfile.mkdtemp(prefix="alarm-soak-", dir="/dev/shm") if os.path.isdir("/dev/shm") else None
        if self.shm:
            os.symlink(self.shm, os.path.join(self.root, "run"))
        button_device = BUTTON_NAME if self.uinput else "/dev/input/by-id/alarm-soak-absent"
        config = ("hooks_dir = %s\nweb_listen = 127.0.0.1:0\nweb_token_file = %s/token\n"
                  "button_device = %s\nbutton_hold = %ds\n" % (hooks, self.root, button_device, HOLD))
        self.d = Alarmd(self.bin, self.root, device="null", config=config)
        self.d.start()
        env = self.d.env
        self.token = subprocess.run([os.path.join(self.bin, "alarm"), "web-token", "--rotate"], env=env,
                                    capture_output=True, text=True, check=True).stdout.strip()
        for name in ("alarm-hooks", "alarm-web", "alarm-button"):
            logf = open(os.path.join(self.root, name + ".log"), "w")
            self.procs[name] = subprocess.Popen([os.path.join(self.bin, name)], env=env, stdin=subprocess.DEVNULL,
                                                stdout=logf, stderr=logf)
            logf.close()
        self.port = self.wait(lambda: self.web_port(), 30, "alarm-web's listening line")
        if self.uinput:
            self.button = subprocess.Popen([sys.executable, os.path.join(ROOT, "system-test", "uinput.py"), BUTTON_NAME,
                                            str(BUTTON_KEY)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            if self.button.stdout.readline().strip() != "ready":
                sys.exit("bench/soak: uinput.py did not make the button")
            self.wait(lambda: "using " in self.text("alarm-button.log"), 30, "alarm-button to open the uinput device")
        # alarm-hooks follows events.jsonl: wait until it says it runs (its READY line in the log
        # or simply a few seconds of being alive are not a proof; the first cycle's hook run is).
        for name, p in self.procs.items():
            if p.poll() is not None:
                sys.exit("bench/soak: %s exited at start: %s" % (name, self.text(name + ".log")))

    def text(self, name):
        try:
            with open(os.path.join(self.root, name), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def web_port(self):
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", self.text("alarm-web.log"))
        return int(m.group(1)) if m else None

    @staticmethod
    def wait(predicate, timeout, what):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            v = predicate()
            if v:
                return v
            time.sleep(0.05)
        raise RuntimeError("bench/soak: timed out (%d s) waiting for %s" % (timeout, what))

    def close(self):
        if self.button and self.button.poll() is None:
            try:
                self.button.stdin.close()
            except OSError:
                pass
            try:
                self.button.wait(10)
            except subprocess.TimeoutExpired:
                self.button.kill()
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.d:
            self.d.close()
        if self.args.keep:
            log("kept %s%s" % (self.root, " and %s (its run)" % self.shm if self.shm else ""))
        else:
            shutil.rmtree(self.root, ignore_errors=True)
            if self.shm:
                shutil.rmtree(self.shm, ignore_errors=True)

    # ---- one cycle -----------------------------------------------------------------------
    def press(self, seconds):
        self.button.stdin.write("press %d %s\n" % (BUTTON_KEY, seconds))
        self.button.stdin.flush()
        line = self.button.stdout.readline()
        if not line.startswith("done"):
            raise RuntimeError("uinput.py: %r" % line)

    def snooze(self):
        if self.uinput:
            self.press(0.1)
        else:
            self.d.send("snooze %gs" % self.args.snooze)

    def stop(self):
        if self.uinput:
            self.press(HOLD + 0.3)
        else:
            self.d.send("stop")

    def poll_web(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            c.request("GET", "/api/status", headers={"Authorization": "Bearer " + self.token})
            r = c.getresponse()
            r.read()
            return r.status
        finally:
            c.close()

    def cycle(self, k):
        """One ring / snooze / re-ring / stop; returns None, or the phase that timed out."""
        d = self.d
        at = math.ceil(time.time() + self.args.lead)
        try:
            d.cli("add", "--at", rfc3339(at), "--id", "soak", "--snooze", "%gs" % self.args.snooze, "--label", "soak %d" % k)
        except RuntimeError as e:
            # At a short --lead the CLI may start after the second it was given (a loaded machine):
            # alarm refuses an instant already past, rightly. The next whole second then.
            if "has no time after now" not in str(e):
                raise
            at = math.ceil(time.time() + self.args.lead)
            d.cli("add", "--at", rfc3339(at), "--id", "soak", "--snooze", "%gs" % self.args.snooze, "--label", "soak %d" % k)
        ringing = lambda s: s.get("state") == "ringing" and s.get("alarm") == "soak"
        if d.wait_status(ringing, timeout=at - time.time() + 15)[0] is None:
            return "ring"
        time.sleep(self.args.sound_for)  # let it sound: a snooze before the first frame leaves no `started`
        self.snooze()
        # A short snooze may be over before status.json is read again: ringing with a snooze
        # counted is past the snoozed state too.
        rerung = lambda s: ringing(s) and (s.get("snoozes") or 0) >= 1
        if d.wait_status(lambda s: s.get("state") == "snoozed" or rerung(s), timeout=15)[0] is None:
            return "snooze"
        if d.wait_status(rerung, timeout=15)[0] is None:
            return "re-ring"
        time.sleep(self.args.sound_for)
        self.stop()
        if d.wait_status(lambda s: s.get("state") == "idle", timeout=15)[0] is None:
            return "stop"
        if self.poll_web() != 200:
            return "web"
        return None

    # ---- samples -------------------------------------------------------------------------
    def write(self, record):
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def sample(self, k, seconds_per_cycle):
        pids = {"alarmd": self.d.pid}
        pids.update({n: p.pid for n, p in self.procs.items()})
        procs = {}
        for name, pid in pids.items():
            try:
                procs[name] = proc_sample(pid)
            except (FileNotFoundError, ProcessLookupError):
                procs[name] = None
        st, rt = self.d.state, self.d.runtime
        files = {"history_bytes": size(os.path.join(st, "history.jsonl")),
                 "history_lines": lines(os.path.join(st, "history.jsonl")),
                 "events_bytes": size(os.path.join(rt, "events.jsonl")),
                 "events1_bytes": size(os.path.join(rt, "events.jsonl.1")),
                 "alarms_bytes": size(os.path.join(st, "alarms.json")),
                 "state_dir_bytes": tree_bytes(st), "runtime_dir_bytes": tree_bytes(rt),
                 "hook_runs": size(self.hook_ran)}
        self.last_sample = {"kind": "sample", "cycle": k, "t": time.time(), "seconds_per_cycle": seconds_per_cycle,
                            "procs": procs, "files": files, "misses": self.misses}
        self.write(self.last_sample)

    def run(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.args.samples)), exist_ok=True)
        self.out = open(self.args.samples, "w")
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, self.on_signal)
        self.misses = 0
        try:
            self.start()
            commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip() or "unknown"
            self.write({"kind": "meta", "started": rfc3339(time.time()), "cycles": self.args.cycles,
                        "sample_every": self.args.sample_every, "commit": commit,
                        "button": "uinput" if self.uinput else "fifo (no /dev/uinput: alarm-button attached, waiting)",
                        "nproc": os.cpu_count(), "load": open("/proc/loadavg").read().split()[0],
                        "kernel": os.uname().release, "runtime_dir_fs": "tmpfs" if self.shm else "the disk", "command": "python3 bench/soak.py " + " ".join(sys.argv[1:]),
                        "lead": self.args.lead, "snooze": self.args.snooze, "sound_for": self.args.sound_for})
            procstats.settle(self.d.pid, timeout=10)
            self.sample(0, None)
            t_last, k_last = time.monotonic(), 0
            consecutive = 0
            k = 0
            while k < self.args.cycles and not self.stopping:
                k += 1
                try:
                    missed = self.cycle(k)
                except (OSError, RuntimeError, http.client.HTTPException) as e:
                    missed = "error: %s" % e
                if self.d.proc.poll() is not None:
                    self.write({"kind": "end", "cycle": k, "why": "alarmd exited %s" % self.d.proc.returncode,
                                "log": self.d.log_tail()})
                    return 1
                if missed:
                    self.misses += 1
                    consecutive += 1
                    self.write({"kind": "miss", "cycle": k, "phase": missed, "status": self.d.status()})
                    log("cycle %d: %s did not come in time" % (k, missed))
                    # Whatever state it was left in: stop it, so the next cycle starts idle.
                    try:
                        self.d.send("stop")
                        self.d.wait_status(lambda s: s.get("state") == "idle", timeout=15)
                    except OSError:
                        pass
                    if consecutive >= 10:
                        self.write({"kind": "end", "cycle": k, "why": "10 cycles in a row missed"})
                        return 1
                else:
                    consecutive = 0
                if k % self.args.sample_every == 0 or k == self.args.cycles or self.stopping:
                    now = time.monotonic()
                    self.sample(k, (now - t_last) / (k - k_last))
                    a = self.last_sample["procs"]["alarmd"] or {}
                    log("cycle %d: %.2f s a cycle, alarmd rss %s KiB, %s fds, %s threads" % (
                        k, (now - t_last) / (k - k_last), a.get("rss", 0) // 1024, a.get("fds"), a.get("threads")))
                    t_last, k_last = now, k
            self.write({"kind": "end", "cycle": k, "why": "stopped by a signal" if self.stopping else "done"})
            return 0
        finally:
            self.out.close()
            self.close()

    def on_signal(self, signum, frame):
        self.stopping = True


# ---- the report ------------------------------------------------------------------------------
def slope(points):
    """Least-squares slope of (x, y) points; None with fewer than two distinct x."""
    if len(points) < 2:
        return None
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


def kib(b):
    return "—" if b is None else "%s KiB" % format(int(round(b / 1024)), ",")


def report(path, out):
    with open(path) as f:
        rec = [json.loads(x) for x in f if x.strip()]
    meta = next((r for r in rec if r["kind"] == "meta"), {})
    samples = [r for r in rec if r["kind"] == "sample"]
    misses = [r for r in rec if r["kind"] == "miss"]
    end = next((r for r in rec if r["kind"] == "end"), None)
    if len(samples) < 2:
        sys.exit("bench/soak: %s has fewer than two samples" % path)
    first, last = samples[0], samples[-1]
    cycles = last["cycle"]
    half = [s for s in samples if s["cycle"] >= cycles / 2]
    spc = [s["seconds_per_cycle"] for s in samples if s["seconds_per_cycle"]]
    mean_spc = (last["t"] - first["t"]) / cycles if cycles else None
    L = [SOAK_HEADING, ""]
    w = L.append
    w("Produced by `%s` (commit %s, started %s, load %s on %s cores) and written here by "
      "`python3 bench/soak.py --report %s`; nothing here is typed by hand. One alarmd (release build, "
      "device `null`) with alarm-hooks (one hook, a shell script), alarm-web (GET /api/status with the token "
      "after each cycle, a new connection each time) and alarm-button attached; button: %s. A cycle: "
      "`alarm add --at` a once alarm at the next whole second at least %g s away, it rings (alarmd's timer), "
      "snooze %g s, it rings again, stop (each ring sounds %g s before the press)." % (
          meta.get("command", "python3 bench/soak.py"), meta.get("commit", "?"), meta.get("started", "?"),
          meta.get("load", "?"), meta.get("nproc", "?"), os.path.relpath(path, ROOT) if path.startswith(ROOT) else path,
          meta.get("button", "?"), meta.get("lead", 1.0), meta.get("snooze", 1.0), meta.get("sound_for", 0.2)))
    w("")
    w("%s cycles of %s asked for (%s), %d missed, %d samples; %.2f s a cycle on average (fastest sample window "
      "%.2f s, slowest %.2f s): 10,000 cycles take about %.1f hours at this pace; %s hook runs." % (
          format(cycles, ","), format(meta.get("cycles", 0), ","), end["why"] if end else "still running or cut short",
          len(misses), len(samples), mean_spc or 0, min(spc) if spc else 0, max(spc) if spc else 0,
          10000 * (mean_spc or 0) / 3600, format(last["files"]["hook_runs"], ",")))
    w("")
    w("Growth per 1,000 cycles: the least-squares slope over the samples of the second half of the run "
      "(cycle %d on), after the start-up's allocations have settled; for the counters (bytes written, CPU) it "
      "is their rate. Samples are taken between cycles, with nothing ringing. The runtime directory (status.json, "
      "events.jsonl) is on %s, as /run/alarm is on a real machine; the state directory (history.jsonl, "
      "alarms.json, state.json) on the disk: \"written to the disk\" is /proc/PID/io write_bytes (pages "
      "dirtied), \"written (write calls)\" its wchar." % (half[0]["cycle"] if half else 0,
                                                            meta.get("runtime_dir_fs", "?")))
    w("")
    w("| process | figure | start | end | max | growth per 1,000 cycles |")
    w("|---|---|---:|---:|---:|---:|")
    verdicts = []
    for name in ("alarmd", "alarm-web", "alarm-hooks", "alarm-button"):
        ps = [(s["cycle"], s["procs"].get(name)) for s in samples if s["procs"].get(name)]
        if not ps:
            continue
        hs = [(c, p) for c, p in ps if c >= cycles / 2]
        for key, label, fmt in (("rss", "resident", kib), ("anon", "anonymous", kib), ("private", "private", kib),
                                ("fds", "open descriptors", str), ("threads", "threads", str),
                                ("write_bytes", "written to the disk", kib), ("wchar", "written (write calls)", kib),
                                ("cpu", "CPU seconds", lambda x: "%.1f s" % x)):
            vals = [p[key] for _, p in ps if p.get(key) is not None]
            if not vals:
                continue
            g = slope([(c, p[key]) for c, p in hs if p.get(key) is not None])
            g1000 = None if g is None else g * 1000
            gtext = "—" if g1000 is None else (("%+.1f s" % g1000) if key == "cpu" else
                                               ("%+.1f" % g1000) if key in ("fds", "threads") else
                                               ("%+.1f KiB" % (g1000 / 1024)))
            w("| %s | %s | %s | %s | %s | %s |" % (name, label, fmt(vals[0]), fmt(vals[-1]), fmt(max(vals)), gtext))
            # Against the first half after cycle 0 (which is before the first ring: the player,
            # the first requests and hooks open what they keep open).
            early = [p[key] for c, p in ps if 0 < c < cycles / 2 and p.get(key) is not None]
            late = [p[key] for c, p in hs if p.get(key) is not None]
            if key in ("fds", "threads") and early and late:
                ok = max(late) <= max(early)
                verdicts.append((name, label, ok, "at most %s in the first half after cycle 0, at most %s in the second" % (
                    max(early), max(late))))
            if key == "anon" and early and late:
                # Anonymous memory grows by whole pages: growth is a slope over the second half
                # beyond 64 KiB per 1,000 cycles (65 bytes a cycle) *and* a second half whose
                # maximum is more than 64 KiB over the first half's (so that one page in a short
                # run is not called a leak; a short run cannot see a leak of a few bytes a cycle).
                ok = g1000 is None or g1000 <= 64 * 1024 or max(late) - max(early) <= 64 * 1024
                verdicts.append((name, label + " memory", ok, "%s per 1,000 cycles over the second half; max %s in the first "
                                 "half after cycle 0, %s in the second" % (gtext, kib(max(early)), kib(max(late)))))
    w("")
    w("| file | start | end | max | growth per 1,000 cycles | its bound |")
    w("|---|---:|---:|---:|---:|---|")
    bounds = {"history_lines": ("history.jsonl, lines", str, "%d lines (trimmed to 1,000)" % HISTORY_MAX_LINES,
                                HISTORY_MAX_LINES),
              "history_bytes": ("history.jsonl", kib, "its lines'", None),
              "events_bytes": ("events.jsonl", kib, "1 MiB, then renamed to events.jsonl.1", EVENTS_MAX_BYTES),
              "events1_bytes": ("events.jsonl.1", kib, "1 MiB (the one before is replaced)", EVENTS_MAX_BYTES),
              "alarms_bytes": ("alarms.json", kib, "one alarm at a time here", None),
              "state_dir_bytes": ("the state directory", kib, "the files above", None),
              "runtime_dir_bytes": ("the runtime directory", kib, "the event logs", None)}
    for key, (label, fmt, bound, limit) in bounds.items():
        vals = [s["files"][key] for s in samples]
        g = slope([(s["cycle"], s["files"][key]) for s in half])
        gtext = "—" if g is None else ("%+.1f" % (g * 1000) if key == "history_lines" else "%+.1f KiB" % (g * 1000 / 1024))
        w("| %s | %s | %s | %s | %s | %s |" % (label, fmt(vals[0]), fmt(vals[-1]), fmt(max(vals)), gtext, bound))
        if limit is not None:
            # A log's own bound: at most a line over it (the append that passes it triggers the
            # trim or the rename).
            over = max(vals) > limit + (0 if key == "history_lines" else 4096)
            reached = max(vals) >= limit * 0.9
            verdicts.append((label, "bound", not over, "max %s of %s%s" % (
                fmt(max(vals)), fmt(limit), "" if reached else "; not reached in this run, so its rotation was not exercised")))
    w("")
    w("| goal: no growth beyond the logs' own rotation bounds | | |")
    w("|---|---|---|")
    for who, what, ok, why in verdicts:
        w("| %s, %s | %s | %s |" % (who, what, "met" if ok else "**not met**", why))
    w("")
    if misses:
        w("Missed cycles: " + ", ".join("%d (%s)" % (m["cycle"], m["phase"]) for m in misses[:20]) +
          (" and %d more" % (len(misses) - 20) if len(misses) > 20 else "") + ".")
        w("")
    section = "\n".join(L)
    text = open(out).read() if os.path.exists(out) else ""
    at = text.find(SOAK_HEADING + "\n")
    nxt = text.find("\n## ", at + len(SOAK_HEADING)) if at >= 0 else -1
    if at >= 0:
        text = text[:at] + section + ("\n" + text[nxt + 1:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(out, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    print(section)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=10000)
    ap.add_argument("--sample-every", type=int, default=50)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--samples", default=os.path.join(ROOT, ".build", "bench", "soak.jsonl"))
    ap.add_argument("--lead", type=float, default=1.0,
                    help="the alarm is due at the next whole second at least this far away (default 1)")
    ap.add_argument("--snooze", type=float, default=1.0, help="the snooze length, seconds (default 1)")
    ap.add_argument("--sound-for", type=float, default=0.2,
                    help="how long each ring sounds before it is snoozed or stopped (default 0.2)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, state)")
    ap.add_argument("--report", metavar="SAMPLES", help="write the section from SAMPLES instead of running")
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    args = ap.parse_args()
    if args.report:
        report(args.report, args.out)
        return 0
    return Soak(args).run()


if __name__ == "__main__":
    sys.exit(main())

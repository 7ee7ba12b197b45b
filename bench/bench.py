#!/usr/bin/env python3
"""alarm's benchmarks (issues #4, #6 and #9): alarmd and the alarm CLI measured as processes, side by
side with cron firing a player and one-second polling loops, on this machine, in one run; then
the same commands with stores of 100 to 100,000 alarms (the scale section).

Prints the figures and writes a Markdown report. It asserts nothing about wall-clock times:
these machines are shared and noisy, so it reports medians and says what the load was.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import competitors  # noqa: E402
import harness  # noqa: E402
import procstats  # noqa: E402
import report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# scale_sizes: the store sizes of issue #9 (an empty store is always measured too, as the base of
# the cost per alarm); reps at each size, scale_reps_100k at 100,000 alarms and more, where one
# round of start-up, list, list --json, export, add, remove takes tens of seconds.
SCALE_SIZES = [100, 1_000, 10_000, 100_000]
FULL = dict(idle=60, delay_alarms=120, pulse_rings=20, pulse_first_frames=100, snoozes=5, post_idle=60, reps=10, cron_minutes=4,
            scale_sizes=SCALE_SIZES, scale_reps_100k=5)
QUICK = dict(idle=15, delay_alarms=20, pulse_rings=3, pulse_first_frames=10, snoozes=2, post_idle=10, reps=3, cron_minutes=1,
             scale_sizes=SCALE_SIZES, scale_reps_100k=1)


def log(msg):
    print("bench: " + msg, flush=True)


# Issue #29's yardstick for `alarm list --json`: Python's json module (its C encoder and decoder)
# reading and writing the same alarms.json. Run as a process, spawn to exit, like the alarm
# commands, with the interpreter that runs this bench (sys.executable: no shim such as pyenv's in
# front of it, whose own start-up would be counted as Python's).
PYTHON_ROUND_TRIP = "import json, sys; json.dumps(json.loads(open(sys.argv[1], encoding='utf-8').read()))"


def python_round_trip(path, stdout_path):
    """Seconds from spawn to exit of PYTHON_ROUND_TRIP over the file at `path`."""
    with open(stdout_path, "w") as out:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", PYTHON_ROUND_TRIP, path], stdout=out, check=True)
        return time.perf_counter() - t0


def rfc3339(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def parse_time(s):
    return datetime.fromisoformat(s).timestamp()


def once_alarm(id, at, sound=None):
    return {"at": rfc3339(at), "fade_in": None, "id": id, "label": None, "mode": "absolute", "once": True,
            "ring": None, "skip_next": False, "snooze": None, "sound": sound, "volume": None, "zone": None}


def playing(status, alarm):
    """status.json shows `alarm` ringing. (It does not tell whether the first frame went out yet:
    `sound` reads "default" before that too, so callers wait a little before stopping.)"""
    return status.get("state") == "ringing" and status.get("alarm") == alarm


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") or line.startswith("Model"):
                cpu = line.split(":", 1)[1].strip()
                break
    osname = "?"
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    with open("/proc/meminfo") as f:
        mem = f.readline().split()[1]
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(), "os": osname,
            "swift": swift[0] if swift else "?", "memory_gib": int(mem) / 1024 / 1024,
            "python": "%s (%s)" % (platform.python_version(), sys.executable)}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Bench:
    def __init__(self, args):
        self.args = args
        self.p = QUICK if args.quick else FULL
        self.bin = os.path.join(ROOT, ".build", "release")
        self.tmp = tempfile.mkdtemp(prefix="alarm-bench-")
        self.r = {"mode": "quick" if args.quick else "full", "params": self.p, "notes": []}
        self.cleanup = []

    def note(self, text):
        log("note: " + text)
        self.r["notes"].append(text)

    # ---- phases -------------------------------------------------------------------------

    def build(self):
        if self.args.no_build:
            return
        # As the package builds them (scripts/install): the Swift runtime linked in statically, so
        # what is timed is what a user runs, start-up included (no libswiftCore.so to load).
        # Every product: alarm-web and alarm-web-baseline too (bench/web.py's), unless ALARM_WEB=0.
        # And linked as the package links them (scripts/lib/layout.sh's release_link_args: lld,
        # packed relocations, no exported symbols).
        link = subprocess.run(["bash", "-c", ". scripts/lib/layout.sh && release_link_args"], cwd=ROOT,
                              check=True, stdout=subprocess.PIPE, text=True).stdout.split()
        log("building release binaries (swift build -c release --static-swift-stdlib %s)" % " ".join(link))
        t0 = time.monotonic()
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib"] + link, cwd=ROOT, check=True)
        self.r["build_seconds"] = time.monotonic() - t0

    def start_pulse(self):
        if not (shutil.which("pulseaudio") and shutil.which("parec")):
            self.note("pulseaudio/parec not installed: the null-sink figures are left out (scripts/deps installs them)")
            return None
        try:
            pulse = harness.PulseSink("alarmbench%d" % os.getpid())
        except Exception as e:  # noqa: BLE001 - reported, the rest still runs
            self.note("PulseAudio null sink did not start: %s" % e)
            return None
        self.cleanup.append(pulse.close)
        return pulse

    def daemon(self, name, device="null", config="", pulse=None):
        d = harness.Alarmd(self.bin, os.path.join(self.tmp, name), device=device, config=config,
                           extra_env=pulse.env if pulse else None,
                           sounds_dir=os.path.join(self.tmp, "sounds"))
        self.cleanup.append(d.close)
        return d

    def idle_and_competitors(self, main):
        """alarmd, cron and the polling loops idle over the same window; then cron's minutes start."""
        p = self.p
        now = time.time()
        idle_end = now + 2 + p["idle"]
        first_minute = (int(idle_end + 8) // 60 + 1) * 60
        minutes = [first_minute + 60 * k for k in range(p["cron_minutes"])]
        self.cron_minutes = minutes
        labels = [time.strftime("%H:%M", time.gmtime(t)) for t in minutes]
        out = os.path.join(self.tmp, "competitors")
        os.makedirs(out, exist_ok=True)
        self.cron = competitors.Cron(os.path.join(out, "cron.times"))
        self.cleanup.append(self.cron.close)
        if self.cron.problem:
            self.note("cron left out: " + self.cron.problem)
        else:
            self.cron.schedule(minutes)
        self.minute_loops = {}
        for kind in ("bash", "python"):
            loop = competitors.Loop(kind, "%H:%M", labels, os.path.join(out, kind + "-minute.times"))
            self.cleanup.append(loop.close)
            self.minute_loops[kind] = loop
        main.cli("add", "--in", "24h", "--id", "far")
        time.sleep(2)
        samples = {"alarmd": procstats.IdleSample(main.pid, log=main.log_path)}
        if self.cron.pid:
            samples["cron"] = procstats.IdleSample(self.cron.pid)
        samples["bash loop"] = procstats.IdleSample(self.minute_loops["bash"].pid, children=True)
        samples["python loop"] = procstats.IdleSample(self.minute_loops["python"].pid)
        log("idle: sampling alarmd, cron and the polling loops for %d s" % p["idle"])
        t0 = time.time()
        for s in samples.values():
            s.start(t0)
        time.sleep(p["idle"])
        t1 = time.time()
        self.r["idle"] = {k: s.finish(t1) for k, s in samples.items()}
        if self.cron.pid and not self.cron.own:
            self.note("used the cron daemon already running (pid %d)" % self.cron.pid)
        log("idle: " + ", ".join("%s %.1f wake-ups/min" % (k, v["wakeups_per_min"]) for k, v in self.r["idle"].items()))

    def delay_run(self):
        """Many once alarms 1, 2 or 3 s apart on the `null` PCM: each is seen ringing, stopped over
        the FIFO, seen idle. Polling loops with %H:%M:%S targets run alongside, on the same seconds."""
        n = self.p["delay_alarms"]
        d = self.daemon("delay", device="null")
        d.start()
        first = int(time.time()) + 4
        instants, t = [], first
        for k in range(n):
            instants.append(t)
            t += 1 + k % 3
        alarms = [once_alarm("d%03d" % k, t) for k, t in enumerate(instants)]
        path = os.path.join(self.tmp, "delay-alarms.json")
        with open(path, "w") as f:
            json.dump(alarms, f)
        d.cli("import", path)
        labels = [time.strftime("%H:%M:%S", time.gmtime(t)) for t in instants]
        out = os.path.join(self.tmp, "competitors")
        loops = {k: competitors.Loop(k, "%H:%M:%S", labels, os.path.join(out, k + "-second.times"))
                 for k in ("bash", "python")}
        for loop in loops.values():
            self.cleanup.append(loop.close)
        log("delay: %d alarms 1-3 s apart from %s (about %d s)" % (n, rfc3339(first), instants[-1] - first + 4))
        stops, seen = [], []
        missed = []
        for k, a in enumerate(alarms):
            t_seen, st = d.wait_status(lambda s, i=a["id"]: playing(s, i),
                                       timeout=instants[k] - time.time() + 5)
            if t_seen is None:
                missed.append(a["id"])
                continue
            seen.append(t_seen - instants[k])
            time.sleep(0.3)  # let it sound: a stop before the first frame leaves no `started`
            t_w = d.send("stop")
            t_idle, _ = d.wait_status(lambda s: s.get("state") == "idle", timeout=3)
            if t_idle is not None:
                stops.append(t_idle - t_w)
        time.sleep(1.5)
        for loop in loops.values():
            loop.close()
        hist = {h["alarm"]: h for h in d.history() if h["alarm"].startswith("d")}
        delays = [parse_time(h["started"]) - parse_time(h["scheduled"]) for h in hist.values() if h.get("started")]
        lates = sum(1 for h in hist.values() if h.get("late"))
        outcomes = {}
        for h in hist.values():
            outcomes[h["outcome"]] = outcomes.get(h["outcome"], 0) + 1
        self.r["delay"] = {
            "alarms": n, "history_entries": len(hist), "late": lates, "outcomes": outcomes, "not_seen": missed,
            "first_frame": procstats.summary(delays),
            "status_ringing": procstats.summary(seen),
            "stop_to_idle": procstats.summary(stops),
        }
        for kind, loop in loops.items():
            dl, miss = competitors.match(instants, competitors.fired(loop.out), window=5)
            self.r["delay"][kind + " loop (seconds)"] = {"delay": procstats.summary(dl), "missed": miss}
        n_set = procstats.count_lines(d.log_path, procstats.IdleSample.CLOCK_SET)
        if n_set:
            self.note("the system clock was set %d time(s) during the delay run (alarmd's log): the delays around it "
                      "are measured across a clock step" % n_set)
        self.r["delay"]["prerolled"] = procstats.count_lines(d.log_path, "(pre-rolled)")
        d.close()
        fd = self.r["delay"]["first_frame"]
        if fd:
            log("delay: first frame median %.2f ms, p99 %.2f ms, max %.2f ms over %d (%d pre-rolled)" %
                (fd["median"] * 1e3, fd["p99"] * 1e3, fd["max"] * 1e3, fd["n"], self.r["delay"]["prerolled"]))

    def pulse_run(self, main, pulse):
        """Rings on the PulseAudio null sink (paced like a sound card), recorded from its monitor:
        delay, stop latency to silence, snooze accuracy, memory while ringing."""
        k_rings, k_snoozes = self.p["pulse_rings"], self.p["snoozes"]
        rec = os.path.join(self.tmp, "pulse.raw")
        pulse.record(rec)
        time.sleep(0.5)
        rings = []
        ringing_mem = None
        main.cli("remove", "far")
        log("pulse: %d rings stopped over the FIFO, %d snoozed for 5 s" % (k_rings, k_snoozes))
        first = int(time.time()) + 3
        ids = ["p%02d" % k for k in range(k_rings)] + ["s%02d" % k for k in range(k_snoozes)]
        # Rings 3 s apart; snoozes 9 s apart (ring 1 s, snooze 5 s, ring again 1 s).
        instants, t = [], first
        for i in ids:
            instants.append(t)
            t += 3 if i.startswith("p") else 9
        path = os.path.join(self.tmp, "pulse-alarms.json")
        with open(path, "w") as f:
            json.dump([once_alarm(i, at, sound="sine.wav") for i, at in zip(ids, instants)], f)
        main.cli("import", path)
        snoozes = []
        for i, at in zip(ids, instants):
            t_seen, _ = main.wait_status(lambda s, i=i: playing(s, i),
                                         timeout=at - time.time() + 5)
            if t_seen is None:
                self.note("pulse: %s was not seen ringing" % i)
                continue
            time.sleep(1.0)
            if ringing_mem is None:
                ringing_mem = procstats.memory(main.pid)
                ringing_mem["wakeups"] = procstats.switches(main.pid)
            if i.startswith("s"):
                t_w = main.send("snooze 5s")
                t_sn, st = main.wait_status(lambda s: s.get("state") == "snoozed", timeout=3)
                t_again, _ = main.wait_status(lambda s, i=i: playing(s, i), timeout=10)
                time.sleep(1.0)
                snoozes.append({"id": i, "written": t_w, "seen_again": t_again})
            t_w = main.send("stop")
            t_idle, _ = main.wait_status(lambda s: s.get("state") == "idle", timeout=3)
            rings.append({"id": i, "stop_written": t_w, "idle_seen": t_idle})
        time.sleep(1.0)
        pulse.stop_recording()
        hist = main.history()
        by_id = {}
        for h in hist:
            by_id.setdefault(h["alarm"], []).append(h)
        # Recording: one burst of sound per ring (a snoozed alarm makes two).
        bursts = harness.sound_bursts(rec, pulse.rate)
        expected = [(i, n) for i in ids for n in range(2 if i.startswith("s") else 1)]
        res = {"rings": len(rings), "bursts": len(bursts), "expected_bursts": len(expected)}
        delays, to_idle, to_silence = [], [], []
        stop_of = {r["id"]: r for r in rings}
        for i in ids:
            entries = by_id.get(i, [])
            # The first entry is the scheduled ring; a snoozed alarm's second is the re-ring.
            if entries and entries[0].get("started"):
                delays.append(parse_time(entries[0]["started"]) - parse_time(entries[0]["scheduled"]))
        for r in rings:
            if r["idle_seen"]:
                to_idle.append(r["idle_seen"] - r["stop_written"])
        if len(bursts) == len(expected):
            for (i, n), (b0, b1) in zip(expected, bursts):
                entries = by_id.get(i, [])
                if n < len(entries) and entries[n].get("started"):
                    started = parse_time(entries[n]["started"])
                    written = stop_of[i]["stop_written"] if (n == 1 or not i.startswith("s")) else \
                        next(s["written"] for s in snoozes if s["id"] == i)
                    heard = (b1 - b0 + 1) / pulse.rate
                    to_silence.append(heard - (written - started))
        else:
            self.note("pulse: %d bursts of sound recorded for %d rings: stop-to-silence left out" % (len(bursts), len(expected)))
        snooze_daemon, snooze_user = [], []
        for s in snoozes:
            entries = by_id.get(s["id"], [])
            if len(entries) >= 2 and entries[0]["outcome"] == "snoozed" and entries[1].get("started"):
                again = parse_time(entries[1]["started"])
                snooze_daemon.append(again - (parse_time(entries[0]["ended"]) + 5))
                snooze_user.append(again - (s["written"] + 5))
        res.update({
            "first_frame": procstats.summary(delays),
            "stop_to_idle": procstats.summary(to_idle),
            "stop_to_silence": procstats.summary(to_silence),
            "snooze_vs_snoozed_at": procstats.summary(snooze_daemon),
            "snooze_vs_written": procstats.summary(snooze_user),
            "ringing_memory": ringing_mem,
        })
        self.r["pulse"] = res
        n_set = procstats.count_lines(main.log_path, procstats.IdleSample.CLOCK_SET)
        if n_set:
            self.note("the system clock was set %d time(s) while the main alarmd ran (its log)" % n_set)
        log("pulse: %d rings, %d bursts recorded" % (len(rings), len(bursts)))

    def pulse_first_frames(self, main):
        """Issue #11, pre-roll: many once alarms 2 s apart on the PulseAudio sink (`pulse` PCM),
        each seen ringing and stopped at once, so the next is pre-rolled; `started − scheduled`
        from history."""
        n = self.p["pulse_first_frames"]
        first = int(time.time()) + 4
        ids = ["f%03d" % k for k in range(n)]
        instants = [first + 2 * k for k in range(n)]
        path = os.path.join(self.tmp, "pulse-first-frames.json")
        with open(path, "w") as f:
            json.dump([once_alarm(i, at, sound="sine.wav") for i, at in zip(ids, instants)], f)
        before = procstats.count_lines(main.log_path, "(pre-rolled)")
        log("pulse: %d once alarms 2 s apart for the first-frame figure (about %d s)" % (n, 2 * n + 4))
        main.cli("import", path)
        missed = []
        for i, at in zip(ids, instants):
            t_seen, _ = main.wait_status(lambda s, i=i: playing(s, i), timeout=at - time.time() + 5)
            if t_seen is None:
                missed.append(i)
                continue
            time.sleep(0.2)
            main.send("stop")
            main.wait_status(lambda s: s.get("state") == "idle", timeout=3)
        time.sleep(0.5)
        hist = {h["alarm"]: h for h in main.history() if h.get("alarm", "").startswith("f")}
        delays = [parse_time(h["started"]) - parse_time(h["scheduled"]) for h in hist.values() if h.get("started")]
        res = {"alarms": n, "history_entries": len(hist), "not_seen": missed,
               "late": sum(1 for h in hist.values() if h.get("late")),
               "prerolled": procstats.count_lines(main.log_path, "(pre-rolled)") - before,
               "first_frame": procstats.summary(delays)}
        self.r["pulse_first_frames"] = res
        fd = res["first_frame"]
        if fd:
            log("pulse: first frame median %.2f ms, p99 %.2f ms, max %.2f ms over %d (%d pre-rolled)" %
                (fd["median"] * 1e3, fd["p99"] * 1e3, fd["max"] * 1e3, fd["n"], res["prerolled"]))

    def post_ring_idle(self, main):
        main.cli("add", "--in", "24h", "--id", "far")
        time.sleep(2)
        s = procstats.IdleSample(main.pid, log=main.log_path)
        s.start(time.time())
        time.sleep(self.p["post_idle"])
        self.r["idle_after_rings"] = s.finish(time.time())

    def scale(self):
        """Issue #9: the same measurements with an empty store and with SCALE_SIZES alarms (one
        function for every size), then the binaries' sizes."""
        sizes = self.args.sizes if self.args.sizes is not None else self.p["scale_sizes"]
        res = {"sizes": sizes, "points": [], "binaries": binaries(self.bin, ROOT)}
        self.r["scale"] = res
        if self.p.get("scale_note") and self.args.sizes is None:
            self.note(self.p["scale_note"])
        now = time.time()
        for n in [0] + [n for n in sizes if n > 0]:
            reps = self.p["scale_reps_100k"] if n >= 100_000 else self.p["reps"]
            res["points"].append(self.scale_point(n, reps, now))

    def scale_point(self, n, reps, now):
        """A fresh alarmd whose store holds `n` alarms of big_store (imported with `alarm import`):
        `reps` start-ups to READY, then `reps` rounds of list, list --json, export, Python's json
        round trip of the same alarms.json (issue #29's yardstick), add, remove, with alarmd
        running, each timed from spawn to exit; alarmd's CPU (/proc utime+stime) from just before
        each add / remove until its status shows the change and it is idle again
        (procstats.run_seconds: schedstat, ns)."""
        t_point = time.monotonic()
        # Issue #12: a holidays file (iCalendar, as calendar apps export them) for the store's
        # --skip-holidays alarms; alarmd and every `alarm` command read it.
        holidays = os.path.join(self.tmp, "holidays%d.ics" % n)
        with open(holidays, "w") as f:
            f.write(holidays_ics(now))
        d = self.daemon("scale%d" % n, device="null", config="holidays = %s\n" % holidays)
        store = os.path.join(d.state, "alarms.json")
        res = {"alarms": n, "reps": reps}
        if n:
            path = os.path.join(self.tmp, "scale%d.json" % n)
            with open(path, "w") as f:
                json.dump(big_store(n, now), f)
            res["import_file_bytes"] = os.path.getsize(path)
            res["import"], _ = d.cli("import", path)
            os.unlink(path)
        res["alarms_json_bytes"] = os.path.getsize(store) if os.path.exists(store) else 0
        slow = 1 + n / 2000  # seconds to allow per wait: ~51 s at 100,000 alarms
        # The first start has no saved state (every alarm is new to the engine): shown apart.
        r, s = d.start(timeout=30 + slow)
        res["first_start"] = {"ready": r, "status": s}
        d.stop(timeout=10 + slow)
        ready, status = [], []
        for _ in range(reps):
            r, s = d.start(timeout=30 + slow)
            ready.append(r)
            status.append(s)
            d.stop(timeout=10 + slow)
        res["ready"], res["status"] = procstats.summary(ready), procstats.summary(status)
        d.start(timeout=30 + slow)
        procstats.settle(d.pid, timeout=slow)
        res["idle_memory"] = procstats.memory(d.pid)
        out = os.path.join(self.tmp, "stdout")
        t = {k: [] for k in ("list", "list_json", "export", "add", "remove", "add_to_daemon_next",
                             "reload_cpu_add", "reload_cpu_remove", "python_json")}
        unsettled = 0

        def change(key, args, seen):
            """One store change by the CLI: its wall time, and alarmd's CPU until it shows the change."""
            nonlocal unsettled
            cpu0 = procstats.run_seconds(d.pid)
            d.watch.drain()
            t0 = time.time()
            secs, _ = d.cli(*args, stdout_path=out)
            t[key].append(secs)
            t_seen, _ = d.wait_status(seen, timeout=5 + slow)
            cpu1, settled = procstats.settle(d.pid, timeout=5 + slow)
            unsettled += not (t_seen and settled)
            t["reload_cpu_" + key].append(cpu1 - cpu0)
            return t_seen and t_seen - t0

        for k in range(reps):
            probe = "probe%d" % k
            for key, args in (("list", ["list"]), ("list_json", ["list", "--json"]), ("export", ["export"])):
                secs, _ = d.cli(*args, stdout_path=out + "." + key)
                t[key].append(secs)
            if n:  # the same alarms.json `list --json` just read (the probe comes and goes below)
                t["python_json"].append(python_round_trip(store, out + ".python"))
            seen = change("add", ["add", "--in", "30m", "--id", probe],
                          lambda s, p=probe: (s.get("next") or {}).get("id") == p)
            if seen:
                t["add_to_daemon_next"].append(seen)
            change("remove", ["remove", probe], lambda s, p=probe: (s.get("next") or {}).get("id") != p)
        res["export_bytes"] = os.path.getsize(out + ".export")
        with open(out + ".list", "rb") as f:
            res["list_lines"] = sum(1 for _ in f)
        if unsettled:
            self.note("%d alarms: %d add/remove(s) not seen in status.json or alarmd not idle again in time; "
                      "their CPU is counted up to the timeout" % (n, unsettled))
        res.update({k: procstats.summary(v) for k, v in t.items()})
        if res["python_json"]:
            res["list_json_vs_python"] = res["list_json"]["median"] / res["python_json"]["median"]
        d.close()
        res["seconds"] = time.monotonic() - t_point
        log("scale %d alarms (%d reps, %.0f s): READY %.0f ms, list %.0f ms, list --json %.0f ms, export %.0f ms, "
            "add %.0f ms, remove %.0f ms, reload CPU %.0f / %.0f ms%s" % (
                n, reps, res["seconds"], res["ready"]["median"] * 1e3, res["list"]["median"] * 1e3,
                res["list_json"]["median"] * 1e3, res["export"]["median"] * 1e3, res["add"]["median"] * 1e3,
                res["remove"]["median"] * 1e3, res["reload_cpu_add"]["median"] * 1e3,
                res["reload_cpu_remove"]["median"] * 1e3,
                "; Python's json round trip %.0f ms, list --json / Python %.2fx" % (
                    res["python_json"]["median"] * 1e3, res["list_json_vs_python"]) if res["python_json"] else ""))
        return res

    def finish_competitors(self):
        if self.cron_minutes:
            wait = self.cron_minutes[-1] + 5 - time.time()
            if wait > 0:
                log("waiting %.0f s for the last cron minute" % wait)
                time.sleep(wait)
        res = {"minutes": len(self.cron_minutes)}
        if self.cron.pid:
            dl, miss = competitors.match(self.cron_minutes, competitors.fired(self.cron.out), window=50)
            res["cron"] = {"delay": procstats.summary(dl), "missed": miss}
        for kind, loop in self.minute_loops.items():
            loop.close()
            dl, miss = competitors.match(self.cron_minutes, competitors.fired(loop.out), window=50)
            res[kind + " loop (minutes)"] = {"delay": procstats.summary(dl), "missed": miss}
        self.cron.close()
        self.r["minutes"] = res

    def alarm_bench(self):
        exe = os.path.join(self.bin, "alarm-bench")
        if not os.path.exists(exe):
            return
        log("in-process figures: .build/release/alarm-bench")
        r = subprocess.run([exe], capture_output=True, text=True, timeout=600)
        self.r["alarm_bench"] = (r.stdout + r.stderr).strip()
        print(self.r["alarm_bench"])

    def side_by_side(self):
        """Every phase: alarmd next to cron and the loops, then the scale figures."""
        pulse = self.start_pulse()
        # No fade-in, so the recorded sound starts at full level with the first frame.
        main = self.daemon("main", device="pulse" if pulse else "null", config="fade_in = 0\n", pulse=pulse)
        main.start()
        self.idle_and_competitors(main)
        self.r["idle_memory"] = procstats.memory(main.pid)
        self.delay_run()
        if pulse:
            self.pulse_run(main, pulse)
            self.pulse_first_frames(main)
            self.post_ring_idle(main)
        self.scale()  # meanwhile cron's last minute comes
        self.finish_competitors()
        main.close()
        if not self.args.quick:  # the quick run leaves the in-process figures out
            self.alarm_bench()

    def run(self):
        t_start = time.time()
        self.r["machine"] = machine()
        self.r["started"] = rfc3339(t_start)
        self.r["load_start"] = loadavg()
        self.build()
        os.makedirs(os.path.join(self.tmp, "sounds"))
        harness.write_sine(os.path.join(self.tmp, "sounds", "sine.wav"))
        self.cron_minutes = []
        try:
            if self.args.only == "scale":
                self.scale()
            else:
                self.side_by_side()
        finally:
            for f in reversed(self.cleanup):
                try:
                    f()
                except Exception as e:  # noqa: BLE001
                    log("cleanup: %s" % e)
            if not self.args.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
        self.r["load_end"] = loadavg()
        self.r["seconds"] = time.time() - t_start
        return self.r


def holidays_ics(now):
    """A holiday calendar as calendar apps export one: yearly fixed and weekday rules, and single
    days over the next months (some of them days the big store's alarms fall on)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//alarm bench//holidays//EN"]

    def event(uid, start, name, rule=None, days=1):
        end = start + timedelta(days=days)
        lines.extend(["BEGIN:VEVENT", "UID:%s@bench" % uid, "DTSTART;VALUE=DATE:%s" % start.strftime("%Y%m%d"),
                      "DTEND;VALUE=DATE:%s" % end.strftime("%Y%m%d"), "SUMMARY:%s" % name]
                     + (["RRULE:%s" % rule] if rule else []) + ["END:VEVENT"])
    base = datetime(2020, 1, 1).date()
    for k, (m, d, name) in enumerate([(1, 1, "New Year"), (5, 1, "Labour Day"), (10, 3, "Unity Day"),
                                      (12, 25, "Christmas"), (12, 26, "Boxing Day")]):
        event("fixed%d" % k, base.replace(month=m, day=d), name, "FREQ=YEARLY")
    event("thanks", base.replace(month=11, day=26), "Thanksgiving", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH")
    event("memorial", base.replace(month=5, day=25), "Memorial Day", "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO")
    today = datetime.fromtimestamp(now, timezone.utc).date()
    for k in range(1, 90, 7):
        event("day%d" % k, today + timedelta(days=k), "Bench day %d" % k, days=1 + k % 2)
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


def big_store(n, now):
    """n alarms of mixed shapes and zones, none due within two hours of now (so no start rings one).
    Issue #12: of the daily and weekly alarms, two in five repeat `--every` 2w or 3d from today
    and two in three skip holidays; every twentieth instant repeats every 90 minutes. (The rules
    on yearly dates, `*-02-29 --every 2w`, a `*-12-25` alarm skipping a yearly Christmas, cost a
    search over years each: handled and tested, but not what a bedside store holds.)

    Each carries `created` (RFC 3339 with milliseconds, as the CLI stamps it) one hour before now:
    made a while ago, yet after the last occurrence of every alarm (all are at least two hours
    from now, either way), so the engine owes none of them a catch-up. A `created` days back
    would make the first start record every occurrence since as missed (a catch-up of thousands
    of history entries), not the steady state measured here."""
    from zoneinfo import ZoneInfo
    zones = [None, None, "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata",
             "Pacific/Chatham", "America/St_Johns", "Europe/Berlin", "Australia/Sydney"]
    days = ["Mon..Fri", "daily", "Sat,Sun", "*-12-25", "Fri *-*-13", "*-*-01", "Mon,Wed", "*-02-29", "Tue"]
    created = datetime.fromtimestamp(int(now) - 3600, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000+00:00")
    today = datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%d")
    alarms = []
    for i in range(n):
        if i % 10 == 9:
            alarms.append(once_alarm("big%05d" % i, int(now) + 86400 * (2 + i % 300))
                          | {"once": False, "created": created, "every": "90m" if i % 20 == 19 else None})
            continue
        z = zones[i % len(zones)]
        # Issue #12's rules where people use them: on daily and weekly alarms.
        weekly = days[i % len(days)] in ("Mon..Fri", "daily", "Sat,Sun", "Mon,Wed", "Tue")
        repeats = weekly and i % 5 in (1, 2)
        utc = datetime.fromtimestamp(now, timezone.utc) + timedelta(minutes=120 + (i * 37) % (20 * 60))
        local = utc.astimezone(ZoneInfo(z)) if z else utc
        alarms.append({"expression": "%s %02d:%02d" % (days[i % len(days)], local.hour, local.minute),
                       "fade_in": None, "id": "big%05d" % i, "label": "alarm %d" % i if i % 2 else None,
                       "mode": "pinned" if z else "floating", "once": False, "ring": None, "skip_next": False,
                       "snooze": None, "sound": None, "volume": None, "zone": z, "created": created,
                       "every": ("2w" if i % 2 else "3d") if repeats else None, "from": today if repeats else None,
                       "skip_holidays": weekly and i % 3 != 1})
    return alarms


def elf_sections(path):
    """The section names of a 64-bit little-endian ELF file (what `readelf -S` lists)."""
    import struct
    with open(path, "rb") as f:
        data = f.read(64)
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            return None
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        f.seek(shoff)
        table = f.read(shentsize * shnum)
        headers = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
        _, _, _, _, str_off, str_size = headers[shstrndx]
        f.seek(str_off)
        names = f.read(str_size)
    return [names[h[0]:names.index(b"\0", h[0])].decode() for h in headers]


def binary_info(path):
    sections = elf_sections(path) or []
    return {"bytes": os.path.getsize(path), "stripped": ".symtab" not in sections,
            "debug_info": ".debug_info" in sections}


def binaries(bin_dir, root):
    """File sizes of the release `alarm` and `alarmd`, whether they are stripped (no .symtab) or
    carry DWARF; and of out/alarm_*.deb if one was built (this bench never builds it), with its
    binaries looked at inside (dpkg-deb -x)."""
    import glob
    out = []
    for name in ("alarm", "alarmd"):
        path = os.path.join(bin_dir, name)
        if os.path.exists(path):
            out.append(dict(binary_info(path), name=".build/release/" + name))
    for deb in sorted(glob.glob(os.path.join(root, "out", "alarm_*.deb"))):
        entry = {"name": os.path.relpath(deb, root), "bytes": os.path.getsize(deb), "inside": []}
        if shutil.which("dpkg-deb"):
            with tempfile.TemporaryDirectory() as x:
                if subprocess.run(["dpkg-deb", "-x", deb, x], capture_output=True).returncode == 0:
                    for name in ("usr/bin/alarm", "usr/sbin/alarmd", "usr/bin/alarmd"):
                        if os.path.exists(os.path.join(x, name)):
                            entry["inside"].append(dict(binary_info(os.path.join(x, name)), name="/" + name))
        out.append(entry)
    return out


ARM64_HEADING = "## arm64: the Pi's package and alarmd in the arm64 guest"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer samples, one cron minute (for CI)")
    ap.add_argument("--no-build", action="store_true", help="use the release binaries already built")
    ap.add_argument("--out", help="report path (default: BENCHMARKS.md, or .build/bench/BENCHMARKS-quick.md with --quick)")
    ap.add_argument("--json", help="also write the raw figures as JSON here")
    ap.add_argument("--from-json", help="write the report from figures saved with --json, running nothing")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--only", choices=["scale"], help="run only this part (scale: issue #9's store sizes and "
                    "binary sizes, a few minutes; for checking a change, not for BENCHMARKS.md)")
    ap.add_argument("--sizes", type=lambda v: [int(x.replace("_", "")) for x in v.split(",") if x],
                    help="store sizes for the scale part, comma-separated (default: 100,1000,10000,100000); "
                    "an empty store is always measured as well")
    args = ap.parse_args()
    if args.only and not args.out:
        args.out = os.path.join(ROOT, ".build", "bench", "BENCHMARKS-%s.md" % args.only)
    out = args.out or (os.path.join(ROOT, ".build", "bench", "BENCHMARKS-quick.md") if args.quick else os.path.join(ROOT, "BENCHMARKS.md"))
    if args.from_json:
        with open(args.from_json) as f:
            r = json.load(f)
    else:
        r = Bench(args).run()
        r["argv"] = sys.argv[1:]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1, default=str)
    text = report.markdown(r, r.get("argv", []))
    # The arm64 section comes from the system test's arm64 guest (scripts/system-test --arch
    # arm64), not from this run: a rewritten BENCHMARKS.md keeps it as it was.
    if os.path.exists(out):
        with open(out) as f:
            old = f.read()
        at = old.find(ARM64_HEADING)
        if at >= 0:
            text = text.rstrip("\n") + "\n\n" + old[at:]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    print(text)
    log("wrote %s" % out)


if __name__ == "__main__":
    main()

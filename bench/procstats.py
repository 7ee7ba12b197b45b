"""What /proc says about a process: wake-ups, CPU time, memory; and small statistics helpers.

Wake-ups are voluntary context switches summed over every thread (/proc/PID/task/*/status):
a thread that sleeps in epoll_wait or nanosleep adds one each time it wakes up and sleeps
again, and a helper thread that ticks once a second is exactly what must show. Involuntary
switches (preemptions while running) are kept apart.
"""
import math
import os
import statistics
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _status_fields(path):
    fields = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def switches(pid):
    """(voluntary, involuntary, threads) summed over the threads alive now."""
    vol = invol = n = 0
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            s = _status_fields(f"{base}/{tid}/status")
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended between listing and reading
        vol += int(s["voluntary_ctxt_switches"])
        invol += int(s["nonvoluntary_ctxt_switches"])
        n += 1
    return vol, invol, n


def per_thread(pid):
    """{tid: (comm, voluntary switches)} for the threads alive now."""
    out = {}
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            s = _status_fields(f"{base}/{tid}/status")
        except (FileNotFoundError, ProcessLookupError):
            continue
        out[tid] = (s["Name"], int(s["voluntary_ctxt_switches"]))
    return out


def cpu_seconds(pid, children=False):
    """utime+stime of the process (all threads); with children, plus the reaped children's."""
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / CLK_TCK


def run_seconds(pid):
    """CPU time of the threads alive now, in ns precision: the first field of
    /proc/PID/task/*/schedstat (time spent on a CPU). Falls back to cpu_seconds (10 ms ticks)
    when the kernel has no schedstat. A thread that ended is not counted: use it across short
    windows of a process whose threads live on (alarmd's)."""
    total, base = 0, f"/proc/{pid}/task"
    try:
        tids = os.listdir(base)
        for tid in tids:
            try:
                with open(f"{base}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue
    except FileNotFoundError:
        return cpu_seconds(pid)
    return total / 1e9


def state(pid):
    """The one-letter state of /proc/PID/stat: R running, S sleeping, D disk wait, ..."""
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2]


def settle(pid, quiet=0.2, timeout=30.0, step=0.02):
    """Waits until the process has used no CPU for `quiet` seconds and is not running; returns its
    CPU seconds then (run_seconds) and whether it settled before `timeout`."""
    deadline = time.monotonic() + timeout
    last = run_seconds(pid)
    since = time.monotonic()
    while True:
        time.sleep(step)
        now_cpu = run_seconds(pid)
        t = time.monotonic()
        if now_cpu != last or state(pid) == "R":
            last, since = now_cpu, t
        elif t - since >= quiet:
            return now_cpu, True
        if t > deadline:
            return now_cpu, False


def memory(pid):
    """Resident (VmRSS), anonymous (RssAnon: the process's own memory; the static binary's clean
    file pages are shared page cache, not its cost), private (Private_Clean + Private_Dirty) and
    Private_Dirty bytes, and PSS."""
    s = _status_fields(f"/proc/{pid}/status")
    rss = int(s["VmRSS"].split()[0]) * 1024
    anon = int(s["RssAnon"].split()[0]) * 1024 if "RssAnon" in s else None
    private = dirty = pss = None
    try:
        r = _status_fields(f"/proc/{pid}/smaps_rollup")
        dirty = int(r["Private_Dirty"].split()[0]) * 1024
        private = int(r["Private_Clean"].split()[0]) * 1024 + dirty
        pss = int(r["Pss"].split()[0]) * 1024
    except (FileNotFoundError, KeyError, PermissionError):
        pass
    return {"rss": rss, "anon": anon, "private": private, "private_dirty": dirty, "pss": pss, "threads": int(s["Threads"])}


def count_lines(path, needle):
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if needle in line)
    except OSError:
        return 0


class IdleSample:
    """Wake-ups and CPU of one process between start() and finish(). With `log`, also counts
    alarmd's "the system clock was set" lines written meanwhile: a clock step wakes alarmd (its
    timerfd is armed with TFD_TIMER_CANCEL_ON_SET), and these shared machines get their clock
    set now and then."""

    CLOCK_SET = "the system clock was set"

    def __init__(self, pid, children=False, log=None):
        self.pid, self.children, self.log = pid, children, log

    def start(self, now):
        self.t0 = now
        self.sw0 = switches(self.pid)
        self.threads0 = per_thread(self.pid)
        self.clock0 = count_lines(self.log, self.CLOCK_SET) if self.log else 0
        self.cpu0 = cpu_seconds(self.pid, self.children)

    def finish(self, now):
        sw1 = switches(self.pid)
        cpu1 = cpu_seconds(self.pid, self.children)
        threads1 = per_thread(self.pid)
        # Per thread: wake-ups of the threads alive at both ends ("new" for threads born meanwhile).
        by_thread = ["%s/%s: %s" % (name, tid, v - self.threads0[tid][1] if tid in self.threads0 else "new")
                     for tid, (name, v) in sorted(threads1.items(), key=lambda kv: int(kv[0]))]
        minutes = (now - self.t0) / 60
        return {
            "seconds": now - self.t0,
            "wakeups": sw1[0] - self.sw0[0],
            "wakeups_per_min": (sw1[0] - self.sw0[0]) / minutes,
            "involuntary_per_min": (sw1[1] - self.sw0[1]) / minutes,
            "threads": sw1[2],
            "by_thread": by_thread,
            "clock_sets": (count_lines(self.log, self.CLOCK_SET) - self.clock0) if self.log else None,
            "cpu_ms_per_min": (cpu1 - self.cpu0) * 1000 / minutes,
            "memory": memory(self.pid),
        }


def summary(values):
    """n, median, p99 (nearest rank), min, max of a list of numbers; None when empty."""
    if not values:
        return None
    v = sorted(values)
    return {
        "n": len(v),
        "median": statistics.median(v),
        "p99": v[max(0, math.ceil(0.99 * len(v)) - 1)],
        "min": v[0],
        "max": v[-1],
    }

"""BENCHMARKS.md from the figures of one run."""


def ms(x, digits=1):
    return "—" if x is None else ("%.*f ms" % (digits, x * 1000))


def dist(s, digits=1):
    """'median / p99 / max (n)' of a summary in ms."""
    if not s:
        return "—"
    return "%s / %s / %s (n=%d)" % (ms(s["median"], digits), ms(s["p99"], digits), ms(s["max"], digits), s["n"])


def mib(b):
    return "—" if b is None else "%.1f MiB" % (b / 1048576)


def ratio(a, b):
    if a is None or b is None:
        return "—"
    if b == 0:
        return "∞ (alarmd: 0)" if a > 0 else "—"
    return "%.0f×" % (a / b) if a / b >= 10 else "%.1f×" % (a / b)


def med(s):
    return s["median"] if s else None


def markdown(r, argv):
    m = r["machine"]
    quick = r["mode"] == "quick"
    cmd = "bash bench/run" + ("".join(" " + a for a in argv) if argv else "")
    L = []
    w = L.append
    w("# Benchmarks" + (" (quick mode: few samples)" if quick else ""))
    w("")
    w("Produced by `%s` on %s (%.0f s); nothing here is typed by hand. Every figure below comes from "
      "that one run on one machine, alarm and its competitors side by side, except the last sections, "
      "which `bench/run` keeps when it rewrites this file: arm64 (from the system test's arm64 guest), "
      "alarm-web (`python3 bench/web.py`) and the soak (`python3 bench/soak.py`); each names its own run." % (cmd, r["started"], r["seconds"]))
    w("")
    w("| machine | |")
    w("|---|---|")
    w("| CPU | %s, `nproc` = %d |" % (m["cpu"], m["nproc"]))
    w("| memory | %.1f GiB |" % m["memory_gib"])
    w("| kernel | %s |" % m["kernel"])
    w("| OS | %s |" % m["os"])
    w("| Swift | %s |" % m["swift"])
    w("| binaries | `swift build -c release --static-swift-stdlib`, as the package builds them "
      "(the Swift runtime linked in) |")
    if m.get("python"):
        w("| Python (the bench, and `alarm list --json`'s yardstick under Scale) | %s |" % m["python"])
    w("| load average (1, 5, 15 min) | %s at the start, %s at the end |" % (r["load_start"], r["load_end"]))
    w("")
    w("The machine is shared (2 cores, other builds and test suites running): timings are noisy, so "
      "medians are the figures to compare; p99 and max show the tail this load produced.")
    w("")

    idle = r.get("idle", {})
    delay = r.get("delay", {})
    mins = r.get("minutes", {})
    a_delay = delay.get("first_frame")
    if idle or delay:
        side_by_side(r, w)
    scale(r, w)
    notes_and_method(r, w, cmd)
    return "\n".join(L)


def side_by_side(r, w):
    idle = r.get("idle", {})
    delay = r.get("delay", {})
    mins = r.get("minutes", {})
    a_delay = delay.get("first_frame")
    w("## Side by side")
    w("")
    w("Delay = from the scheduled instant to the player starting: for alarmd the first frame handed to "
      "ALSA (`started − scheduled` in history.jsonl); for cron and the loops the first command of the job "
      "(`date +%%s.%%N`), so a real player's own start-up would come on top of theirs. Idle = nothing due "
      "for anyone during a %d s window sampled at the same time for all four (/proc/PID/task/*/status "
      "voluntary context switches, /proc/PID/stat utime+stime; the bash loop's CPU includes the `sleep` "
      "and `date` children it reaps)." % r["params"]["idle"])
    w("")
    w("| | alarmd | cron | bash `while sleep 1` loop | python `time.sleep(1)` loop |")
    w("|---|---|---|---|---|")
    cron = mins.get("cron")
    bl = mins.get("bash loop (minutes)")
    pl = mins.get("python loop (minutes)")
    w("| delay, median / p99 / max | %s | %s | %s | %s |" % (
        dist(a_delay), dist(cron and cron["delay"]), dist(bl and bl["delay"]), dist(pl and pl["delay"])))
    bs = delay.get("bash loop (seconds)")
    ps = delay.get("python loop (seconds)")
    w("| same, loops matching `%%H:%%M:%%S` on alarmd's seconds | | | %s, %s missed | %s, %s missed |" % (
        dist(bs and bs["delay"]), bs["missed"] if bs else "—", dist(ps and ps["delay"]), ps["missed"] if ps else "—"))
    w("| delay ratio to alarmd (medians) | 1 | %s | %s | %s |" % (
        ratio(med(cron and cron["delay"]), med(a_delay)), ratio(med(bl and bl["delay"]), med(a_delay)),
        ratio(med(pl and pl["delay"]), med(a_delay))))

    def idle_row(label, key, fmt):
        cells = []
        for who in ("alarmd", "cron", "bash loop", "python loop"):
            v = idle.get(who)
            cells.append(fmt(v[key]) if v else "—")
        w("| %s | %s |" % (label, " | ".join(cells)))

    idle_row("idle wake-ups per minute (all threads)", "wakeups_per_min", lambda x: "%.1f" % x)
    cells = []
    a_w = idle.get("alarmd", {}).get("wakeups_per_min")
    for who in ("cron", "bash loop", "python loop"):
        v = idle.get(who)
        cells.append(("+%.1f per minute (alarmd: 0)" % v["wakeups_per_min"] if a_w == 0 else ratio(v["wakeups_per_min"], a_w)) if v and a_w is not None else "—")
    w("| idle wake-ups compared with alarmd | — | %s |" % " | ".join(cells))
    idle_row("idle involuntary switches per minute", "involuntary_per_min", lambda x: "%.1f" % x)
    idle_row("idle CPU per minute", "cpu_ms_per_min", lambda x: "%.0f ms" % x)
    cells = []
    for who in ("alarmd", "cron", "bash loop", "python loop"):
        v = idle.get(who)
        cells.append("%s / %s" % (mib(v["memory"]["rss"]), mib(v["memory"]["private"])) if v else "—")
    w("| idle memory, resident / private | %s |" % " | ".join(cells))
    w("")
    if cron or bl:
        w("cron and the `%%H:%%M` loops fire at minute granularity: %d minute(s) sampled in this run "
          "(cron: %s missed; loops: %s / %s missed). The `%%H:%%M:%%S` loop rows have one sample per alarmd alarm of the "
          "delay run. The bash loop's wake-ups count the bash process only: each second it also forks "
          "`sleep 1` and `date` (two short-lived processes, not counted)." % (
              mins.get("minutes", 0), cron["missed"] if cron else "—", bl["missed"] if bl else "—", pl["missed"] if pl else "—"))
        w("")

    def clock_note(v):
        n = v.get("clock_sets")
        return "; the system clock was set %d time(s) during the window (alarmd's log), each a wake-up" % n if n else ""

    w("## alarm's own figures")
    w("")
    w("| figure | result | how |")
    w("|---|---|---|")
    if a_delay:
        w("| delay, scheduled → first frame to ALSA (`null` PCM), median / p99 / max | %s | %d once alarms 1, 2 or 3 s apart, "
          "`alarm import`ed into a running alarmd (ALARM_DEVICE=null); each is seen ringing in status.json, "
          "stopped with `stop` on the FIFO; `started − scheduled` from history.jsonl (%d entries, %d marked late, outcomes %s; not seen ringing: %d; "
          "%s rings pre-rolled, issue #11's target: p99 ≤ 2 ms) |" % (
              dist(a_delay, 2), delay["alarms"], delay["history_entries"], delay["late"], delay["outcomes"], len(delay["not_seen"]),
              delay.get("prerolled", "—")))
        w("| scheduled → status.json says ringing | %s | inotify on the runtime directory (same alarms) |" % dist(delay["status_ringing"]))
        w("| stop latency: `stop` written to the FIFO → status.json idle (`null` PCM) | %s | same alarms |" % dist(delay["stop_to_idle"]))
    pf = r.get("pulse_first_frames")
    if pf:
        w("| first frame on the PulseAudio null sink (`pulse` PCM), pre-rolled, median / p99 / max | %s | %d once alarms 2 s apart "
          "(sine clip), each stopped once seen ringing so the next is pre-rolled (issue #11: target p99 ≤ 2 ms); %d rings pre-rolled, "
          "%d marked late, not seen ringing: %d; `started − scheduled` from history.jsonl |" % (
              dist(pf["first_frame"], 2), pf["alarms"], pf["prerolled"], pf["late"], len(pf["not_seen"])))
    pu = r.get("pulse")
    if pu:
        w("| delay on the PulseAudio null sink (`pulse` PCM), median / p99 / max | %s | once alarms 3 s apart playing a sine clip; history |" % dist(pu["first_frame"]))
        w("| stop latency on pulse: `stop` → status.json idle | %s | |" % dist(pu["stop_to_idle"]))
        w("| stop/snooze latency to silence on the sink | %s | `parec` of the sink monitor: length of each burst of sound minus (command written − first frame); "
          "the sink's own latency cancels out (%d bursts for %d rings) |" % (dist(pu["stop_to_silence"]), pu["bursts"], pu["expected_bursts"]))
        w("| snooze 5 s: re-ring first frame − (snoozed at + 5 s) | %s | `snooze 5s` on the FIFO; `ended` of the snoozed entry + 5 s vs `started` of the next |" % dist(pu["snooze_vs_snoozed_at"]))
        w("| snooze 5 s: re-ring first frame − (`snooze` written + 5 s) | %s | as the user sees it |" % dist(pu["snooze_vs_written"]))
    ia = idle.get("alarmd")
    if ia:
        w("| idle wake-ups per minute | %.1f (%d in %.0f s; per thread: %s) | one alarm armed 24 h ahead (`alarm add --in 24h --id far`), fresh daemon |" % (
            ia["wakeups_per_min"], ia["wakeups"], ia["seconds"], ", ".join(ia.get("by_thread", [])) + clock_note(ia)))
        w("| idle CPU | %.1f ms per minute | /proc/PID/stat utime+stime, 10 ms ticks |" % ia["cpu_ms_per_min"])
    ir = r.get("idle_after_rings")
    if ir:
        w("| idle wake-ups per minute after ringing | %.1f (%d in %.0f s; per thread: %s) | same daemon after the pulse rings and snoozes, `far` added again; CPU %.1f ms per minute |" % (
            ir["wakeups_per_min"], ir["wakeups"], ir["seconds"], ", ".join(ir.get("by_thread", [])) + clock_note(ir), ir["cpu_ms_per_min"]))
    im = r.get("idle_memory")
    if im:
        w("| memory idle: resident / anonymous / private dirty / private / PSS | %s / %s / %s / %s / %s | /proc/PID/status VmRSS, RssAnon; smaps_rollup Private_Dirty, Private_Clean+Private_Dirty, Pss (the binary's clean pages are shared page cache: anonymous is the daemon's own cost) |" % (
            mib(im["rss"]), mib(im.get("anon")), mib(im.get("private_dirty")), mib(im["private"]), mib(im["pss"])))
    if pu and pu.get("ringing_memory"):
        rm = pu["ringing_memory"]
        w("| memory while ringing (pulse, 1 s in): resident / private / PSS | %s / %s / %s, %d threads | |" % (
            mib(rm["rss"]), mib(rm["private"]), mib(rm["pss"]), rm["threads"]))
    if ir:
        w("| memory idle after ringing: resident / private | %s / %s | |" % (mib(ir["memory"]["rss"]), mib(ir["memory"]["private"])))
    empty = scale_point(r, 0)
    if empty:
        w("| start-up, spawn → READY=1 (empty store) | %s | NOTIFY_SOCKET bound by the bench; more sizes under Scale |" % dist(empty["ready"]))
        w("| start-up, spawn → status.json written (empty store) | %s | |" % dist(empty["status"]))
    w("")


def notes_and_method(r, w, cmd):
    if r.get("alarm_bench"):
        w("## In-process figures (`.build/release/alarm-bench`)")
        w("")
        w("```")
        w(r["alarm_bench"])
        w("```")
        w("")
    if r["notes"]:
        w("## Notes from this run")
        w("")
        for n in r["notes"]:
            w("- " + n)
        w("")
    w("## Method: the commands behind the figures")
    w("")
    w("Everything runs from `%s` (= `python3 bench/bench.py`, standard library only; `--json FILE` saves the raw "
      "figures, `--keep` keeps the temporary directory with every daemon's history.jsonl and log). Times are "
      "CLOCK_REALTIME (`time.time()`), the clock of alarmd's history." % cmd)
    w("")
    w("- Build: `swift build -c release`; the binaries are `.build/release/alarmd` and `.build/release/alarm`.")
    w("- Each alarmd: `ALARM_STATE_DIR=T/state ALARM_RUNTIME_DIR=T/run ALARM_SOUNDS_DIR=T/sounds ALARM_CONFIG=T/alarm.conf "
      "ALARM_LOCALTIME=T/localtime (→ /usr/share/zoneinfo/UTC) TZ=UTC NOTIFY_SOCKET=T/notify.sock ALARM_DEVICE=null|pulse "
      ".build/release/alarmd`; the bench binds the notify socket (start-up = spawn → `READY=1`) and watches T/run with "
      "inotify (status.json is replaced by rename).")
    w("- Alarms for the delay runs: a JSON array of once alarms (`{\"mode\": \"absolute\", \"at\": RFC 3339, \"once\": true, ...}`) "
      "loaded with `alarm import FILE` into the running daemon. Stop and snooze: the line `stop` / `snooze 5s` written "
      "with one write(2) to T/run/control (what `alarm stop` does, without the CLI's own start-up). Delay = "
      "`started − scheduled` of each history.jsonl entry.")
    w("- PulseAudio: `pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no -L module-native-protocol-unix "
      "-L \"module-null-sink sink_name=NAME rate=48000 channels=1\"` with a private XDG_RUNTIME_DIR; alarmd plays through "
      "alsa-lib's `pulse` PCM (config `fade_in = 0`, sound: a 10 s 440 Hz sine WAV); recorded with `parec -d NAME.monitor "
      "--format=s16le --rate=48000 --channels=1 --raw --latency-msec=10`. Bursts of sound = runs of |sample| > 300 "
      "closer than 0.25 s. Stop → silence = burst length − (command written − `started`), assuming the sink's latency "
      "is the same at both ends of the burst.")
    w("- Idle: `voluntary_ctxt_switches` summed over /proc/PID/task/*/status (each wake-up from epoll_wait/nanosleep is one), "
      "CPU = utime+stime from /proc/PID/stat (10 ms ticks), memory = VmRSS from /proc/PID/status and "
      "Private_Clean+Private_Dirty (and Pss) from /proc/PID/smaps_rollup.")
    w("- Scale (issue #9): for each size a fresh alarmd state directory and a generated JSON array (weekday/daily/yearly "
      "calendar expressions in 10 zones, floating and pinned, plus absolute ones, none due within 2 h either way, each "
      "`created` 1 h before the run) loaded with `alarm import FILE`; one start with no saved state (shown apart), then "
      "the timed starts (alarmd stopped with SIGTERM between them); then, alarmd running, rounds of `alarm list`, "
      "`alarm list --json`, `alarm export` (stdout to a file), `alarm add --in 30m --id probeN`, `alarm remove probeN`, "
      "each timed from spawn to exit. alarmd CPU per reload: time on a CPU summed over /proc/PID/task/*/schedstat (ns) from just before "
      "the `add` (or `remove`) is spawned until status.json shows the change (next = probeN, or no longer) and alarmd "
      "has used no CPU for 200 ms and is not running; nothing subtracted.")
    w("- Python's json round trip (issue #29's yardstick for `alarm list --json`): in each round, right after "
      "`alarm list --json` and `alarm export`, `PYTHON -c \"import json, sys; json.dumps(json.loads(open(sys.argv[1], "
      "encoding='utf-8').read()))\" T/state/alarms.json`, timed from spawn to exit like the alarm commands; PYTHON is "
      "the interpreter running the bench (`sys.executable`, in the machine table), not a `python3` found on PATH, "
      "which may be a shim (pyenv's is a shell script) whose start-up would count as Python's. The ratio is "
      "`alarm list --json`'s median over Python's, both from the same rounds.")
    w("- cron: Debian's `cron` (`apt-get install cron` by the script if missing), started as `TZ=UTC /usr/sbin/cron -f` "
      "(or the one already running), with a job file /etc/cron.d/alarm-bench-PID (removed at the end) whose lines are "
      "`M H D MON * root date +%s.%N >> FILE`.")
    w("- Loops (`bench/competitors.py`): bash `while sleep 1; do now=$(date +\"$FMT\"); case ... esac; done` and python "
      "`while True: time.sleep(1); now = time.strftime(fmt) ...`, FMT `%H:%M` (minute targets, as Pi alarm scripts do) "
      "or `%H:%M:%S` (the same seconds as alarmd's alarms); the \"player\" is `date +%s.%N >> FILE`.")
    w("- Quick mode (`bash bench/run --quick`, on demand: CI runs no benchmark): fewer samples, one cron minute, 3 "
      "rounds per store size but one at 100,000 alarms, no alarm-bench; it writes "
      ".build/bench/BENCHMARKS-quick.md and leaves BENCHMARKS.md alone. `--only scale` runs the scale section alone "
      "(.build/bench/BENCHMARKS-scale.md); `--sizes` picks the store sizes.")
    w("")


# ---- scale (issue #9) ---------------------------------------------------------------------------

# (key in a scale point, label, target in seconds at 10,000 alarms or None)
SCALE_OPS = [
    ("ready", "start-up → READY=1", 0.100),
    ("list", "`alarm list`", 0.150),
    ("list_json", "`alarm list --json`", 0.150),
    ("export", "`alarm export`", 0.150),
    ("add", "`alarm add`", 0.150),
    ("remove", "`alarm remove`", 0.150),
    ("reload_cpu_add", "alarmd CPU per reload (add)", 0.030),
    ("reload_cpu_remove", "alarmd CPU per reload (remove)", 0.030),
]
TARGET_SIZE = 10_000
# Issue #29: `alarm list --json` at TARGET_SIZE alarms, at most this share of Python's json round
# trip of the same alarms.json (medians of one run).
LIST_JSON_VS_PYTHON = 0.45


def scale_point(r, n):
    for p in (r.get("scale") or {}).get("points", []):
        if p["alarms"] == n:
            return p
    return None


def fms(x):
    """Seconds as ms, with a decimal below 100 ms."""
    if x is None:
        return "—"
    return "%.1f ms" % (x * 1e3) if abs(x) < 0.1 else "{:,.0f} ms".format(x * 1e3)


def per_alarm(p, base, key):
    """(median at N − median with an empty store) / N, in µs per alarm."""
    if not p or not base or not p["alarms"] or not p.get(key) or not base.get(key):
        return None
    return (p[key]["median"] - base[key]["median"]) / p["alarms"] * 1e6


def fus(x):
    return "—" if x is None else "%.1f µs" % x if abs(x) < 100 else "{:,.0f} µs".format(x)


def scale(r, w):
    sc = r.get("scale")
    if not sc:
        return
    points = sc["points"]
    base = scale_point(r, 0)
    sized = [p for p in points if p["alarms"]]
    w("## Scale (issue #9)")
    w("")
    w("The same measurements with an empty store and with %s alarms, each size in a fresh state directory, with "
      "the release binaries: alarmd start-up to READY=1 (alarmd stopped in between), then with alarmd running "
      "`alarm list`, `alarm list --json`, `alarm export`, `alarm add --in 30m --id probeK` and `alarm remove probeK` "
      "timed from spawn to exit, and alarmd's CPU per reload from just before the `add` (or `remove`) "
      "until status.json shows the change and alarmd is idle again (time on a CPU summed over "
      "/proc/PID/task/*/schedstat; nothing subtracted, so the inotify wake-ups and the status write are in it). "
      "In the same rounds, as the yardstick of `alarm list --json` (issue #29), Python's json module reads and writes "
      "the same alarms.json, also timed from spawn to exit. Samples per size: %s." % (
          ", ".join("{:,}".format(p["alarms"]) for p in sized),
          ", ".join("{:,}: {}".format(p["alarms"], p["reps"]) for p in points)))
    w("")
    w("### Targets (%s alarms)" % "{:,}".format(TARGET_SIZE))
    w("")
    t = scale_point(r, TARGET_SIZE)
    if not t:
        w("Not measured in this run (no %s-alarm store)." % "{:,}".format(TARGET_SIZE))
    else:
        w("| figure | target | measured median (n) | |")
        w("|---|---|---|---|")
        met = 0
        for key, label, target in SCALE_OPS:
            s = t.get(key)
            if not s:
                w("| %s | ≤ %s | — | not measured |" % (label, fms(target)))
                continue
            ok = s["median"] <= target
            met += ok
            w("| %s | ≤ %s | %s (n=%d) | %s |" % (label, fms(target), fms(s["median"]), s["n"],
                                                 "met" if ok else "**NOT met** (%.1f× the target)" % (s["median"] / target)))
        targets = len(SCALE_OPS)
        lj, py = t.get("list_json"), t.get("python_json")
        if lj and py:
            targets += 1
            q = lj["median"] / py["median"]
            ok = q <= LIST_JSON_VS_PYTHON
            met += ok
            w("| `alarm list --json` ÷ Python's `json.loads` + `json.dumps` of the same alarms.json (issue #29) "
              "| ≤ %.2f× | %.2f× (%s ÷ %s, n=%d and %d) | %s |" % (
                  LIST_JSON_VS_PYTHON, q, fms(lj["median"]), fms(py["median"]), lj["n"], py["n"],
                  "met" if ok else "**NOT met**"))
        w("")
        w("%d of %d targets met at %s alarms." % (met, targets, "{:,}".format(TARGET_SIZE)))
    w("")
    w("### Cost per alarm")
    w("")
    w("(median at N − median with an empty store) / N, in µs per alarm. Flat along a row: the cost grows in "
      "proportion to the number of alarms; growing to the right: worse than linear. At 100 alarms the difference "
      "is a few ms, so noise dominates there.")
    w("")
    w("| | empty store, median | %s |" % " | ".join("{:,} alarms".format(p["alarms"]) for p in sized))
    w("|---|---|" + "---|" * len(sized))
    for key, label, _ in SCALE_OPS:
        w("| %s | %s | %s |" % (label, fms(base and base.get(key) and base[key]["median"]),
                                " | ".join(fus(per_alarm(p, base, key)) for p in sized)))
    w("| `alarm import` into an empty store (one run), per alarm | | %s |" % " | ".join(
        fus(p["import"] / p["alarms"] * 1e6 if p.get("import") is not None else None) for p in sized))
    w("| alarms.json, bytes per alarm | | %s |" % " | ".join(
        "%.0f" % (p["alarms_json_bytes"] / p["alarms"]) for p in sized))
    w("")
    w("### Each size")
    w("")
    for p in points:
        n = p["alarms"]
        head = "empty store" if not n else "{:,} alarms".format(n)
        w("#### %s" % head)
        w("")
        facts = ["%d sample(s) each, %.0f s for this size" % (p["reps"], p.get("seconds", 0))]
        if n:
            facts.append("alarms.json {:,} bytes".format(p["alarms_json_bytes"]))
            facts.append("`alarm import` %s (one run, into an empty store)" % fms(p.get("import")))
        fs = p.get("first_start")
        if fs:
            facts.append("first start (no saved state) → READY=1 %s" % fms(fs["ready"]))
        if p.get("add_to_daemon_next"):
            facts.append("`add` spawned → alarmd's status shows it next: median %s" % fms(p["add_to_daemon_next"]["median"]))
        im = p.get("idle_memory")
        if im:
            facts.append("alarmd idle memory %s resident / %s private" % (mib(im["rss"]), mib(im["private"])))
        if p.get("list_lines") is not None:
            facts.append("`list` prints {:,} line(s), `export` {:,} bytes".format(p["list_lines"], p.get("export_bytes", 0)))
        if p.get("python_json"):
            facts.append("Python's json round trip of alarms.json: median %s, `list --json` ÷ it %.2f×" % (
                fms(p["python_json"]["median"]), p["list_json"]["median"] / p["python_json"]["median"]))
        w("; ".join(facts) + ".")
        w("")
        w("| | %s |" % " | ".join(label for _, label, _ in SCALE_OPS))
        w("|---|" + "---|" * len(SCALE_OPS))
        stats = [("median", "median")]
        if p["reps"] >= 5:
            stats += [("p99", "p99"), ("max", "max")]
        for stat, name in stats:
            w("| %s | %s |" % (name, " | ".join(fms(p[k][stat]) if p.get(k) else "—" for k, _, _ in SCALE_OPS)))
        if n:
            w("| cost per alarm | %s |" % " | ".join(fus(per_alarm(p, base, k)) for k, _, _ in SCALE_OPS))
        w("")
    bins = sc.get("binaries") or []
    w("### Binary sizes")
    w("")
    w("| file | bytes | | stripped (no .symtab) | DWARF (.debug_info) |")
    w("|---|---|---|---|---|")
    for b in bins:
        is_elf = "stripped" in b
        w("| `%s` | {:,} | %s | %s | %s |".format(b["bytes"]) % (
            b["name"], mib(b["bytes"]), ("yes" if b["stripped"] else "no") if is_elf else "",
            ("yes" if b["debug_info"] else "no") if is_elf else ""))
        for i in b.get("inside", []):
            w("| `%s` in the .deb | {:,} | %s | %s | %s |".format(i["bytes"]) % (
                i["name"], mib(i["bytes"]), "yes" if i["stripped"] else "no", "yes" if i["debug_info"] else "no"))
    if not any(b["name"].endswith(".deb") for b in bins):
        w("")
        w("No `out/alarm_*.deb` in this checkout (the bench does not build one; `bash scripts/build-deb` does).")
    w("")

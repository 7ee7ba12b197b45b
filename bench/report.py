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
    w("# Benchmarks" + (" (quick mode: few samples, for CI)" if quick else ""))
    w("")
    w("Produced by `%s` on %s (%.0f s); nothing here is typed by hand. Every figure below comes from "
      "that one run on one machine, alarm and its competitors side by side." % (cmd, r["started"], r["seconds"]))
    w("")
    w("| machine | |")
    w("|---|---|")
    w("| CPU | %s, `nproc` = %d |" % (m["cpu"], m["nproc"]))
    w("| memory | %.1f GiB |" % m["memory_gib"])
    w("| kernel | %s |" % m["kernel"])
    w("| OS | %s |" % m["os"])
    w("| Swift | %s |" % m["swift"])
    w("| load average (1, 5, 15 min) | %s at the start, %s at the end |" % (r["load_start"], r["load_end"]))
    w("")
    w("The machine is shared (2 cores, other builds and test suites running): timings are noisy, so "
      "medians are the figures to compare; p99 and max show the tail this load produced.")
    w("")

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
          "stopped with `stop` on the FIFO; `started − scheduled` from history.jsonl (%d entries, %d marked late, outcomes %s; not seen ringing: %d) |" % (
              dist(a_delay), delay["alarms"], delay["history_entries"], delay["late"], delay["outcomes"], len(delay["not_seen"])))
        w("| scheduled → status.json says ringing | %s | inotify on the runtime directory (same alarms) |" % dist(delay["status_ringing"]))
        w("| stop latency: `stop` written to the FIFO → status.json idle (`null` PCM) | %s | same alarms |" % dist(delay["stop_to_idle"]))
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
        w("| memory idle: resident / private / PSS | %s / %s / %s | /proc/PID/status VmRSS, smaps_rollup Private_Clean+Private_Dirty, Pss |" % (
            mib(im["rss"]), mib(im["private"]), mib(im["pss"])))
    if pu and pu.get("ringing_memory"):
        rm = pu["ringing_memory"]
        w("| memory while ringing (pulse, 1 s in): resident / private / PSS | %s / %s / %s, %d threads | |" % (
            mib(rm["rss"]), mib(rm["private"]), mib(rm["pss"]), rm["threads"]))
    if ir:
        w("| memory idle after ringing: resident / private | %s / %s | |" % (mib(ir["memory"]["rss"]), mib(ir["memory"]["private"])))
    se = r.get("startup_empty")
    if se:
        w("| start-up, spawn → READY=1 (empty store) | %s | NOTIFY_SOCKET bound by the bench |" % dist(se["ready"]))
        w("| start-up, spawn → status.json written (empty store) | %s | |" % dist(se["status"]))
    b = r.get("big")
    if b:
        w("| %d alarms: `alarm import` | %s | one run; alarms.json is %.1f MiB |" % (b["alarms"], ms(b["import"], 0), b["alarms_json_bytes"] / 1048576))
        w("| %d alarms: start-up → READY=1 | %s | |" % (b["alarms"], dist(b["ready"], 0)))
        w("| %d alarms: start-up → status.json | %s | |" % (b["alarms"], dist(b["status"], 0)))
        w("| %d alarms: `alarm list` | %s | table to a pipe (%d lines) |" % (b["alarms"], dist(b["list"], 0), b["list_lines"]))
        w("| %d alarms: `alarm list --json` | %s | |" % (b["alarms"], dist(b["list_json"], 0)))
        w("| %d alarms: `alarm add --in 30m` | %s | daemon running |" % (b["alarms"], dist(b["add"], 0)))
        w("| %d alarms: `alarm add` start → daemon's status shows it as next | %s | inotify reload in alarmd |" % (b["alarms"], dist(b["add_to_daemon_next"], 0)))
        w("| %d alarms: alarmd CPU per reload | %s | utime+stime across one add |" % (b["alarms"], dist(b["daemon_cpu_per_add"], 0)))
        w("| %d alarms: `alarm remove` | %s | |" % (b["alarms"], dist(b["remove"], 0)))
        w("| %d alarms: alarmd memory idle, resident / private | %s / %s | |" % (b["alarms"], mib(b["idle_memory"]["rss"]), mib(b["idle_memory"]["private"])))
    w("")
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
    w("- 10,000 alarms: a generated JSON array (weekday/daily/yearly calendar expressions in 10 zones, floating and pinned, "
      "plus absolute ones, none due within 2 h) loaded with `alarm import FILE`; then `alarm list`, `alarm list --json`, "
      "`alarm add --in 30m --id probeN`, `alarm remove probeN`, each timed from spawn to exit, the daemon running.")
    w("- cron: Debian's `cron` (`apt-get install cron` by the script if missing), started as `TZ=UTC /usr/sbin/cron -f` "
      "(or the one already running), with a job file /etc/cron.d/alarm-bench-PID (removed at the end) whose lines are "
      "`M H D MON * root date +%s.%N >> FILE`.")
    w("- Loops (`bench/competitors.py`): bash `while sleep 1; do now=$(date +\"$FMT\"); case ... esac; done` and python "
      "`while True: time.sleep(1); now = time.strftime(fmt) ...`, FMT `%H:%M` (minute targets, as Pi alarm scripts do) "
      "or `%H:%M:%S` (the same seconds as alarmd's alarms); the \"player\" is `date +%s.%N >> FILE`.")
    w("- Quick mode (`bash bench/run --quick`, run by `scripts/test`): fewer samples, one cron minute, no alarm-bench "
      "(scripts/test runs it just before); it writes .build/bench/BENCHMARKS-quick.md and leaves BENCHMARKS.md alone.")
    w("")
    return "\n".join(L)

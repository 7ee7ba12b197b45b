#!/usr/bin/env python3
"""The system test's verdicts (scripts/system-test): the guest's own checks, then the recordings.

    analyse.py OUT_DIR SCENARIO... [-- OUT_DIR SCENARIO...]...

One OUT_DIR per guest, with the scenarios that guest ran: scripts/system-test runs the plan in two
guests at once on amd64; each scenario is judged from the out dir of the guest that ran it, and its
line names that guest (install, which every guest runs, has a line per guest). For each scenario,
OUT_DIR/NAME holds what the guest wrote (guest.sh, running the scenario's scenarios/NAME.sh):
result, events, rec.raw/rec.idx. The recording (48 kHz mono S16_LE from hw:Loopback,1) is split
into rings: runs of sound (peak above THRESHOLD) with no silence longer than MERGE_GAP inside (the
default tone is 0.1 s beeps with 0.1 s gaps and a 0.5 s pause between loops). Each ring's frequency
is measured by zero crossings inside its beeps (upward zero crossings). Samples are put on the
guest's clock with record.py's index (see there). Prints one line per scenario, then how many
passed, were not possible and failed (a scenario that ran in several guests counted once, by its
worst verdict); exits 1 if any failed. Standard library only.
"""
import array
import os
import sys
import power_cut_check

RATE = 48000
THRESHOLD = 1000  # of 32767: the tone plays at 0.6 of full scale; silence is exact zeros
MERGE_GAP = 1.5  # s
TONE = 880.0  # Hz: AlarmAudio's DefaultTone.frequency
TONE_TOLERANCE = 10.0  # Hz
STOP_LIMIT = 0.100  # s: the number for alarm stop

# Timing tolerances per guest architecture (guest.sh writes `uname -m` to OUT_DIR/arch). x86_64's
# are the original numbers and are never loosened; aarch64 (the Pi's appliance, emulated by
# qemu-system-aarch64 under TCG, several times slower than the x86-64 guest) widens only what the
# emulation itself delays, each with its measured basis.
TOLERANCES = {
    "x86_64": {
        "start_late": 1.0,  # s: a ring starts within its second
        "stop": STOP_LIMIT,  # s: last sound after alarm stop wrote to the FIFO
        "snooze_rering": (4.8, 6.5),  # s: snooze 5s, from silence to the next sound
        "kill_silent": 0.2,  # s: sound after kill -9 (or after SIGSTOP: the buffer is 50 ms)
        "thaw_resume": 1.0,  # s: from SIGCONT after a freeze to the sound again (recovered underrun)
    },
}
TOLERANCES["aarch64"] = dict(TOLERANCES["x86_64"])
# A capture that dropped frames fails there, rather than giving early times: with arecord's
# 200 ms buffer the emulated guest's recorder was starved ~360 ms while `alarm add` started and
# ~200 ms were dropped, so the ring seemed to start 0.165 s early. record.py now keeps 2 s of
# buffer on aarch64 (no overrun since; the reader was late by up to 0.7 s and caught up).
TOLERANCES["aarch64"]["no_drops"] = True
# A ring's sound within 2 s of its second, not 1 s. Measured on the emulated arm64 guest (2 TCG
# vCPUs on a 2-core host that was also compiling): +0.039, +0.041, +0.069 s in most rings, but
# +1.564 s once, when alarmd itself logged "ringing" only 0.64 s after the second and its playback
# then underran 15 times in 7 s (snd_pcm_writei: Broken pipe): the emulator starved, not alarmd's
# schedule. Early is still a failure (the -1 tick bound is unchanged).
TOLERANCES["aarch64"]["start_late"] = 2.0
# The sound after a 2 s freeze within 2 s of SIGCONT, not 1 s, for the same starved emulator
# (not yet measured on arm64: the freeze is new in issue #29).
TOLERANCES["aarch64"]["thaw_resume"] = 2.0
T = TOLERANCES["x86_64"]


class Recording:
    def __init__(self, prefix):
        self.samples = array.array("h")
        with open(prefix + ".raw", "rb") as f:
            data = f.read()
        self.samples.frombytes(data[: len(data) // 2 * 2])
        # Frame 0's instant: the earliest "arrival - frames before it" (see record.py).
        self.t0 = None
        self.idx = []  # (frames, realtime) per read
        with open(prefix + ".idx") as f:
            for line in f:
                frames, real, _ = line.split()
                t = float(real) - int(frames) / RATE
                self.idx.append((int(frames), float(real)))
                if self.t0 is None or t < self.t0:
                    self.t0 = t
        # Frames the capture dropped (an overrun of arecord's buffer: its reader was starved for
        # longer than the buffer): "arrival - frames before it" then never comes back down to its
        # minimum before the drop, and every later sample's time (t0 + i / RATE) is early by as
        # much. A reader that was only late (and caught up) is no drop.
        offsets = [real - n / RATE for n, real in self.idx]
        self.dropped, low = 0.0, None
        suffix = offsets[:]
        for k in range(len(suffix) - 2, -1, -1):
            suffix[k] = min(suffix[k], suffix[k + 1])
        for k in range(len(offsets) - 1):
            low = offsets[k] if low is None else min(low, offsets[k])
            self.dropped = max(self.dropped, suffix[k + 1] - low)
        self.rings = self._rings()
        # The instants the kernel started the playback stream (record.py), if it wrote them.
        self.triggers = []
        try:
            with open(prefix + ".trig") as f:
                self.triggers = [float(line) for line in f if line.strip()]
        except FileNotFoundError:
            pass

    def time(self, i):
        return self.t0 + i / RATE

    def _rings(self):
        s = self.samples
        loud = [i for i in range(0, len(s)) if s[i] > THRESHOLD or s[i] < -THRESHOLD] if len(s) < 4 * RATE else None
        if loud is None:  # faster on long recordings: blocks of 5 ms first, then the exact sample
            loud = []
            block = 240
            for b in range(0, len(s), block):
                chunk = s[b : b + block]
                if max(chunk) > THRESHOLD or min(chunk) < -THRESHOLD:
                    loud.append(b)
            exact = []
            for b in loud:
                first = next(i for i in range(b, min(b + 240, len(s))) if abs(s[i]) > THRESHOLD)
                last = next(i for i in range(min(b + 240, len(s)) - 1, b - 1, -1) if abs(s[i]) > THRESHOLD)
                exact.append((first, last))
        else:
            exact = [(i, i) for i in loud]
        rings = []
        for first, last in exact:
            if rings and first - rings[-1][1] <= MERGE_GAP * RATE:
                rings[-1][1] = last
            else:
                rings.append([first, last])
        return rings

    def frequency(self, ring):
        """Median over the beeps in the ring of the frequency in each beep's middle 60 %."""
        s = self.samples
        first, last = ring
        estimates = []
        i = first
        while i < last and len(estimates) < 40:
            # One beep: from i until 20 ms without sound.
            j = i
            quiet = 0
            while j < last and quiet < 960:
                quiet = quiet + 1 if abs(s[j]) <= THRESHOLD else 0
                j += 1
            end = j - quiet
            n = end - i
            if n > 0.05 * RATE:
                # Upward zero crossings, interpolated between samples: whole periods between the
                # first and the last.
                ups = [k + s[k] / (s[k] - s[k + 1]) for k in range(i + n // 5, end - n // 5) if s[k] < 0 <= s[k + 1]]
                if len(ups) >= 3:
                    estimates.append((len(ups) - 1) / ((ups[-1] - ups[0]) / RATE))
            i = j
            while i < last and abs(s[i]) <= THRESHOLD:
                i += 1
        if not estimates:
            return None
        estimates.sort()
        return estimates[len(estimates) // 2]


def events(d):
    out = {}
    try:
        with open(os.path.join(d, "events")) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    out.setdefault(parts[1], (float(parts[0]), parts[2] if len(parts) > 2 else None))
    except FileNotFoundError:
        pass
    return out


class Audio:
    """The checks of one scenario's recording; problems go to self.failures."""

    def __init__(self, d, tick):
        self.d = d
        self.tick = tick  # s: one kernel tick of the guest
        self.ev = events(d)
        self.failures = []
        self.figures = []
        self.rec = Recording(os.path.join(d, "rec")) if os.path.exists(os.path.join(d, "rec.raw")) else None
        if self.rec is None:
            self.failures.append("no recording")
            self.rings = []
        else:
            self.rings = self.rec.rings
            if self.rec.dropped > 0.1:  # (the offset drifts a few tens of ms without any drop)
                self.figures.append("capture dropped %.0f ms" % (self.rec.dropped * 1000))

    def at(self, name):
        return self.ev[name][0]

    def value(self, name):
        return float(self.ev[name][1])

    def start(self, k):
        return self.rec.time(self.rings[k][0])

    def end(self, k):
        return self.rec.time(self.rings[k][1])

    def count(self, want):
        if len(self.rings) != want:
            desc = ", ".join("%.2f-%.2f s" % (self.start(k) - self.rec.t0, self.end(k) - self.rec.t0) for k in range(len(self.rings)))
            self.failures.append("%d ring(s) on the recording, expected %d (%s)" % (len(self.rings), want, desc or "silence"))
            return False
        return True

    def tone(self):
        for k, ring in enumerate(self.rings):
            f = self.rec.frequency(ring)
            if f is None or abs(f - TONE) > TONE_TOLERANCE:
                self.failures.append("ring %d: frequency %s Hz, expected %.0f" % (k + 1, "?" if f is None else "%.1f" % f, TONE))
            elif k == 0:
                self.figures.append("%.1f Hz" % f)

    def starts_in_its_second(self, k, due_event, what):
        """Ring k's sound starts within its second, judged by the kernel's own record of the
        instant alarmd's stream started (record.py: the playback substream's trigger_time) and the
        recording after it.

        The recording alone cannot say it to the millisecond: snd-aloop moves its streams on
        jiffies (aloop.c: the trigger takes `jiffies`, the copy to the capture side happens tick by
        tick), so the recording puts a sound at the tick at or before the trigger, and later than
        that tick by however long the guest's timer interrupt came late: under TCG on a busy host,
        milliseconds. Seen (issue #40): `full`'s ring at -0.010 s on the recording, 2.4 ticks,
        while alarmd's pre-roll waits for its instant on the clock before its first write. So:
        the trigger is at or after the second (a millisecond for the two clocks' readings) and
        before start_late; the sound on the recording starts within 0.1 s before the trigger (the
        grid and a late tick) and at most 0.05 s after it (no silence put before the sound).
        A recording without trigger times (no status file) is judged as before: two ticks early
        at most."""
        due = self.value(due_event)
        start = self.start(k)
        near = [t for t in self.rec.triggers if abs(t - start) <= 0.5]
        if not near:
            late = start - due
            self.figures.append("%s %+.3f s" % (what, late))
            if not -2 * self.tick <= late < T["start_late"]:
                self.failures.append("%s: the sound started %+.3f s from its second (due %.0f)" % (what, late, due))
            return
        trigger = min(near, key=lambda t: abs(t - start))
        grid = start - trigger
        late = trigger - due + max(0.0, grid)
        self.figures.append("%s %+.3f s (stream started %+.3f s, recording %+.0f ms from it)" % (
            what, late, trigger - due, grid * 1000))
        if trigger - due < -0.001:
            self.failures.append("%s: alarmd's stream started %+.3f s from its second, before it (due %.0f)" % (
                what, trigger - due, due))
        if late >= T["start_late"]:
            self.failures.append("%s: the sound started %+.3f s from its second (due %.0f)" % (what, late, due))
        if not -0.1 <= grid <= 0.05:
            self.failures.append("%s: the sound on the recording is %+.0f ms from the stream's start" % (what, grid * 1000))

    def silent_after(self, k, event, limit, what):
        """The last sound of ring k is at most `limit` s after the event (the command's start)."""
        t = self.at(event)
        gap = self.end(k) - t
        self.figures.append("%s %.0f ms" % (what, gap * 1000))
        if gap > limit:
            self.failures.append("%s: sound went on %.0f ms after the command (limit %.0f ms)" % (what, gap * 1000, limit * 1000))
        if gap < -1.3:
            self.failures.append("%s: the ring had already gone silent %.1f s before the command" % (what, -gap))


def check_ring(a):
    if not a.count(2):
        return
    a.tone()
    a.starts_in_its_second(0, "due", "start")
    if not a.at("snooze-cmd") - 1.3 <= a.end(0) <= a.at("snooze-done"):
        a.failures.append("snooze: the sound ended at %+.3f s from the command" % (a.end(0) - a.at("snooze-cmd")))
    again = a.start(1) - a.end(0)
    a.figures.append("re-rings %.2f s after the snooze" % again)
    lo, hi = T["snooze_rering"]
    if not lo <= again <= hi:
        a.failures.append("snooze 5s: rang again %.2f s after it went silent" % again)
    # From the instant `alarm stop` wrote its line to alarmd's FIFO (strace in the guest): the
    # process's own start-up before it, ~250 ms of a 60 MB binary under TCG emulation, is the
    # emulator's, not alarmd's. Both figures are printed.
    a.silent_after(1, "stop-write", T["stop"], "stop")
    a.figures.append("%.0f ms after alarm stop started (it ran %.0f ms)" % (
        (a.end(1) - a.at("stop-cmd")) * 1000, (a.at("stop-done") - a.at("stop-cmd")) * 1000))


def check_zone(a):
    if not a.count(2):
        return
    a.tone()
    a.starts_in_its_second(0, "floating-due", "floating")
    a.starts_in_its_second(1, "pinned-due", "pinned")


def check_clock(a):
    # The clock jumps during this recording: only the number of rings is meaningful.
    if a.count(1):
        a.tone()


def check_reboot(a):
    if a.rings:
        a.tone()
        a.rings = a.rings[:1]
    else:
        a.failures.append("no sound on the recording after the boot")


def check_crash(a):
    if not a.count(4):
        return
    a.tone()
    kill = a.at("kill-cmd")
    if a.end(0) > kill + T["kill_silent"]:
        a.failures.append("sound went on %.2f s after kill -9" % (a.end(0) - kill))
    back = a.start(1) - kill
    a.figures.append("rings again %.1f s after kill -9" % back)
    if back > 20:
        a.failures.append("rang again only %.1f s after kill -9" % back)
    # Frozen 2 s: silent once the buffer ran dry, heard again at once after the underrun's recovery.
    freeze, thaw = a.at("freeze"), a.at("thaw")
    if a.end(1) > freeze + T["kill_silent"]:
        a.failures.append("sound went on %.2f s after the freeze" % (a.end(1) - freeze))
    back = a.start(2) - thaw
    a.figures.append("rings again %.2f s after a 2 s freeze" % back)
    if back > T["thaw_resume"]:
        a.failures.append("rang again only %.2f s after a 2 s freeze ended (limit %.1f s)" % (back, T["thaw_resume"]))
    stop = a.at("stop-signal")
    back = a.start(3) - stop
    a.figures.append("%.1f s after SIGSTOP" % back)
    if not 20 <= back <= 130:  # the last watchdog ping was 0-30 s before SIGSTOP
        a.failures.append("rang again %.1f s after SIGSTOP (watchdog 60 s)" % back)


def check_card(a):
    if a.count(1):
        a.tone()
        a.starts_in_its_second(0, "due2", "card back")


def check_full(a):
    want = 2 if "ro-done" in a.ev else 1
    if not a.count(want):
        return
    a.tone()
    a.starts_in_its_second(0, "due", "disk full")
    if want == 2:
        a.starts_in_its_second(1, "due-ro", "read-only")


def check_hooks(a):
    # A hook runs at the ring, in its own service: the ring is not a moment late for it.
    if a.count(1):
        a.tone()
        a.starts_in_its_second(0, "due", "with a hook")


def check_webattack(a):
    # Issue #31: ring's alarm, added and stopped as ring.sh does, while alarm-web is attacked on
    # the guest: the same window for its start and for its stop.
    if not a.count(1):
        return
    a.tone()
    a.starts_in_its_second(0, "due", "start under attack")
    a.silent_after(0, "stop-write", T["stop"], "stop")
    for name, what in (("owner-worst", "owner's worst %s s"), ("memory-peak-mib", "alarm-web peak %s MiB")):
        try:
            with open(os.path.join(a.d, name)) as f:
                a.figures.append(what % f.read().strip())
        except FileNotFoundError:
            pass


STREAM = 660.0  # Hz: the sine of the host's station (stream_host.py)
STREAM_TIMEOUT = 5.0  # s: stream_timeout's default, which the stream scenario keeps
WINDOW = 0.04  # s: the stream scenario's windows, each short enough to lie inside one tone beep


def windows(rec):
    """(instant, frequency or None) of each window of WINDOW s with sound in it: the frequency by
    the upward zero crossings inside the window (None for fewer than three)."""
    s, n, out = rec.samples, int(WINDOW * RATE), []
    for b in range(0, len(s) - n, n):
        w = s[b : b + n]
        if max(w) <= THRESHOLD and min(w) >= -THRESHOLD:
            continue
        ups = [k + w[k] / (w[k] - w[k + 1]) for k in range(n - 1) if w[k] < 0 <= w[k + 1]]
        out.append((rec.time(b), (len(ups) - 1) / ((ups[-1] - ups[0]) / RATE) if len(ups) >= 3 else None))
    return out


def check_stream(a):
    # Issue #43: the stream's sine from soon after its second until the station is killed, then
    # the default tone within stream_timeout + 1 s, and never the two the other way round. The
    # stream and the tone may be one ring on the recording (a broken connection falls back at
    # once): judged window by window, by frequency.
    found = windows(a.rec)
    stream = [t for t, f in found if f is not None and abs(f - STREAM) <= TONE_TOLERANCE]
    tone = [t for t, f in found if f is not None and abs(f - TONE) <= TONE_TOLERANCE]
    other = [(t, f) for t, f in found if f is not None and t not in stream and t not in tone]
    if len(stream) * WINDOW < 2.0:
        a.failures.append("%.1f s of the stream's %.0f Hz on the recording, expected several seconds" % (len(stream) * WINDOW, STREAM))
        return
    if len(tone) * WINDOW < 0.4:
        a.failures.append("%.1f s of the default tone's %.0f Hz after the station ended, expected its beeps" % (len(tone) * WINDOW, TONE))
        return
    due, stop = a.value("due"), a.at("stop-req")
    a.figures.append("%.0f Hz from %+.2f s of its second" % (STREAM, stream[0] - due))
    a.figures.append("until %+.2f s of the station's end" % (stream[-1] + WINDOW - stop))
    a.figures.append("the default tone %+.2f s after it" % (tone[0] - stop))
    if len(other) > 3:
        a.figures.append("%d windows of other frequencies" % len(other))
    if not -2 * a.tick <= stream[0] - due <= STREAM_TIMEOUT:
        a.failures.append("the stream started %+.2f s from its second (due %.0f)" % (stream[0] - due, due))
    if stream[-1] + WINDOW < stop - 1.0:
        a.failures.append("the stream went silent %.2f s before the station ended" % (stop - stream[-1] - WINDOW))
    if tone[0] < stop:
        a.failures.append("the default tone played %.2f s before the station ended" % (stop - tone[0]))
    if tone[0] - stop > STREAM_TIMEOUT + 1.0:
        a.failures.append("the default tone came %.2f s after the station ended (stream_timeout %.0f s + 1 s)" % (tone[0] - stop, STREAM_TIMEOUT))
    late = [t for t in stream if t > tone[0]]
    if late:
        a.failures.append("the stream's %.0f Hz again %.2f s after the default tone began" % (STREAM, late[-1] - tone[0]))
    if a.rings:
        a.silent_after(len(a.rings) - 1, "stop-write", T["stop"], "stop")


AUDIO = {"ring": check_ring, "zone": check_zone, "clock": check_clock, "reboot": check_reboot,
         "crash": check_crash, "card": check_card, "full": check_full, "hooks": check_hooks,
         "webattack": check_webattack, "stream": check_stream}


def kernel_tick(out):
    """One tick of the guest's kernel in s, from the CONFIG_HZ guest.sh wrote; Debian's 250 when
    it could not (said on stderr)."""
    try:
        with open(os.path.join(out, "kernel-hz")) as f:
            return 1.0 / int(f.read().strip())
    except (FileNotFoundError, ValueError, ZeroDivisionError):
        print("analyse.py: the guest's CONFIG_HZ is unknown; taking 250", file=sys.stderr)
        return 1.0 / 250


def guest_arch(out):
    try:
        with open(os.path.join(out, "arch")) as f:
            return f.read().strip()
    except FileNotFoundError:
        return "x86_64"


def judge(out, name, tick, guest):
    """Prints one scenario's line, from the guest's result and its recording, and returns its verdict.
    guest: "" when one guest ran the plan, else "guest K", said in the line."""
    where = " (%s)" % guest if guest else ""
    d = os.path.join(out, name)
    try:
        with open(os.path.join(d, "result")) as f:
            lines = [l.strip() for l in f if l.strip()]
    except FileNotFoundError:
        print("FAIL %s%s: no result (the guest did not get to it)" % (name, where))
        return "fail"
    verdict, reasons = lines[0], lines[1:]
    try:
        with open(os.path.join(d, "t0")) as f0, open(os.path.join(d, "t1")) as f1:
            seconds = float(f1.read()) - float(f0.read())
    except (FileNotFoundError, ValueError):
        seconds = float("nan")
    figures = []
    if name in AUDIO:
        try:
            a = Audio(d, tick)
            if a.rec is not None:
                AUDIO[name](a)
                # (clock and reboot check no instant on their recordings.)
                if T.get("no_drops") and a.rec.dropped > 0.1 and name not in ("clock", "reboot"):
                    a.failures.append("the capture dropped %.0f ms of frames (arecord overran): the times on the recording are early by as much" % (a.rec.dropped * 1000))
            figures = a.figures
            if a.failures:
                reasons = reasons + ["recording: " + f for f in a.failures] if verdict == "fail" else ["recording: " + f for f in a.failures]
                verdict = "fail"
        except (KeyError, ValueError, IndexError) as e:
            reasons.append("recording: cannot be checked (%r)" % e)
            verdict = "fail"
    if name == "power-cut":
        # (No recording: the state files after each boot, judged by power_cut_check.py.)
        failures, figures, _ = power_cut_check.check(d)
        if failures:
            reasons = (reasons if verdict == "fail" else []) + failures
            verdict = "fail"
    detail = (": " + ", ".join(figures)) if figures else ""
    took = "%s%.1f s" % (guest + ", " if guest else "", seconds)
    if verdict == "pass":
        print("PASS %s (%s)%s" % (name, took, detail))
    elif verdict == "notpossible":
        print("NOT POSSIBLE %s (%s): %s%s" % (name, took, "; ".join(reasons), ("; measured " + ", ".join(figures)) if figures else ""))
    else:
        verdict = "fail"
        print("FAIL %s%s: %s" % (name, where, "; ".join(reasons)))
    return verdict


def main():
    """analyse.py OUT_DIR SCENARIO... [-- OUT_DIR SCENARIO...]...: one group per guest."""
    global T
    groups, args = [], sys.argv[1:]
    while args:
        n = args.index("--") if "--" in args else len(args)
        groups.append((args[0], args[1:n]))
        args = args[n + 1 :]
    verdicts = {}  # scenario -> its worst verdict in any guest (install runs in each)
    for k, (out, plan) in enumerate(groups):
        arch = guest_arch(out)
        if arch not in TOLERANCES:
            print("analyse.py: no tolerances for the guest architecture %r; taking x86_64's" % arch, file=sys.stderr)
        T = TOLERANCES.get(arch, TOLERANCES["x86_64"])
        tick = kernel_tick(out)
        guest = "guest %d" % (k + 1) if len(groups) > 1 else ""
        for name in plan:
            verdict = judge(out, name, tick, guest)
            worst = ["pass", "notpossible", "fail"]
            verdicts[name] = max(verdict, verdicts.get(name, "pass"), key=worst.index)
    counts = [sum(1 for v in verdicts.values() if v == w) for w in ("pass", "notpossible", "fail")]
    print("summary: %d scenarios%s: %d passed, %d not possible, %d failed" % (
        len(verdicts), " in %d guests (install in each)" % len(groups) if len(groups) > 1 else "", *counts))
    sys.exit(1 if counts[2] else 0)


main()

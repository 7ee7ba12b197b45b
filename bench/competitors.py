"""What a Pi owner would otherwise use: cron firing a player, and one-second polling loops.

Each competitor's "player" is `date +%s.%N >> FILE` (the first thing it would run), so its delay
is measured to the instant the player starts; a real player would add its own start-up to that.
"""
import os
import shutil
import subprocess
import time

# The loop most Pi alarm scripts use, with the time format as a parameter: %H:%M (the usual
# form) or %H:%M:%S (to get one sample a second). It fires once per matching minute/second.
BASH_LOOP = r'''
FMT="$1"; TARGETS=" $2 "; OUT="$3"; last=""
while sleep 1; do
  now=$(date +"$FMT")
  case "$TARGETS" in
    *" $now "*) if [ "$now" != "$last" ]; then date +%s.%N >> "$OUT"; last=$now; fi ;;
  esac
done
'''

PY_LOOP = r'''
import sys, time
fmt, targets, out = sys.argv[1], set(sys.argv[2].split()), sys.argv[3]
last = None
while True:
    time.sleep(1)
    now = time.strftime(fmt)
    if now in targets and now != last:
        with open(out, "a") as f:
            f.write("%.6f\n" % time.time())
        last = now
'''


class Loop:
    """A polling loop (bash or python) running in the background, in UTC."""

    def __init__(self, kind, fmt, targets, out):
        self.kind, self.out = kind, out
        env = dict(os.environ, TZ="UTC")
        if kind == "bash":
            argv = ["bash", "-c", BASH_LOOP, "loop", fmt, " ".join(targets), out]
        else:
            argv = ["python3", "-c", PY_LOOP, fmt, " ".join(targets), out]
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    @property
    def pid(self):
        return self.proc.pid

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)


def fired(path):
    try:
        with open(path) as f:
            return [float(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def match(targets, fire_times, window):
    """Delays (s) of the first firing within `window` s after each target instant; and misses."""
    delays, misses = [], 0
    times = sorted(fire_times)
    for t in targets:
        hits = [f - t for f in times if 0 <= f - t < window]
        if hits:
            delays.append(hits[0])
        else:
            misses += 1
    return delays, misses


class Cron:
    """Debian's cron, firing `date` at given minutes through a file in /etc/cron.d.

    Uses a cron daemon that is already running; otherwise starts `cron -f` (then it runs in UTC).
    Debian's cron has no option for a private crontab directory, so the job file lives in
    /etc/cron.d for the length of the run and is removed at the end.
    """

    def __init__(self, out):
        self.out = out
        self.proc = None
        self.pid = None
        self.own = False
        self.job = "/etc/cron.d/alarm-bench-%d" % os.getpid()
        self.problem = None
        if not shutil.which("cron") and not os.path.exists("/usr/sbin/cron"):
            self.problem = self._install()
            if self.problem:
                return
        running = subprocess.run(["pgrep", "-o", "-x", "cron"], capture_output=True, text=True).stdout.split()
        if running:
            self.pid = int(running[0])
            self.utc = False
        else:
            self.proc = subprocess.Popen(["/usr/sbin/cron", "-f"], env=dict(os.environ, TZ="UTC"),
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.pid, self.own, self.utc = self.proc.pid, True, True
            time.sleep(0.5)
            if self.proc.poll() is not None:
                self.problem = "cron -f exited at once (status %d)" % self.proc.returncode
                self.pid = None

    @staticmethod
    def _install():
        if os.geteuid() != 0:
            return "cron is not installed and this is not root: apt-get install cron"
        print("bench: installing Debian's cron (apt-get install --no-install-recommends cron)", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        r = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "cron"], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "apt-get install cron failed: " + r.stderr.strip()[-300:]
        return None

    def schedule(self, minute_instants):
        """Installs one job line per minute (epoch seconds at a minute boundary)."""
        lines = ["# alarm bench/run: removed at the end of the run"]
        for t in minute_instants:
            tm = time.gmtime(t) if self.utc else time.localtime(t)
            lines.append("%d %d %d %d * root date +\\%%s.\\%%N >> %s 2>&1" % (tm.tm_min, tm.tm_hour, tm.tm_mday, tm.tm_mon, self.out))
        with open(self.job, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(self.job, 0o644)
        # Debian's cron re-reads /etc/cron.d when the directory's mtime changes.
        os.utime("/etc/cron.d")

    def close(self):
        try:
            os.unlink(self.job)
        except FileNotFoundError:
            pass
        if self.own and self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)

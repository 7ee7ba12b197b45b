#!/usr/bin/env python3
"""alarm-web's figures (issue #21): requests per second and latency of an authenticated
GET /api/status with `wrk` (Debian's package) over loopback at 4 and 64 connections, against
the release alarm-web with alarmd running (device null); alarm-web's resident and anonymous
memory idle and at the end of each load; the installed size of each package when the .debs are
given. Writes the section "## alarm-web" of BENCHMARKS.md (or --out), keeping the rest.

  python3 bench/web.py [--bin .build/release] [--duration 10] [--debs out/alarm_*.deb out/alarm-web_*.deb]

64 connections from one address are over alarm-web's default cap of 16 per address (a LAN
device holding more is refused); the run sets web_connections_per_address = 128, as a reverse
proxy's owner would, and says so.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import procstats  # noqa: E402

WEB_HEADING = "## alarm-web: HTTP under load (wrk)"


def log(text):
    print("bench/web: " + text, file=sys.stderr, flush=True)


def wait_for(predicate, timeout=30.0):
    end = time.time() + timeout
    while time.time() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return None


def wrk(port, token, connections, duration, pid):
    """wrk's figures, and alarm-web's largest VmRSS and RssAnon seen while it ran (every 0.2 s)."""
    run = subprocess.Popen(
        ["wrk", "-t", "2", "-c", str(connections), "-d", "%ds" % duration, "--latency",
         "-H", "Authorization: Bearer " + token, "http://127.0.0.1:%d/api/status" % port],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = {"rss": 0, "anon": 0}
    while run.poll() is None:
        m = procstats.memory(pid)
        peak = {k: max(peak[k], m[k] or 0) for k in peak}
        time.sleep(0.2)
    out = run.stdout.read()
    if run.returncode != 0:
        raise SystemExit("bench/web: wrk failed: " + out)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % label, out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: (.*)", out)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    return {"connections": connections, "rps": rps, "p50": ms("50"), "p99": ms("99"), "requests": requests,
            "non2xx": int(errors.group(1)) if errors else 0, "socket_errors": sock.group(1).strip() if sock else "none",
            "memory": peak}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/release")
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--debs", nargs="*", default=[])
    ap.add_argument("--out", default="BENCHMARKS.md")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        sys.exit("bench/web: wrk is not installed (Debian: apt-get install wrk)")
    web = os.path.abspath(os.path.join(args.bin, "alarm-web"))
    alarm = os.path.abspath(os.path.join(args.bin, "alarm"))
    alarmd = os.path.abspath(os.path.join(args.bin, "alarmd"))
    for b in (web, alarm, alarmd):
        if not os.access(b, os.X_OK):
            sys.exit("bench/web: %s is missing: swift build -c release --static-swift-stdlib first" % b)
    root = tempfile.mkdtemp(prefix="alarm-web-bench-")
    procs = []
    try:
        for d in ("state", "run", "sounds"):
            os.makedirs(os.path.join(root, d))
        conf = os.path.join(root, "alarm.conf")
        with open(conf, "w") as f:
            f.write("web_listen = 127.0.0.1:0\nweb_token_file = %s/token\nweb_connections_per_address = 128\n" % root)
        env = dict(os.environ, ALARM_CONFIG=conf, ALARM_STATE_DIR=root + "/state", ALARM_RUNTIME_DIR=root + "/run",
                   ALARM_SOUNDS_DIR=root + "/sounds", ALARM_DEVICE="null")
        token = subprocess.run([alarm, "web-token", "--rotate"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        procs.append(subprocess.Popen([alarmd], env=env, stdout=subprocess.DEVNULL, stderr=open(root + "/alarmd.log", "w")))
        wait_for(lambda: subprocess.run([alarm, "status"], env=env, capture_output=True).returncode == 0)
        weblog = root + "/alarm-web.log"
        p = subprocess.Popen([web], env=env, stdout=subprocess.DEVNULL, stderr=open(weblog, "w"))
        procs.append(p)

        def port():
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(weblog).read())
            return int(m.group(1)) if m else None
        listening = wait_for(port)
        if not listening:
            sys.exit("bench/web: alarm-web did not start: " + open(weblog).read())
        subprocess.run(["curl", "-sf", "-o", "/dev/null", "-H", "Authorization: Bearer " + token,
                        "http://127.0.0.1:%d/api/status" % listening], check=True)
        procstats.settle(p.pid)
        idle = procstats.memory(p.pid)
        log("idle: %s" % idle)
        runs = []
        for c in (4, 64):
            r = wrk(listening, token, c, args.duration, p.pid)
            log("%d connections: %.0f req/s, p50 %.2f ms, p99 %.2f ms, %s" % (c, r["rps"], r["p50"], r["p99"], r["memory"]))
            runs.append(r)
        sizes = []
        for deb in args.debs:
            for d in glob.glob(deb):
                field = lambda f: subprocess.run(["dpkg-deb", "-f", d, f], capture_output=True, text=True).stdout.strip()
                sizes.append((field("Package"), field("Architecture"), field("Version"), int(field("Installed-Size")), os.path.getsize(d) // 1024))
    finally:
        for q in procs:
            q.terminate()
        for q in procs:
            try:
                q.wait(timeout=10)
            except subprocess.TimeoutExpired:
                q.kill()
        shutil.rmtree(root, ignore_errors=True)

    def kib(m, key):
        v = m.get(key)
        return "%s KiB" % format(v // 1024, ",") if v is not None else "n/a"
    cpu = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    load = open("/proc/loadavg").read().split()[0]
    lines = [WEB_HEADING, "",
             "`python3 bench/web.py` on %s (%s cores, load %s when it started), %s: the release `alarm-web` "
             "(Hummingbird %s on SwiftNIO), with `alarmd` running on the `null` device, answering an authenticated "
             "`GET /api/status` (it reads `status.json` and checks alarmd's lock, as `alarm status --json` does) "
             "to `wrk -t 2 -c N -d %ds --latency` over loopback. 64 connections from one address are over the "
             "default cap of 16 per address: this run sets `web_connections_per_address = 128`."
             % (os.uname().nodename, cpu, load, time.strftime("%Y-%m-%d"), "2.28.1", args.duration), "",
             "| Connections | Requests/s | p50 | p99 | Requests | Errors | alarm-web VmRSS under load (max) | RssAnon under load (max) |",
             "|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in runs:
        lines.append("| %d | %s | %.2f ms | %.2f ms | %s | %s non-2xx, socket errors: %s | %s | %s |" % (
            r["connections"], format(round(r["rps"]), ","), r["p50"], r["p99"], format(r["requests"], ","), r["non2xx"],
            r["socket_errors"], kib(r["memory"], "rss"), kib(r["memory"], "anon")))
    lines += ["", "alarm-web idle (before the load): VmRSS %s, RssAnon %s." % (kib(idle, "rss"), kib(idle, "anon")), "",
              "The server of #14 that this one replaced (a thread per connection, at most 32) was measured at "
              "3,259 requests/s with p99 5.1 ms at 4 connections, with a small C client on a loaded machine "
              "(issue #21; not measured again here).", ""]
    if sizes:
        lines += ["| Package | Architecture | Version | Installed | .deb |", "|---|---|---|---:|---:|"]
        for name, arch, version, inst, size in sizes:
            lines.append("| %s | %s | %s | %s KiB | %s KiB |" % (name, arch, version, format(inst, ","), format(size, ",")))
        lines += ["", "Before the split, the one amd64 package `alarm` (with alarm-web inside its multi-call "
                  "binary) installed 20,260 KiB, and the arm64 one 18,368 KiB.", ""]
    section = "\n".join(lines)
    text = open(args.out).read() if os.path.exists(args.out) else ""
    at = text.find(WEB_HEADING)
    if at >= 0:
        nxt = text.find("\n## ", at + len(WEB_HEADING))
        text = text[:at] + section + ("\n" + text[nxt + 1:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(args.out, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    print(section)


if __name__ == "__main__":
    main()

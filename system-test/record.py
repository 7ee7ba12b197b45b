#!/usr/bin/python3
"""Records the loopback sound card in the system test's guest, with the guest's clock.

    record.py OUT      (until SIGTERM)

arecord captures from plughw:Loopback,1,0 what alarmd plays on hw:Loopback,0 (48 kHz, mono,
16-bit) in 10 ms periods and writes them to its stdout as they come. This reads them and writes
OUT.raw (the samples) and OUT.idx: one line per read, "FRAMES REALTIME MONOTONIC": how many frames
had arrived in all, and when. A read returns after its last frame was captured, so for every line
REALTIME - FRAMES / 48000 is at or after the instant of frame 0; the smallest such value over the
whole recording is the best estimate of it (analyse.py maps samples to guest time with it).

After each read it also looks at the playback side's status (/proc/asound/Loopback/pcm0p/sub0/status,
the substream whose sound the capture side records) and writes OUT.trig: one line per stream start,
"TRIGGER_REALTIME": the instant the kernel started alarmd's stream (its trigger_time, taken with the
kernel's clock at the trigger, not on snd-aloop's tick grid), on the realtime clock. analyse.py judges
a ring's start by it (issue #40: the recording alone puts a start up to two ticks early, more when
the emulated guest's timer interrupt comes late).

Only os, sys, time and signal: the guest has python3-minimal.
"""
import os
import signal
import sys
import time

RATE = 48000
# The capture buffer: 2 s. On the emulated arm64 guest (qemu-system-aarch64, TCG) this reader and
# arecord were starved for ~360 ms while `alarm add` started (a 16 MB binary under emulation): a
# 200 ms buffer overran and ~200 ms of frames were dropped, which shifts every later sample's time
# (analyse.py counts frames from the first read). The x86-64 guest did the same in a CI run
# (2026-11-26): 256 ms dropped in `crash`, and in `full` a ring that alarmd's journal shows on its
# second (16:40:20.120) seemed to start 0.167 s early. snd-aloop allows 2 s; the reads still come
# every 10 ms period, so the timing precision is the same.
BUFFER_US = 2000000
out = sys.argv[1]
stop = False


def on_term(signum, frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)

r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.close(r)
    os.close(w)
    os.execvp("arecord", ["arecord", "-q", "-D", "plughw:Loopback,1,0", "-f", "S16_LE", "-r", str(RATE), "-c", "1",
                          "-t", "raw", "--period-time=10000", "--buffer-time=%d" % BUFFER_US])
os.close(w)
raw = open(out + ".raw", "wb")
idx = open(out + ".idx", "w", buffering=1)  # line by line: the driver waits for the first
trig = open(out + ".trig", "w", buffering=1)
STATUS = "/proc/asound/Loopback/pcm0p/sub0/status"
last_trigger = None


def realtime_minus_monotonic():
    """The realtime clock less the monotonic one, now: the realtime reading bracketed by two
    monotonic ones, the closest pair of three tries (a preemption between them would skew it)."""
    best = None
    for _ in range(3):
        m1 = time.clock_gettime(time.CLOCK_MONOTONIC)
        r = time.clock_gettime(time.CLOCK_REALTIME)
        m2 = time.clock_gettime(time.CLOCK_MONOTONIC)
        if best is None or m2 - m1 < best[0]:
            best = (m2 - m1, r - (m1 + m2) / 2)
    return best[1]


def note_trigger(real):
    """Writes the playback stream's trigger instant when a new one is running. alsa-lib asks for
    monotonic timestamps (SNDRV_PCM_IOCTL_TTSTAMP) where the kernel has them, so the kernel's
    trigger_time is on CLOCK_MONOTONIC then, else on the realtime clock: a value far below the
    realtime clock's is taken as monotonic and moved onto it with this moment's difference."""
    global last_trigger
    try:
        with open(STATUS) as f:
            text = f.read()
    except OSError:
        return
    if "state: RUNNING" not in text:  # (a stop or a drain moves the trigger time too)
        return
    for line in text.splitlines():
        if line.startswith("trigger_time:"):
            value = line.split(":", 1)[1].strip()
            if value != last_trigger:
                last_trigger = value
                t = float(value)
                if t < real / 2:
                    t += realtime_minus_monotonic()
                trig.write("%.6f\n" % t)
            return


total = 0  # bytes
killed = False
try:
    while True:
        if stop and not killed:
            os.kill(pid, signal.SIGTERM)
            killed = True
        try:
            chunk = os.read(r, 4096)
        except InterruptedError:
            continue
        real, mono = time.clock_gettime(time.CLOCK_REALTIME), time.clock_gettime(time.CLOCK_MONOTONIC)
        if not chunk:
            break
        raw.write(chunk)
        total += len(chunk)
        idx.write("%d %.6f %.6f\n" % (total // 2, real, mono))
        note_trigger(real)
finally:
    raw.close()
    idx.close()
    trig.close()
    os.waitpid(pid, 0)

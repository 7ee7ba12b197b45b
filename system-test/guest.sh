#!/bin/bash
# The system test's driver, inside the guest (scripts/system-test): run by system-test.service at
# every boot from the 9p share (/mnt/host). Runs each scenario named in /mnt/host/plan that has no
# result yet (so a scenario may reboot the guest and go on after the boot), as root, acting as a
# Pi owner would: apt-get, systemctl, timedatectl, date, and `alarm` as the users "member" (in
# group alarm) and "outsider". Scenario NAME is the function sc_NAME in scenarios/NAME.sh; the
# helpers they share are in lib.sh. For every scenario it writes into /mnt/host/out/NAME/:
#   result      "pass", "fail" or "notpossible", then one line per reason
#   events      "REALTIME NAME [VALUE]" lines: what was done when (guest clock, $EPOCHREALTIME)
#   rec.raw/idx the loopback recording (record.py), checked on the host by analyse.py
#   journal.txt the journal since the scenario began; history.json, status.json where useful
# Then powers the guest off.
set -u
H=/mnt/host
O=$H/out
exec >> "$O/driver.log" 2>&1
echo "=== boot $(date -u +%FT%T.%NZ): driver starts"
systemctl is-system-running --wait > /dev/null
echo "=== system running ($(systemctl is-system-running)) at $(date -u +%FT%T.%NZ)"
# Seconds from the kernel's start to here, one line per boot (scripts/system-test prints them).
cut -d' ' -f1 /proc/uptime >> "$O/boot-seconds"
# x86_64 or aarch64: analyse.py's per-architecture tolerances.
uname -m > "$O/arch"
# The kernel's tick rate: snd-aloop moves its streams on jiffies, so a recorded sound's position is
# that of the tick before the write that started it (analyse.py allows for one tick).
sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p' "/boot/config-$(uname -r)" > "$O/kernel-hz" 2> /dev/null

# shellcheck source=lib.sh
. "$H/lib.sh"
# A clock more than 5 s off the RTC is set from the RTC, as NTP would on a Pi (alarmd, started
# before, follows the jump). The arm64 image has fake-hwclock, as Pi OS does, and trixie's
# fake-hwclock-load.service sets the saved time even when it is behind the one the kernel took
# from the PL031 (seen: 7 h behind at the first boot, the image's; after the reboot scenario's
# reboot, the time saved at shutdown, a minute behind). Then apt's signature check (sqv) refuses
# a key made "in the future" of the clock ("Not live until"), and the ring of the alarm due during
# the reboot was on time instead of late whenever the shutdown took under its 12 s.
# At the first boot alarmd already runs (it follows the jump); for the boots after it (the reboot
# scenario), a unit sets the clock from the RTC right after fake-hwclock and before alarmd starts.
if off=$(rtc_ahead) && ((off > 5 || off < -5)); then
    hwclock --hctosys && echo "=== the clock was $off s off the RTC: set from it ($(date -u +%FT%T.%NZ))"
fi
if [ ! -f /etc/systemd/system/system-test-rtc.service ] && command -v hwclock > /dev/null; then
    printf '%s\n' '[Unit]' 'Description=system test: the clock from the RTC, after fake-hwclock, before alarmd' \
        'DefaultDependencies=no' 'ConditionPathExists=/dev/rtc0' 'After=fake-hwclock-load.service' \
        'Before=sysinit.target time-set.target alarmd.service' '' '[Service]' 'Type=oneshot' \
        "ExecStart=$(command -v hwclock) --hctosys" '' '[Install]' 'WantedBy=sysinit.target' \
        > /etc/systemd/system/system-test-rtc.service
    systemctl enable system-test-rtc.service 2>&1 | sed 's/^/=== /'
fi
for f in "$H"/scenarios/*.sh; do
    # shellcheck source=/dev/null
    . "$f"
done

# ---- the plan ---------------------------------------------------------------------------------
for name in $(cat "$H/plan"); do
    D=$O/$name
    [ -f "$D/result" ] && continue
    mkdir -p "$D"
    [ -f "$D/t0" ] || echo "$EPOCHREALTIME" > "$D/t0"
    echo "=== $name ($(date -u +%T))"
    "sc_$name"
    rec_stop
    journal_since "$(cat "$D/t0")" > "$D/journal-all.txt"
    {
        if [ -s "$D/failures" ]; then echo fail; cat "$D/failures"
        elif [ -s "$D/notpossible" ]; then echo notpossible; cat "$D/notpossible"
        else echo pass; fi
    } > "$D/result"
    echo "$EPOCHREALTIME" > "$D/t1"
done
journalctl --no-pager -o short-precise > "$O/journal.txt" 2>&1
touch "$O/finished"
sync
systemctl poweroff

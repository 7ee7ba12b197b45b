#!/bin/bash
# The system test's driver, inside the guest (scripts/system-test): run by system-test.service at
# every boot from the 9p share (/mnt/host). Runs each scenario named in /mnt/host/plan that has no
# result yet (so a scenario may reboot the guest and go on after the boot), as root, acting as a
# Pi owner would: apt-get, systemctl, timedatectl, date, and `alarm` as the users "member" (in
# group alarm) and "outsider". For every scenario it writes into /mnt/host/out/NAME/:
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

# ---- helpers ----------------------------------------------------------------------------------
D="" REC=""
ev() { echo "$EPOCHREALTIME $*" >> "$D/events"; }
fail() { echo "$*" >> "$D/failures"; echo "  FAIL: $*"; }
notpossible() { echo "$*" >> "$D/notpossible"; echo "  NOT POSSIBLE: $*"; }
note() { echo "$*" >> "$D/notes"; echo "  $*"; }
member() { runuser -u member -- "$@"; }
outsider() { runuser -u outsider -- "$@"; }
# A whole second at least N seconds from now, as epoch seconds.
due_in() { echo $((${EPOCHREALTIME%.*} + $1 + 1)); }
hms() { date -d "@$1" +%H:%M:%S; }
state() { sed -n 's/.*"state" *: *"\([a-z]*\)".*/\1/p' /run/alarm/status.json 2>/dev/null; }
# wait_state STATE SECONDS: until status.json says STATE; logs the event "state-STATE".
wait_state() {
    local until=$((${EPOCHREALTIME%.*} + $2))
    while [ "${EPOCHREALTIME%.*}" -lt "$until" ]; do
        if [ "$(state)" = "$1" ]; then ev "state-$1"; return 0; fi
        sleep 0.05
    done
    return 1
}
# sleep_until EPOCH
sleep_until() {
    local left
    left=$(awk -v t="$1" -v n="$EPOCHREALTIME" 'BEGIN { d = t - n; print (d > 0 ? d : 0) }')
    sleep "$left"
}
rec_start() {
    python3 "$H/record.py" "$D/rec" &
    REC=$!
    local i
    for i in $(seq 100); do [ -s "$D/rec.idx" ] && break; sleep 0.1; done
    [ -s "$D/rec.idx" ] || fail "the recorder (arecord on plughw:Loopback,1,0) did not start"
    ev rec-start
}
rec_stop() {
    [ -n "$REC" ] || return 0
    ev rec-stop
    kill -TERM "$REC" 2> /dev/null
    wait "$REC"
    REC=""
}
# run_alarm WHO NAME ARGS...: runs `alarm ARGS` as WHO (member, outsider, root), events NAME-cmd
# and NAME-done around it, output in $D/NAME.out, exit status in $RC.
run_alarm() {
    local who=$1 name=$2
    shift 2
    local trace=()
    # TRACE=LINE: strace the command and log the instant it writes LINE to the FIFO as NAME-write.
    [ -z "${TRACE:-}" ] || trace=(strace -f -ttt -e trace=write -o "$D/$name.strace")
    ev "$name-cmd"
    case "$who" in
    root) "${trace[@]}" alarm "$@" > "$D/$name.out" 2>&1 ;;
    *) "${trace[@]}" runuser -u "$who" -- alarm "$@" > "$D/$name.out" 2>&1 ;;
    esac
    RC=$?
    ev "$name-done" "$RC"
    if [ -n "${TRACE:-}" ]; then
        local at
        at=$(grep -F "\\n$TRACE\\n" "$D/$name.strace" | head -1 | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) { print $i; exit } }')
        if [ -n "$at" ]; then echo "$at $name-write" >> "$D/events"; else fail "no write of '$TRACE' to the FIFO in $name.strace"; fi
    fi
    echo "  alarm $* ($who): exit $RC: $(tr '\n' ' ' < "$D/$name.out" | cut -c1-200)"
}
expect_rc() { # expect_rc NAME WANT
    [ "$RC" -eq "$2" ] || fail "alarm $1 exited $RC, expected $2: $(tr '\n' ' ' < "$D/$1.out" | cut -c1-300)"
}
journal_since() { journalctl --no-pager -o short-precise --since "@${1%.*}" 2> /dev/null; }
history_json() { alarm history --json 2> /dev/null; }
# The history entries (one JSON object per line, from history.jsonl) of alarm ID.
history_of() { grep -h "\"alarm\" *: *\"$1\"" /var/lib/alarm/history.jsonl 2> /dev/null; }
main_pid() { systemctl show -p MainPID --value alarmd; }
# unplug: remove the Loopback card. alarmd's pre-flight opens the device for a moment when an
# alarm is added (issue #11), which can make the module busy just then: try for a few seconds.
unplug() {
    local i
    for i in $(seq 25); do modprobe -r snd-aloop 2> "$D/modprobe.err" && return 0; sleep 0.2; done
    return 1
}
restarts() { systemctl show -p NRestarts --value alarmd; }

# ---- scenarios --------------------------------------------------------------------------------

# 1. apt-get install of alarm and alarm-web: user and group, unit enabled and active (READY), FIFO
# 0620 group alarm, status.json readable by all, systemd-analyze security <= 2.0 on the live
# system; alarm-web a binary of its own, its unit off.
sc_install() {
    local deb webdeb
    deb=$(cd "$H" && ls alarm_*.deb)
    webdeb=$(cd "$H" && ls alarm-web_*.deb)
    ev install-cmd
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/apt.out" 2>&1 ||
        fail "apt-get install ./$deb ./$webdeb failed: $(tail -5 "$D/apt.out")"
    ev install-done
    [ "$(dpkg-query -W -f='${Status}' alarm-web)" = "install ok installed" ] || fail "alarm-web is not installed: $(dpkg-query -W -f='${Status}' alarm-web 2>&1)"
    [ -f /usr/bin/alarm-web ] && [ ! -L /usr/bin/alarm-web ] || fail "/usr/bin/alarm-web is not a binary of its own"
    [ "$(dpkg -S /usr/bin/alarm-web 2>&1)" = "alarm-web: /usr/bin/alarm-web" ] || fail "/usr/bin/alarm-web is not the package alarm-web's: $(dpkg -S /usr/bin/alarm-web 2>&1)"
    # The version every entry point prints is the package's; the manual pages read with man.
    local version prog page
    version=$(dpkg-query -W -f='${Version}' alarm)
    for prog in alarm alarmd alarm-hooks alarm-web; do
        [ "$("$prog" --version 2>&1)" = "$version" ] || fail "$prog --version says '$("$prog" --version 2>&1)', the package is $version"
    done
    for page in alarm alarm.conf alarmd alarm-hooks alarm-web; do
        MANWIDTH=80 man -P cat "$page" > "$D/man-$page.txt" 2> "$D/man-$page.err" || fail "man $page: $(tail -3 "$D/man-$page.err")"
    done
    grep -q "snooze" "$D/man-alarm.txt" && grep -q "web_connections_per_address" "$D/man-alarm.conf.txt" ||
        fail "man alarm / man alarm.conf do not describe the commands and settings"
    note "--version: $version everywhere; man alarm ($(wc -l < "$D/man-alarm.txt") lines), alarm.conf, alarmd, alarm-hooks, alarm-web"
    getent passwd alarm > /dev/null || fail "no user alarm"
    getent group alarm > /dev/null || fail "no group alarm"
    id -nG alarm | grep -qw audio || fail "user alarm is not in group audio: $(id -nG alarm)"
    [ "$(systemctl is-enabled alarmd)" = enabled ] || fail "alarmd is not enabled: $(systemctl is-enabled alarmd)"
    local i
    for i in $(seq 100); do [ -p /run/alarm/control ] && [ -f /run/alarm/status.json ] && break; sleep 0.1; done
    [ "$(systemctl show -p ActiveState --value alarmd)/$(systemctl show -p SubState --value alarmd)" = active/running ] ||
        fail "alarmd is not active/running: $(systemctl show -p ActiveState -p SubState alarmd | tr '\n' ' ')"
    # Type=notify: active means READY=1 came; STATUS= shows it speaks the protocol.
    local text
    text=$(systemctl show -p StatusText --value alarmd)
    [ -n "$text" ] || fail "alarmd sent no STATUS= (StatusText empty)"
    note "alarmd StatusText: $text"
    [ "$(stat -c '%F %a %G' /run/alarm/control 2>&1)" = "fifo 620 alarm" ] || fail "/run/alarm/control: $(stat -c '%F %a %U:%G' /run/alarm/control 2>&1), expected fifo 620 group alarm"
    local mode
    mode=$(stat -c %a /run/alarm/status.json 2>&1)
    [ "$mode" = 644 ] || fail "/run/alarm/status.json is mode $mode, expected 644 (readable by every user)"
    outsider cat /run/alarm/status.json > /dev/null 2>&1 || fail "a user outside the group cannot read /run/alarm/status.json"
    systemd-analyze security --no-pager alarmd > "$D/security.txt" 2>&1
    local score
    score=$(sed -n 's/.*Overall exposure level for alarmd.service: \([0-9.]*\).*/\1/p' "$D/security.txt")
    if [ -z "$score" ]; then fail "systemd-analyze security gave no rating: $(tail -3 "$D/security.txt")"; else
        note "systemd-analyze security alarmd (live): $score"
        awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "systemd-analyze security alarmd rates $score, above 2.0"
    fi
    note "installed size: $(du -sh /usr/bin/alarm | cut -f1) /usr/bin/alarm; $(readlink /usr/bin/alarmd) <- /usr/bin/alarmd"
    # alarmd's memory once idle (no alarm, no ring): resident, anonymous, and its own dirty pages.
    sleep 3
    local pid
    pid=$(main_pid)
    if [ -r "/proc/$pid/status" ]; then
        echo "VmRSS $(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status") kB, RssAnon $(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status") kB," \
            "Private_Dirty $(awk '/^Private_Dirty:/ { print $2 }' "/proc/$pid/smaps_rollup") kB (smaps_rollup)" > "$D/memory"
        note "alarmd idle memory: $(cat "$D/memory")"
    fi
    # The person who may use the alarm clock joins its group (as the README tells them to).
    usermod -aG alarm member
}

# 2. A member adds an alarm 5 s ahead: it starts at its second; snooze 5s; rings again 5 s
# later; stop silences it within 100 ms (the host measures both on the recording).
sc_ring() {
    rec_start
    local due
    due=$(due_in 5)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id wake
    expect_rc add 0
    wait_state ringing 20 || fail "not ringing 15 s after the alarm was due"
    sleep 2.5
    run_alarm member snooze snooze 5s
    expect_rc snooze 0
    [ "$(state)" = snoozed ] || fail "not snoozed after alarm snooze 5s: $(state)"
    wait_state ringing 15 || fail "not ringing again 10 s after the snooze"
    sleep 2.3
    TRACE=stop run_alarm member stop stop
    expect_rc stop 0
    grep -q stopped "$D/stop.out" || fail "alarm stop did not say stopped: $(cat "$D/stop.out")"
    sleep 1.5
    rec_stop
    [ "$(state)" = idle ] || fail "not idle after the stop: $(state)"
    history_of wake > "$D/history.jsonl"
    grep -q '"outcome" *: *"snoozed"' "$D/history.jsonl" || fail "no snoozed episode in the history: $(cat "$D/history.jsonl")"
    grep -q '"outcome" *: *"stopped"' "$D/history.jsonl" || fail "no stopped episode in the history: $(cat "$D/history.jsonl")"
    run_alarm member remove remove wake
}

# 3. Outside the group: status says alarmd runs; stop is refused with a clear message.
sc_outsider() {
    run_alarm outsider status status
    expect_rc status 0
    grep -q "not running" "$D/status.out" && fail "alarm status as a user outside the group says: $(cat "$D/status.out")"
    run_alarm outsider status-json status --json
    expect_rc status-json 0
    grep -q '"running" *: *true' "$D/status-json.out" || fail "alarm status --json does not say running: $(cat "$D/status-json.out")"
    run_alarm outsider stop stop
    [ "$RC" -ne 0 ] || fail "alarm stop by a user outside the group exited 0"
    [ "$RC" -ne 3 ] || fail "alarm stop by a user outside the group exited 3 ('not running')"
    grep -q "permission denied" "$D/stop.out" && grep -q "group 'alarm'" "$D/stop.out" ||
        fail "alarm stop outside the group does not say permission denied / group 'alarm': $(cat "$D/stop.out")"
    # And the member still may.
    run_alarm member member-status status
    expect_rc member-status 0
}

# 4. timedatectl set-timezone: a floating alarm follows the new zone's wall clock, a pinned one
# does not; both ring when expected.
sc_zone() {
    local zone=Asia/Kolkata
    [ "$(readlink -f /etc/localtime)" = /usr/share/zoneinfo/Etc/UTC ] || timedatectl set-timezone Etc/UTC
    local fdue pdue
    fdue=$(due_in 30)
    pdue=$((fdue + 12))
    ev floating-due "$fdue"
    ev pinned-due "$pdue"
    # Floating: the wall time the new zone will show at fdue. Pinned to UTC (today's zone).
    run_alarm member add-floating add "$(TZ=$zone hms "$fdue")" --id floating
    expect_rc add-floating 0
    run_alarm member add-pinned add "$(TZ=UTC hms "$pdue") UTC" --id pinned
    expect_rc add-pinned 0
    alarm list --json > "$D/list-before.json" 2>&1
    rec_start
    ev zone-cmd
    timedatectl set-timezone "$zone" || fail "timedatectl set-timezone $zone failed"
    ev zone-done
    sleep 2
    alarm list --json > "$D/list-after.json" 2>&1
    local want
    want=$(TZ=$zone date -d "@$fdue" +%Y-%m-%dT%H:%M:%S%:z)
    grep -q "\"next\" *: *\"$want\"" "$D/list-after.json" || fail "after the zone change the floating alarm's next ring is not $want: $(tr -d '\n ' < "$D/list-after.json" | cut -c1-400)"
    grep -q "\"next\" *: *\"$want\"" "$D/list-before.json" && fail "before the zone change the floating alarm was already due at $want"
    sleep_until "$fdue"
    wait_state ringing 15 || fail "the floating alarm did not ring at $(TZ=$zone hms "$fdue") $zone"
    sleep 1.5
    run_alarm member stop-floating stop
    expect_rc stop-floating 0
    sleep_until "$pdue"
    wait_state ringing 15 || fail "the pinned alarm did not ring at $(TZ=UTC hms "$pdue") UTC"
    sleep 1.5
    run_alarm member stop-pinned stop
    expect_rc stop-pinned 0
    sleep 1
    rec_stop
    history_of floating > "$D/history-floating.jsonl"
    history_of pinned > "$D/history-pinned.jsonl"
    timedatectl set-timezone Etc/UTC
    run_alarm member remove remove floating pinned
}

# 5. The clock set forward across a due alarm: it rings once, late. Set back across it: nothing
# rings twice.
sc_clock() {
    rec_start
    local due
    due=$(due_in 20)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id jump
    expect_rc add 0
    sleep 2
    ev forward-cmd
    date -s "@$((${EPOCHREALTIME%.*} + 90))" > /dev/null
    ev forward-done
    wait_state ringing 15 || fail "no ring after the clock was set forward across the alarm"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    ev back-cmd
    date -s "@$((${EPOCHREALTIME%.*} - 90))" > /dev/null
    ev back-done
    # Past the alarm's time again, and a little more.
    local i
    for i in $(seq 40); do
        [ "$(state)" = idle ] || { fail "it rang again after the clock was set back: $(state)"; break; }
        [ "${EPOCHREALTIME%.*}" -gt $((due + 8)) ] && break
        sleep 1
    done
    rec_stop
    history_of jump > "$D/history.jsonl"
    [ "$(grep -c . "$D/history.jsonl")" -eq 1 ] || fail "history of the alarm has $(grep -c . "$D/history.jsonl") entries, expected 1: $(cat "$D/history.jsonl")"
    grep -q '"late" *: *true' "$D/history.jsonl" || fail "the ring after the jump is not marked late: $(cat "$D/history.jsonl")"
    run_alarm member remove remove jump
}

# 6. Reboot with an alarm due while the machine is down: it rings after boot, marked late.
sc_reboot() {
    if [ ! -f "$D/rebooted" ]; then
        local due
        due=$(due_in 12)
        ev due "$due"
        echo "$due" > "$D/due"
        run_alarm member add add "$(hms "$due")" --id boot
        expect_rc add 0
        touch "$D/rebooted"
        ev reboot-cmd
        sync
        systemctl reboot
        sleep infinity
    fi
    local due
    due=$(cat "$D/due")
    ev booted
    rec_start
    local since
    since=$(systemctl show -p ActiveEnterTimestampMonotonic --value alarmd)
    note "alarmd active since boot +$((since / 1000)) ms; now $(date +%T), due was $(hms "$due")"
    wait_state ringing 30 || fail "not ringing after the boot"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    rec_stop
    history_of boot > "$D/history.jsonl"
    grep -q '"late" *: *true' "$D/history.jsonl" || fail "the ring after the boot is not marked late: $(cat "$D/history.jsonl")"
    [ "$(grep -c . "$D/history.jsonl")" -eq 1 ] || fail "history of the alarm has $(grep -c . "$D/history.jsonl") entries, expected 1: $(cat "$D/history.jsonl")"
    journalctl --no-pager -b -1 -o short-precise > "$D/journal-previous-boot.txt" 2>&1
    grep -q "ringing boot" "$D/journal-previous-boot.txt" && fail "it rang before the reboot (due too soon for this machine)"
    run_alarm member remove remove boot
}

# 7. kill -9 while ringing: systemd restarts alarmd and it rings on. SIGSTOP: the watchdog kills
# and restarts it.
sc_crash() {
    rec_start
    run_alarm member ring ring
    expect_rc ring 0
    sleep 2
    local pid n0
    pid=$(main_pid) n0=$(restarts)
    ev kill-cmd "$pid"
    kill -9 "$pid"
    local i
    for i in $(seq 300); do [ "$(main_pid)" != "$pid" ] && [ "$(main_pid)" != 0 ] && break; sleep 0.1; done
    ev restarted "$(main_pid)"
    [ "$(restarts)" -gt "$n0" ] || fail "NRestarts did not grow after kill -9 ($n0 -> $(restarts))"
    sleep 0.5
    wait_state ringing 20 || fail "not ringing after the restart that followed kill -9"
    sleep 4
    pid=$(main_pid) n0=$(restarts)
    ev stop-signal "$pid"
    kill -STOP "$pid"
    for i in $(seq 1200); do [ "$(main_pid)" != "$pid" ] && [ "$(main_pid)" != 0 ] && break; sleep 0.1; done
    ev watchdog-restarted "$(main_pid)"
    [ "$(main_pid)" != "$pid" ] || fail "alarmd stopped with SIGSTOP was not restarted within 120 s"
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -q "alarmd.service: Watchdog timeout" "$D/journal.txt" || fail "no 'Watchdog timeout' for alarmd in the journal"
    sleep 0.5
    wait_state ringing 20 || fail "not ringing after the watchdog's restart"
    sleep 4
    run_alarm member stop stop
    expect_rc stop 0
    sleep 1
    rec_stop
}

# 8. The sound card disappears before a ring: failure and fallback in the journal and history;
# the card comes back: the next alarm rings.
sc_card() {
    # As a Pi owner who chose the card in the config (docs/raspberry-pi.md).
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    echo 'device = plughw:CARD=Loopback,DEV=0' >> /etc/alarm/alarm.conf
    systemctl reload alarmd
    local due
    due=$(due_in 10)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id nocard
    expect_rc add 0
    ev unplug-cmd
    unplug || fail "modprobe -r snd-aloop failed: $(cat "$D/modprobe.err")"
    ev unplug-done
    [ -e /proc/asound/Loopback ] && fail "the Loopback card is still there"
    sleep_until "$((due + 8))"
    cp /run/alarm/status.json "$D/status.json"
    run_alarm member stop stop
    history_of nocard > "$D/history.jsonl"
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -q 'plughw:CARD=Loopback,DEV=0' "$D/journal.txt" || fail "the journal does not name the configured device's failure"
    grep -q "ALSA device 'default'" "$D/journal.txt" || fail "the journal does not show the fallback to the device 'default'"
    grep -q 'playback failed' "$D/journal.txt" || fail "the journal does not say that playback failed"
    grep -q '"outcome" *: *"failed"' "$D/history.jsonl" || fail "the history does not record the failed ring: $(cat "$D/history.jsonl")"
    ev plug-cmd
    modprobe snd-aloop || fail "modprobe snd-aloop failed"
    udevadm settle
    ev plug-done
    rec_start
    due=$(due_in 6)
    ev due2 "$due"
    run_alarm member add2 add "$(hms "$due")" --id card-back
    expect_rc add2 0
    wait_state ringing 20 || fail "the next alarm did not ring after the card came back"
    sleep 2
    run_alarm member stop2 stop
    expect_rc stop2 0
    sleep 1
    rec_stop
    history_of card-back > "$D/history2.jsonl"
    grep -q '"outcome" *: *"stopped"' "$D/history2.jsonl" || fail "the history does not record the ring after the card came back"
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    systemctl reload alarmd
    run_alarm member remove remove nocard card-back
}

# 9. /var/lib/alarm full, then the root file system read-only: it still rings; what could not be
# saved is logged.
sc_full() {
    rec_start
    local due
    due=$(due_in 12)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id full
    expect_rc add 0
    # Fill the file system as an ordinary user: root's reserved blocks keep the journal going,
    # the alarm user gets ENOSPC.
    local avail
    avail=$(df --output=avail -B1 /var/lib/alarm | tail -1)
    runuser -u nobody -- fallocate -l "$avail" /var/tmp/fill 2> /dev/null || runuser -u nobody -- sh -c 'cat /dev/zero > /var/tmp/fill' 2> /dev/null
    ev filled "$(df --output=avail -B1 /var/lib/alarm | tail -1)"
    runuser -u alarm -- sh -c 'echo x > /var/lib/alarm/.probe' 2> /dev/null && fail "the alarm user can still write /var/lib/alarm after filling the disk"
    wait_state ringing 25 || fail "it did not ring with /var/lib/alarm full"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -i 'alarmd' "$D/journal.txt" | grep -q 'No space left on device' || fail "the journal does not show what could not be saved (No space left on device)"
    rm -f /var/tmp/fill /var/lib/alarm/.probe
    ev emptied

    # A read-only root file system, as many Pis run (remounted here: the journal moves to /run).
    due=$(due_in 14)
    ev due-ro "$due"
    run_alarm member add-ro add "$(hms "$due")" --id readonly
    expect_rc add-ro 0
    journalctl --relinquish-var
    sync
    ev ro-cmd
    if ! mount -o remount,ro / 2> "$D/remount.err"; then
        notpossible "read-only root: mount -o remount,ro / failed here: $(cat "$D/remount.err") (open files: $(lsof / 2> /dev/null | awk '$4 ~ /w/' | head -3 | tr '\n' ' '))"
    else
        ev ro-done
        runuser -u alarm -- sh -c 'echo x > /var/lib/alarm/.probe' 2> /dev/null && fail "the root file system is still writable after remount,ro"
        wait_state ringing 25 || fail "it did not ring with the root file system read-only"
        sleep 2
        run_alarm member stop-ro stop
        expect_rc stop-ro 0
        journal_since "$(grep due-ro "$D/events" | cut -d' ' -f1)" > "$D/journal-ro.txt"
        grep -i 'alarmd' "$D/journal-ro.txt" | grep -q 'Read-only file system' || fail "the journal does not show what could not be saved (Read-only file system)"
        mount -o remount,rw / || fail "could not remount / read-write"
        ev rw-done
    fi
    journalctl --flush
    sleep 1
    rec_stop
    run_alarm member remove remove full readonly
}

# 10. apt-get remove, purge, reinstall; an upgrade from the previous commit's package keeps the
# alarms.
sc_upgrade() {
    local deb webdeb
    deb=$(cd "$H" && ls alarm_*.deb)
    webdeb=$(cd "$H" && ls alarm-web_*.deb)
    run_alarm member add-keep add '07:00' --id keep
    expect_rc add-keep 0
    DEBIAN_FRONTEND=noninteractive apt-get remove -y alarm > "$D/remove.out" 2>&1 || fail "apt-get remove alarm failed: $(tail -3 "$D/remove.out")"
    [ ! -e /usr/bin/alarm ] && [ ! -e /usr/bin/alarmd ] || fail "apt-get remove left /usr/bin/alarm or alarmd"
    [ ! -e /usr/bin/alarm-web ] || fail "apt-get remove alarm left alarm-web (it depends on alarm)"
    systemctl is-active -q alarmd && fail "alarmd still runs after apt-get remove"
    [ -f /var/lib/alarm/alarms.json ] || fail "apt-get remove deleted the alarms"
    getent passwd alarm > /dev/null || fail "apt-get remove deleted the user alarm"
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/reinstall.out" 2>&1 || fail "reinstall failed: $(tail -3 "$D/reinstall.out")"
    systemctl is-active -q alarmd || fail "alarmd is not active after the reinstall"
    member alarm list > "$D/list-reinstall.out" 2>&1
    grep -q keep "$D/list-reinstall.out" || fail "the reinstall lost the alarms: $(cat "$D/list-reinstall.out")"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y alarm > "$D/purge.out" 2>&1 || fail "apt-get purge alarm failed: $(tail -3 "$D/purge.out")"
    [ ! -e /var/lib/alarm ] || fail "apt-get purge left /var/lib/alarm"
    [ ! -e /etc/alarm ] || fail "apt-get purge left /etc/alarm"
    systemctl is-active -q alarmd && fail "alarmd still runs after apt-get purge"

    local prev
    prev=$(ls "$H"/previous/alarm_*.deb 2> /dev/null | head -1)
    if [ -z "$prev" ]; then
        notpossible "upgrade from the previous commit's package: $(cat "$H/previous-missing" 2> /dev/null || echo "no previous package")"
        (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/install.out" 2>&1 || fail "install after purge failed"
        return
    fi
    # The previous commit's packages: alarm alone (when it still shipped alarm-web), or both.
    (cd "$H/previous" && DEBIAN_FRONTEND=noninteractive apt-get install -y ./*.deb) > "$D/install-previous.out" 2>&1 ||
        fail "installing the previous package failed: $(tail -3 "$D/install-previous.out")"
    note "previous: $(dpkg-query -W -f='${Version}' alarm)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    run_alarm member add-old1 add 'Mon..Fri 06:30' --id weekday
    expect_rc add-old1 0
    run_alarm member add-old2 add '*-12-25 08:00 Europe/Berlin' --id christmas
    expect_rc add-old2 0
    alarm list --json > "$D/list-before.json"
    local pid
    pid=$(main_pid)
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/upgrade.out" 2>&1 || fail "the upgrade failed: $(tail -3 "$D/upgrade.out")"
    note "upgraded to: $(dpkg-query -W -f='${Version}' alarm) and alarm-web $(dpkg-query -W -f='${Version}' alarm-web)"
    [ "$(dpkg-query -W -f='${Version}' alarm-web)" = "$(dpkg-deb -f "$H/$webdeb" Version)" ] || fail "alarm-web not upgraded: $(dpkg-query -W -f='${Version}' alarm-web 2>&1)"
    [ -f /usr/bin/alarm-web ] && [ ! -L /usr/bin/alarm-web ] || fail "after the upgrade /usr/bin/alarm-web is not alarm-web's own binary"
    [ -f /usr/lib/systemd/system/alarm-web.service ] || fail "the upgrade lost alarm-web.service"
    [ -f /etc/alarm/web-token ] || fail "the upgrade lost the web token"
    [ "$(dpkg-query -W -f='${Version}' alarm)" = "$(dpkg-deb -f "$H/$deb" Version)" ] || fail "not upgraded: $(dpkg-query -W -f='${Version}' alarm)"
    systemctl is-active -q alarmd || fail "alarmd is not active after the upgrade"
    [ "$(main_pid)" != "$pid" ] || fail "the upgrade did not restart alarmd (still pid $pid)"
    alarm list --json > "$D/list-after.json"
    for id in weekday christmas; do grep -q "\"id\" *: *\"$id\"" "$D/list-after.json" || fail "the upgrade lost the alarm $id"; done
    cmp -s <(grep -v '"next"' "$D/list-before.json") <(grep -v '"next"' "$D/list-after.json") || note "alarm list --json changed across the upgrade (see list-before/after.json)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    run_alarm member ring ring
    expect_rc ring 0
    run_alarm member stop stop
    expect_rc stop 0
}

# 11. The card removed before a ring (issue #11): alarmd's pre-flight warns in status.json and
# `alarm status`, `alarm check` exits 2, and at the ring, with no device to play on, the configured
# fallback_command runs (as the user alarm, in the unit's sandbox) and is recorded in history.
sc_card-removed() {
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    rm -f /var/lib/alarm/fallback.env
    cat >> /etc/alarm/alarm.conf <<'CONF'
device = plughw:CARD=Loopback,DEV=0
preflight = 20s
fallback_command = env | grep '^ALARM_' > /var/lib/alarm/fallback.env
CONF
    systemctl reload alarmd
    sleep 1
    local due
    due=$(due_in 45)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id nocard2 --label "card removed"
    expect_rc add 0
    # With the card present it will ring: 0, or 1 for warnings (the guest's clock is not
    # synchronized; "member" is not in group audio, so it may not open the card itself).
    run_alarm member check-before check
    [ "$RC" -le 1 ] || fail "alarm check with the card present exited $RC, expected 0 or 1: $(cat "$D/check-before.out")"
    grep -q '^  fail ' "$D/check-before.out" && fail "alarm check with the card present reports a fail: $(grep '^  fail ' "$D/check-before.out")"
    ev unplug-cmd
    unplug || fail "modprobe -r snd-aloop failed: $(cat "$D/modprobe.err")"
    ev unplug-done
    [ -e /proc/asound/Loopback ] && fail "the Loopback card is still there"
    # The pre-flight runs from 20 s before the ring.
    local i warned=""
    for i in $(seq 400); do
        grep -q '"device: ' /run/alarm/status.json 2> /dev/null && { warned=1; break; }
        [ "${EPOCHREALTIME%.*}" -ge "$due" ] && break
        sleep 0.1
    done
    ev warned
    cp /run/alarm/status.json "$D/status-preflight.json"
    [ -n "$warned" ] || fail "no pre-flight warning about the device in status.json before the ring: $(tr -d '\n' < /run/alarm/status.json | cut -c1-400)"
    [ "${EPOCHREALTIME%.*}" -lt "$due" ] || fail "the pre-flight warning came only at or after the ring"
    run_alarm member status status
    expect_rc status 0
    grep -q '^warning: device: ' "$D/status.out" || fail "alarm status does not show the pre-flight warning: $(cat "$D/status.out")"
    run_alarm member check check
    expect_rc check 2
    run_alarm member check-json check --json
    grep -q '"verdict" : "fail"' "$D/check-json.out" || fail "alarm check --json does not say fail: $(tr -d '\n' < "$D/check-json.out" | cut -c1-300)"
    run_alarm outsider check-outsider check
    expect_rc check-outsider 2
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal-preflight.txt"
    grep -q "pre-flight for 'nocard2'" "$D/journal-preflight.txt" || fail "the journal has no pre-flight warning for the alarm"
    # The ring: no device plays; the fallback command runs.
    sleep_until "$due"
    for i in $(seq 300); do [ -s /var/lib/alarm/fallback.env ] && break; sleep 0.1; done
    ev fallback-seen
    cp /var/lib/alarm/fallback.env "$D/fallback.env" 2> /dev/null
    [ -s "$D/fallback.env" ] || fail "fallback_command did not run within 30 s of the ring"
    grep -qx 'ALARM_ID=nocard2' "$D/fallback.env" || fail "fallback_command did not get ALARM_ID=nocard2: $(cat "$D/fallback.env" 2> /dev/null)"
    grep -qx 'ALARM_LABEL=card removed' "$D/fallback.env" || fail "fallback_command did not get ALARM_LABEL"
    grep -q '^ALARM_TIME=' "$D/fallback.env" && grep -q '^ALARM_REASON=.' "$D/fallback.env" || fail "fallback_command did not get ALARM_TIME and ALARM_REASON"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    history_of nocard2 > "$D/history.jsonl"
    grep -q '"outcome" *: *"failed"' "$D/history.jsonl" || fail "the history does not record the failed ring: $(cat "$D/history.jsonl")"
    grep -q '"fallback" *: *"[^"]*exited with status 0"' "$D/history.jsonl" || fail "the history does not record the fallback command's exit: $(cat "$D/history.jsonl")"
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -q 'running fallback_command' "$D/journal.txt" || fail "the journal does not say the fallback command ran"
    modprobe snd-aloop || fail "modprobe snd-aloop failed"
    udevadm settle
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    systemctl reload alarmd
    rm -f /var/lib/alarm/fallback.env
    run_alarm member remove remove nocard2
}

# ---- the volume floor and devices by name (issue #11) -----------------------------------------
# snd-dummy (card "Dummy") has mixer controls: its "Master Volume" (-50..100, two channels) is the
# simple control Master. It has no playback switch, so one is added as a user control, the way
# alsa-lib's softvol plugin adds its controls (resolution 2 makes a switch): Master can then be
# muted like a real card's.
DUMMY_CONF=/tmp/dummy-switch.conf
dummy_card() {
    # Debian 13's arm64 kernel is built without it (CONFIG_SND_DUMMY is not set); amd64's has it.
    if ! modinfo snd-dummy > /dev/null 2>&1; then
        notpossible "this kernel ($(uname -r)) has no snd-dummy module (CONFIG_SND_DUMMY is not set): no card with mixer controls to test on"
        return 1
    fi
    if [ ! -e /proc/asound/Dummy ]; then
        modprobe snd-dummy || { fail "modprobe snd-dummy failed"; return 1; }
        udevadm settle
    fi
    [ -e /proc/asound/Dummy ] || { fail "no card Dummy after modprobe snd-dummy: $(cat /proc/asound/cards)"; return 1; }
    if ! amixer -c Dummy cget name='Master Playback Switch' > /dev/null 2>&1; then
        echo 'pcm.dummyswitch { type softvol slave.pcm "hw:CARD=Dummy,DEV=0" control { name "Master Playback Switch" card Dummy } resolution 2 }' > "$DUMMY_CONF"
        ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:$DUMMY_CONF timeout 10 aplay -q -D dummyswitch -d 1 -f S16_LE -r 48000 -c 2 /dev/zero > "$D/softvol.out" 2>&1
        amixer -c Dummy cget name='Master Playback Switch' > /dev/null 2>&1 ||
            { fail "could not add a Master Playback Switch to the Dummy card: $(cat "$D/softvol.out")"; return 1; }
    fi
    amixer -c Dummy > "$D/amixer-dummy.txt" 2>&1
    cat /proc/asound/cards > "$D/cards.txt"
}
# mixer_values NAME: "v1,v2" of the Dummy card's control NAME (raw volume, or on/off).
mixer_values() { amixer -c Dummy cget name="$1" 2> /dev/null | sed -n 's/^ *: values=//p'; }
mixer_now() { echo "Master Volume $(mixer_values 'Master Volume'), Master Playback Switch $(mixer_values 'Master Playback Switch')"; }
# Master at 50 % or more on every channel (raw >= 25 of -50..100) and on.
mixer_raised() {
    awk -v v="$(mixer_values 'Master Volume')" -v s="$(mixer_values 'Master Playback Switch')" \
        'BEGIN { n = split(v, a, ","); if (n < 1) exit 1; for (i = 1; i <= n; i++) if (a[i] + 0 < 25) exit 1; exit (s ~ /off/ || s == "") }'
}
# Master as amixer's "5% mute" left it: raw -42 (8 of 150) and off on both channels.
mixer_low() { [ "$(mixer_values 'Master Volume')/$(mixer_values 'Master Playback Switch')" = "-42,-42/off,off" ]; }
journal_has() { journal_since "$(cat "$D/t0")" | grep -qF "$1"; }
wait_for() { # wait_for SECONDS COMMAND...
    local until=$((${EPOCHREALTIME%.*} + $1))
    shift
    while [ "${EPOCHREALTIME%.*}" -lt "$until" ]; do "$@" && return 0; sleep 0.1; done
    "$@"
}
use_dummy() {
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    # As the README recommends: the card by name, not number (snd-dummy came after snd-aloop).
    echo 'device = plughw:CARD=Dummy,DEV=0' >> /etc/alarm/alarm.conf
    systemctl reload alarmd
    sleep 1
    amixer -q -c Dummy sset Master 5% mute || fail "amixer -c Dummy sset Master 5% mute failed"
    mixer_low || fail "amixer did not leave Master at 5 % and muted: $(mixer_now)"
    note "before the ring: $(mixer_now)"
}
dummy_done() {
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    systemctl reload alarmd
    sleep 1
    modprobe -r snd-dummy || note "modprobe -r snd-dummy failed (still in use?)"
}
RAISED="mixer 'Master' raised from 5 %, muted, to 50 %"

# 11. The volume floor: Master of the card alarmd rings on, muted and at 5 %, is unmuted and at
# 50 % while it rings, and back at 5 % and muted after alarm stop; history says what was done.
sc_mixer-floor() {
    dummy_card || return
    use_dummy
    run_alarm member ring ring
    expect_rc ring 0
    wait_state ringing 20 || fail "not ringing 20 s after alarm ring"
    wait_for 15 mixer_raised || fail "Master was not raised to 50 % and unmuted while ringing: $(mixer_now)"
    ev raised
    note "while ringing: $(mixer_now)"
    [ -s /var/lib/alarm/mixer.json ] && cp /var/lib/alarm/mixer.json "$D/" || fail "no /var/lib/alarm/mixer.json while the floor holds the mixer up"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    wait_for 10 mixer_low || fail "Master is not back at 5 % and muted after alarm stop: $(mixer_now)"
    note "after the stop: $(mixer_now)"
    [ -e /var/lib/alarm/mixer.json ] && fail "/var/lib/alarm/mixer.json stays after the mixer was put back"
    tail -1 /var/lib/alarm/history.jsonl > "$D/history.jsonl"
    grep -qF "\"mixer\":\"$RAISED\"" "$D/history.jsonl" || fail "the history does not say \"$RAISED\": $(cat "$D/history.jsonl")"
    run_alarm member history history --last 1
    grep -qF "$RAISED" "$D/history.out" || fail "alarm history does not show \"$RAISED\""
    journal_since "$(cat "$D/t0")" > "$D/journal.txt"
    grep -qF "mixer 'Master' put back to 5 %, muted on hw:CARD=Dummy" "$D/journal.txt" || fail "the journal does not say the mixer was put back"
    dummy_done
}

# 12. kill -9 while the floor holds Master up: systemd restarts alarmd, which puts the mixer back
# (mixer.json) before the resumed ring raises it again; after alarm stop it is at 5 % and muted.
sc_mixer-crash() {
    dummy_card || return
    use_dummy
    run_alarm member ring ring
    expect_rc ring 0
    wait_state ringing 20 || fail "not ringing 20 s after alarm ring"
    wait_for 15 mixer_raised || fail "Master was not raised to 50 % and unmuted while ringing: $(mixer_now)"
    [ -s /var/lib/alarm/mixer.json ] && cp /var/lib/alarm/mixer.json "$D/" || fail "no /var/lib/alarm/mixer.json while the floor holds the mixer up"
    local pid n0 i
    pid=$(main_pid) n0=$(restarts)
    ev kill-cmd "$pid"
    kill -9 "$pid"
    for i in $(seq 300); do [ "$(main_pid)" != "$pid" ] && [ "$(main_pid)" != 0 ] && break; sleep 0.1; done
    ev restarted "$(main_pid)"
    [ "$(restarts)" -gt "$n0" ] || fail "NRestarts did not grow after kill -9 ($n0 -> $(restarts))"
    local want="mixer 'Master' put back to 5 %, muted on hw:CARD=Dummy after a crash"
    wait_for 20 journal_has "$want" || fail "the restarted alarmd did not say: $want"
    wait_for 20 mixer_raised || fail "the resumed ring did not raise Master again: $(mixer_now)"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    wait_for 10 mixer_low || fail "Master is not back at 5 % and muted after the stop that followed the crash: $(mixer_now)"
    note "after the stop: $(mixer_now)"
    [ -e /var/lib/alarm/mixer.json ] && fail "/var/lib/alarm/mixer.json stays after the mixer was put back"
    tail -1 /var/lib/alarm/history.jsonl > "$D/history.jsonl"
    grep -qF "\"mixer\":\"$RAISED\"" "$D/history.jsonl" || fail "the history does not say \"$RAISED\" (once): $(cat "$D/history.jsonl")"
    journal_since "$(cat "$D/t0")" > "$D/journal.txt"
    dummy_done
}

# 13. alarm devices with two cards: both listed by id, PCMs by card name, the configured device
# in use, opening, and its mixer.
sc_devices() {
    dummy_card || return
    # The member is not in group audio (the user alarm is): the cards are there but closed to them.
    run_alarm member devices-member devices --json
    expect_rc devices-member 0
    grep -q '"/dev/snd/controlC1"' "$D/devices-member.out" || fail "alarm devices --json as a user outside group audio does not name /dev/snd/controlC1 as inaccessible"
    run_alarm root devices-json devices --json --device plughw:CARD=Dummy,DEV=0
    expect_rc devices-json 0
    local f="$D/devices-json.out"
    grep -q '"id" : "Loopback"' "$f" || fail "alarm devices --json does not list the card Loopback"
    grep -q '"id" : "Dummy"' "$f" || fail "alarm devices --json does not list the card Dummy"
    grep -q '"name" : "plughw:CARD=Dummy,DEV=0"' "$f" || fail "alarm devices --json does not list the PCM plughw:CARD=Dummy,DEV=0"
    grep -q '"card_id" : "Dummy"' "$f" || fail "no PCM of the Dummy card has card_id Dummy"
    grep -q '"current" : "plughw:CARD=Dummy,DEV=0"' "$f" || fail "the device in use is not the one given: $(grep current "$f")"
    grep -q '"control" : "Master"' "$f" && grep -q '"device" : "hw:CARD=Dummy"' "$f" || fail "the mixer of the device in use is not Master on hw:CARD=Dummy"
    run_alarm root devices devices
    expect_rc devices 0
    grep -q '^device alarm uses now: ' "$D/devices.out" || fail "alarm devices does not say which device alarm uses"
    grep -Eq '^[0-9]+ +Dummy ' "$D/devices.out" || fail "alarm devices does not list the card Dummy in its table"
    modprobe -r snd-dummy || note "modprobe -r snd-dummy failed (still in use?)"
}

# ---- events out (issue #13) -------------------------------------------------------------------
# alarm-hooks.service runs a hook in /etc/alarm/hooks.d at a ring, with the event on stdin and
# ALARM_* in its environment, and the hook may use the network (it reaches a TCP listener in the
# guest's own network namespace); `alarm watch --json` as a member follows the same events; and
# alarmd still has no network: PrivateNetwork=yes, a namespace of its own with only lo, from which
# the listener cannot be reached. The host checks the ring started in its second.
HOOK_PORT=8765
sc_hooks() {
    python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "ab") as f: f.write(c.recv(4096))
    c.close()
' "$HOOK_PORT" "$D/listener.txt" &
    local listener=$!
    mkdir -p /etc/alarm/hooks.d
    cat > /etc/alarm/hooks.d/50-record <<HOOK
#!/bin/bash
# The system test's hook: what it got, and whether it has the network.
out=/var/lib/alarm-hooks/record
{ cat; env | grep '^ALARM_' | sort; echo ---; } >> "\$out"
echo "\$ALARM_EVENT \$ALARM_ID" > /dev/tcp/127.0.0.1/$HOOK_PORT || echo "NO NETWORK for \$ALARM_EVENT" >> "\$out"
HOOK
    chmod 755 /etc/alarm/hooks.d/50-record
    systemctl enable --now alarm-hooks > "$D/enable.out" 2>&1 || fail "systemctl enable --now alarm-hooks failed: $(cat "$D/enable.out")"
    [ "$(systemctl show -p ActiveState --value alarm-hooks)" = active ] || fail "alarm-hooks is not active: $(systemctl status --no-pager alarm-hooks 2>&1 | tail -5)"
    systemd-analyze security --no-pager alarm-hooks > "$D/security.txt" 2>&1
    note "systemd-analyze security alarm-hooks (live): $(sed -n 's/.*Overall exposure level for alarm-hooks.service: \([0-9.]*\).*/\1/p' "$D/security.txt")"
    runuser -u member -- timeout 60 alarm watch --json > "$D/watch.json" 2> "$D/watch.err" &
    local watcher=$!
    sleep 1
    rec_start
    local due
    due=$(due_in 6)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id hooked --label "Hook test"
    expect_rc add 0
    wait_state ringing 20 || fail "not ringing 15 s after the alarm was due"
    local i
    for i in $(seq 150); do grep -q '"event":"ringing"' /var/lib/alarm-hooks/record 2> /dev/null && break; sleep 0.1; done
    ev hook-seen
    sleep 1.5
    run_alarm member stop stop
    expect_rc stop 0
    for i in $(seq 150); do grep -q '"event":"stopped"' /var/lib/alarm-hooks/record 2> /dev/null && break; sleep 0.1; done
    sleep 1
    rec_stop
    cp /var/lib/alarm-hooks/record "$D/record.txt" 2> /dev/null
    [ -s "$D/record.txt" ] || fail "the hook did not run (no /var/lib/alarm-hooks/record)"
    grep -q '"event":"ringing"' "$D/record.txt" && grep -q '"alarm":"hooked"' "$D/record.txt" || fail "the hook got no ringing event of 'hooked' on stdin: $(head -c 400 "$D/record.txt")"
    grep -q '"event":"stopped"' "$D/record.txt" || fail "the hook got no stopped event"
    for want in ALARM_EVENT=ringing ALARM_ID=hooked 'ALARM_LABEL=Hook test'; do
        grep -qx "$want" "$D/record.txt" || fail "the hook's environment lacks $want"
    done
    grep -q '^ALARM_SCHEDULED=20' "$D/record.txt" || fail "the hook's environment lacks ALARM_SCHEDULED"
    grep -q 'NO NETWORK' "$D/record.txt" && fail "the hook could not reach 127.0.0.1:$HOOK_PORT: $(grep 'NO NETWORK' "$D/record.txt" | head -1)"
    grep -q '^ringing hooked' "$D/listener.txt" 2> /dev/null || fail "the listener got nothing from the hook: $(cat "$D/listener.txt" 2> /dev/null)"
    kill "$watcher" 2> /dev/null; wait "$watcher" 2> /dev/null
    grep -q '"event":"ringing"' "$D/watch.json" && grep -q '"event":"stopped"' "$D/watch.json" ||
        fail "alarm watch --json as a member did not show ringing and stopped: $(head -c 300 "$D/watch.json") $(cat "$D/watch.err")"
    # alarmd: still no network.
    [ "$(systemctl show -p PrivateNetwork --value alarmd)" = yes ] || fail "alarmd's unit lost PrivateNetwork=yes"
    local pid hpid
    pid=$(main_pid)
    hpid=$(systemctl show -p MainPID --value alarm-hooks)
    note "network namespaces: PID 1 $(readlink /proc/1/ns/net), alarmd $(readlink /proc/"$pid"/ns/net), alarm-hooks $(readlink /proc/"$hpid"/ns/net)"
    [ "$(readlink /proc/"$pid"/ns/net)" != "$(readlink /proc/1/ns/net)" ] || fail "alarmd shares the system's network namespace"
    [ "$(readlink /proc/"$hpid"/ns/net)" = "$(readlink /proc/1/ns/net)" ] || fail "alarm-hooks has no network (a namespace of its own)"
    local ifaces
    ifaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/"$pid"/net/dev | paste -sd' ')
    note "alarmd's network interfaces: $ifaces"
    [ "$ifaces" = lo ] || fail "alarmd's namespace has interfaces other than lo: $ifaces"
    if nsenter -t "$pid" -n bash -c "echo probe > /dev/tcp/127.0.0.1/$HOOK_PORT" 2> "$D/nsenter.err"; then
        fail "from alarmd's network namespace the listener on 127.0.0.1:$HOOK_PORT is reachable"
    fi
    grep -q '^probe' "$D/listener.txt" && fail "the listener got a connection from alarmd's namespace"
    journal_since "$(cat "$D/t0")" > "$D/journal.txt"
    grep -q "hook /etc/alarm/hooks.d/50-record for ringing of 'hooked' (seq [0-9]*) done" "$D/journal.txt" || fail "the journal does not say the hook ran for the ring"
    systemctl disable --now alarm-hooks > /dev/null 2>&1
    rm -f /etc/alarm/hooks.d/50-record
    kill "$listener" 2> /dev/null
    run_alarm member remove remove hooked
}

# 15. alarm-web: the token made at install (0640 root:alarm), the unit off until enabled; enabled
# with web_listen = 0.0.0.0:8475 it answers on this machine, and the host (scripts/system-test,
# web_host.py) reaches it through qemu's forwarded port: 401 without the token or with a wrong
# one, 200 with it, and an alarm it adds is in `alarm list`. The token is in no journal line.
web_get() { # web_get PATH [TOKEN]: "STATUS BODY" of a GET to 127.0.0.1:8475 from the guest (bash's /dev/tcp)
    local auth="" reply
    [ -z "${2:-}" ] || auth="Authorization: Bearer $2"$'\r\n'
    exec 3<> /dev/tcp/127.0.0.1/8475 || { echo "0 cannot connect"; return; }
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n' "$1" "$auth" >&3
    reply=$(timeout 20 cat <&3 | tr -d '\r')
    exec 3<&-
    echo "$(sed -n '1s/^HTTP\/1\.1 \([0-9]*\).*/\1/p' <<< "$reply") $(sed '1,/^$/d' <<< "$reply" | tr '\n' ' ')"
}
sc_web() {
    local token=/etc/alarm/web-token
    [ "$(stat -c '%a %U %G' "$token" 2>&1)" = "640 root alarm" ] || fail "$token is $(stat -c '%a %U:%G' "$token" 2>&1), expected 640 root:alarm"
    grep -Eqx '[A-Za-z0-9_-]{43}' "$token" || fail "$token does not hold a 43-character token"
    [ "$(systemctl is-enabled alarm-web 2>&1)" = disabled ] || fail "alarm-web.service is not disabled after install: $(systemctl is-enabled alarm-web 2>&1)"
    systemctl is-active --quiet alarm-web && fail "alarm-web runs after install"
    run_alarm member member-token web-token
    expect_rc member-token 0
    [ "$(cat "$D/member-token.out")" = "$(cat "$token")" ] || fail "alarm web-token as a member does not print the token"
    run_alarm outsider outsider-token web-token
    [ "$RC" -ne 0 ] || fail "alarm web-token printed the token to a user outside the group"
    # qemu's user network: its forwarded port reaches 10.0.2.15:8475.
    mkdir -p /etc/systemd/network
    printf '[Match]\nName=eth0\n\n[Network]\nAddress=10.0.2.15/24\n' > /etc/systemd/network/10-system-test.network
    systemctl start systemd-networkd || fail "systemd-networkd did not start"
    local i
    for i in $(seq 100); do [ "$(cat /sys/class/net/eth0/operstate 2> /dev/null)" = up ] && break; sleep 0.2; done
    note "eth0: $(cat /sys/class/net/eth0/operstate 2>&1)"
    echo "web_listen = 0.0.0.0:8475" >> /etc/alarm/alarm.conf
    ev enable-cmd
    systemctl enable --now alarm-web > "$D/enable.out" 2>&1 || fail "systemctl enable --now alarm-web failed: $(cat "$D/enable.out"; journalctl -u alarm-web --no-pager | tail -5)"
    ev enable-done
    [ "$(systemctl show -p ActiveState --value alarm-web)/$(systemctl show -p SubState --value alarm-web)" = active/running ] ||
        fail "alarm-web is not active/running: $(systemctl show -p ActiveState -p SubState alarm-web | tr '\n' ' ')"
    systemd-analyze security --no-pager alarm-web > "$D/security.txt" 2>&1
    local score
    score=$(sed -n 's/.*Overall exposure level for alarm-web.service: \([0-9.]*\).*/\1/p' "$D/security.txt")
    if [ -z "$score" ]; then fail "systemd-analyze security alarm-web gave no rating"; else
        note "systemd-analyze security alarm-web (live): $score"
        awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' || fail "systemd-analyze security alarm-web rates $score, above 2.5"
    fi
    run_alarm member web-url web-url
    grep -q '^http://10.0.2.15:8475/$' "$D/web-url.out" || fail "alarm web-url does not name http://10.0.2.15:8475/: $(cat "$D/web-url.out")"
    # On the guest itself.
    local got
    got=$(web_get /api/status)
    [ "${got%% *}" = 401 ] || fail "GET /api/status without the token on the guest: ${got:0:200}"
    got=$(web_get /api/status "$(cat "$token")")
    [ "${got%% *}" = 200 ] && grep -q '"running" : true' <<< "$got" || fail "GET /api/status with the token on the guest: ${got:0:300}"
    # From the host, through the forwarded port.
    cp "$token" "$D/web-ready.tmp" && mv "$D/web-ready.tmp" "$D/web-ready"
    ev host-wait
    for i in $(seq 600); do [ -f "$D/host-results.txt" ] && break; sleep 0.2; done
    ev host-done
    if [ ! -f "$D/host-results.txt" ]; then
        fail "the host did not reach alarm-web through the forwarded port within 120 s"
    else
        # One line per request: NAME STATUS BODY (web_host.py).
        local name status text
        while read -r name status text; do
            case "$name" in
            page) want=200 body=signin-form ;;
            no_token) want=401 body='"error"' ;;
            wrong_token) want=401 body="wrong token" ;;
            status) want=200 body='"running" : true' ;;
            add) want=201 body="Mon..Fri *-*-* 06:30:00" ;;
            alarms) want=200 body=from-host ;;
            *) continue ;;
            esac
            echo "$name $status" >> "$D/host-check.out"
            [ "$status" = "$want" ] && grep -qF -- "$body" <<< "$text" || fail "from the host: $name answered $status ${text:0:200} (wanted $want with $body)"
        done < "$D/host-results.txt"
        [ "$(wc -l < "$D/host-check.out")" -eq 6 ] || fail "from the host: not every request was answered: $(cat "$D/host-results.txt")"
        note "from the host: $(tr '\n' ',' < "$D/host-check.out" 2> /dev/null)"
    fi
    run_alarm member list list --json
    grep -q '"id" : "from-host"' "$D/list.out" || fail "the alarm the host added through alarm-web is not in alarm list --json"
    journalctl --no-pager -u alarm-web > "$D/web-journal.txt" 2>&1
    grep -q "listening on" "$D/web-journal.txt" || fail "alarm-web's journal does not say where it listens"
    grep -qF "$(cat "$token")" "$D/web-journal.txt" && fail "the token is in alarm-web's journal"
    journal_since "$(cat "$D/t0")" | grep -qF "$(cat "$token")" && fail "the token is in the journal"
    run_alarm member remove remove from-host
    systemctl disable --now alarm-web > /dev/null 2>&1
    sed -i '/^web_listen = 0.0.0.0:8475$/d' /etc/alarm/alarm.conf
}

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

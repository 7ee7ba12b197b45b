# The system test's helpers inside the guest, sourced by guest.sh before the scenarios
# (scenarios/NAME.sh). A scenario runs with D=/mnt/host/out/NAME, its own directory: ev, fail,
# notpossible and note write there (events, failures, notpossible, notes), and guest.sh turns
# failures and notpossible into its result.

# ---- for every scenario -----------------------------------------------------------------------
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
# kill9_restart: kill -9 of alarmd (events kill-cmd PID, restarted PID), then until systemd has
# started a new one (up to 30 s); fails unless NRestarts grew.
kill9_restart() {
    local pid n0 i
    pid=$(main_pid) n0=$(restarts)
    ev kill-cmd "$pid"
    kill -9 "$pid"
    for i in $(seq 300); do [ "$(main_pid)" != "$pid" ] && [ "$(main_pid)" != 0 ] && break; sleep 0.1; done
    ev restarted "$(main_pid)"
    [ "$(restarts)" -gt "$n0" ] || fail "NRestarts did not grow after kill -9 ($n0 -> $(restarts))"
}

# ---- the Dummy card: the volume floor, devices by name (issue #11; mixer-*, devices) ----------
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
# ring_with_floor: `alarm ring` as a member on the Dummy card (use_dummy first), until it rings and
# the floor has raised Master; keeps mixer.json, which must exist meanwhile.
ring_with_floor() {
    run_alarm member ring ring
    expect_rc ring 0
    wait_state ringing 20 || fail "not ringing 20 s after alarm ring"
    wait_for 15 mixer_raised || fail "Master was not raised to 50 % and unmuted while ringing: $(mixer_now)"
    [ -s /var/lib/alarm/mixer.json ] && cp /var/lib/alarm/mixer.json "$D/" || fail "no /var/lib/alarm/mixer.json while the floor holds the mixer up"
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
# shellcheck disable=SC2034 # (scenarios/mixer-floor.sh and mixer-crash.sh)
RAISED="mixer 'Master' raised from 5 %, muted, to 50 %"

# ---- the apt repository the host serves (issue #32; scenarios apt, guide) ---------------------
# scripts/system-test gives a guest whose plan has apt or guide qemu's user network and serves the
# releases from this machine's loopback (system-test/apt_host.py): the guest reaches it as
# 10.0.2.2:PORT (PORT in $H/apt-port). $H/apt-release-1 and -2 hold the versions of alarm in the
# first release and in the second, published on request; $O/apt-host is the server's directory.
apt_url() { echo "http://10.0.2.2:$(cat "$H/apt-port")"; }
# user_net: eth0 at 10.0.2.15/24 on qemu's user network, with no gateway: the guest reaches the
# host's forwarded services (10.0.2.2) and nothing beyond.
user_net() {
    [ -f /etc/systemd/network/10-system-test.network ] && [ "$(cat /sys/class/net/eth0/operstate 2> /dev/null)" = up ] && return 0
    mkdir -p /etc/systemd/network
    printf '[Match]\nName=eth0\n\n[Network]\nAddress=10.0.2.15/24\n' > /etc/systemd/network/10-system-test.network
    systemctl restart systemd-networkd || { fail "systemd-networkd did not start"; return 1; }
    local i
    for i in $(seq 100); do [ "$(cat /sys/class/net/eth0/operstate 2> /dev/null)" = up ] && break; sleep 0.2; done
    [ "$(cat /sys/class/net/eth0/operstate 2> /dev/null)" = up ] || { fail "eth0 did not come up on qemu's user network"; return 1; }
}
# apt_publish N: asks the host to publish release N into the served repository; waits for it.
apt_publish() {
    [ -f "$O/apt-host/published-$1" ] && return 0
    echo "$1" > "$O/apt-host/publish.tmp" && mv "$O/apt-host/publish.tmp" "$O/apt-host/publish"
    ev "publish-$1"
    local i
    for i in $(seq 300); do [ -f "$O/apt-host/published-$1" ] && { ev "published-$1"; return 0; }; sleep 0.2; done
    fail "the host did not publish release $1 within 60 s"
    return 1
}
# apt_sources_aside: the image's Debian sources name a mirror this guest cannot reach (its
# packages were preinstalled): set aside while apt reads the host's repository, so that `apt
# update` reads that alone; apt_sources_back puts them back.
apt_sources_aside() {
    mkdir -p /root/apt-sources-aside
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*; do
        [ -f "$f" ] && [ "${f##*/}" != alarm.sources ] && mv "$f" /root/apt-sources-aside/
    done
    return 0
}
apt_sources_back() {
    local f
    for f in /root/apt-sources-aside/*; do
        [ -f "$f" ] || continue
        if [ "${f##*/}" = sources.list ]; then mv "$f" /etc/apt/; else mv "$f" /etc/apt/sources.list.d/; fi
    done
    return 0
}
# rtc_ahead: how many seconds the RTC is ahead of the clock (negative: behind); fails when there
# is no RTC to read. The driver sets the clock from the RTC at its start when they differ by more
# than 5 s (system-test/guest.sh).
rtc_ahead() {
    command -v hwclock > /dev/null && [ -e /dev/rtc0 ] || return 1
    local rtc
    rtc=$(date -d "$(hwclock -r 2> /dev/null)" +%s 2> /dev/null) || return 1
    echo $((rtc - ${EPOCHREALTIME%.*}))
}

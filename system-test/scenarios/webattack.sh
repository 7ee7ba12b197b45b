# Issue #31: the alarm rings on time while alarm-web, on this machine, is under attack from the
# machine itself (scripts/web-attack's mixed: slow readers from 8 addresses, idle keep-alive
# connections from 40 and silent ones from 200, 2,728 connections, opened in that order), started
# before the alarm is added and running past its stop. The ring is added and recorded at the card
# as ring.sh does it (analyse.py judges its start and its stop with ring's windows). alarm-web is
# fenced off: a MemoryMax its MemoryCurrent never reaches (sampled every 0.5 s; between samples, no
# OOM kill in its journal or memory.events), a CPUWeight below alarmd's, alarmd's OOMScoreAdjust
# negative; alarm-web still runs, the same process, after it all. The owner's requests meanwhile
# (fresh connections from 127.0.0.2 with the token, every 0.5 s) are timed: their worst is in
# owner-worst and noted, not judged here (the tests on the host hold alarm-web to 1 s).
# memory_sample STOPFILE: "EPOCHREALTIME MemoryCurrent MemoryMax ACCEPTQUEUE" of alarm-web every
# 0.5 s into $D/memory.txt until STOPFILE exists; ACCEPTQUEUE: the connections waiting in the kernel
# for alarm-web to accept them (/proc/net/tcp's rx_queue of the listener on 127.0.0.1:8475, hex
# 0100007F:211B, state 0A). (web_get is web.sh's: guest.sh sources every scenario.)
memory_sample() {
    local cur max key value queue
    while [ ! -e "$1" ]; do
        cur="" max=""
        while IFS='=' read -r key value; do
            case "$key" in MemoryCurrent) cur=$value ;; MemoryMax) max=$value ;; esac
        done < <(systemctl show alarm-web -p MemoryCurrent -p MemoryMax 2>&1)
        # (Without their spaces: MemoryCurrent is "[not set]" while alarm-web is not running.)
        cur=${cur// /} max=${max// /}
        queue=$(awk '$2 == "0100007F:211B" && $4 == "0A" { split($5, q, ":"); print q[2]; exit }' /proc/net/tcp)
        echo "$EPOCHREALTIME ${cur:-unset} ${max:-unset} $((16#${queue:-0}))" >> "$D/memory.txt"
        sleep 0.5
    done
}
# listen_overflows: the kernel's count of handshakes dropped on a full accept queue.
listen_overflows() {
    awk '$1 == "TcpExt:" { if (!n) { for (i = 2; i <= NF; i++) if ($i == "ListenOverflows") n = i } else { print $n; exit } }' /proc/net/netstat
}
# cpu_weight UNIT: its CPUWeight, the default 100 when not set.
cpu_weight() {
    local w
    w=$(systemctl show -p CPUWeight --value "$1")
    [[ "$w" =~ ^[0-9]+$ ]] && [ "$w" -le 10000 ] && echo "$w" || echo 100
}
sc_webattack() {
    # (On the emulated arm64 guest the attacker would starve the ring for its own reasons.)
    [ "$(uname -m)" = x86_64 ] || { notpossible "amd64 guest only (this one is $(uname -m))"; return; }
    local token=/etc/alarm/web-token got
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    echo "web_listen = 127.0.0.1:8475" >> /etc/alarm/alarm.conf
    systemctl enable --now alarm-web > "$D/enable.out" 2>&1 || fail "systemctl enable --now alarm-web failed: $(cat "$D/enable.out")"
    for _ in $(seq 100); do
        got=$(web_get /api/status "$(cat "$token")")
        [ "${got%% *}" = 200 ] && break
        sleep 0.2
    done
    [ "${got%% *}" = 200 ] || fail "alarm-web does not answer GET /api/status with the token: ${got:0:200}"
    # The fence, as systemd applies it.
    systemctl show alarm-web alarmd -p Id -p MemoryMax -p MemoryHigh -p TasksMax -p CPUWeight -p OOMScoreAdjust > "$D/units.txt" 2>&1
    local oom web_weight alarmd_weight
    oom=$(systemctl show -p OOMScoreAdjust --value alarmd)
    [[ "$oom" =~ ^-[0-9]+$ ]] || fail "alarmd's OOMScoreAdjust is '$oom', not negative: the kernel may pick it first when memory runs out"
    web_weight=$(cpu_weight alarm-web) alarmd_weight=$(cpu_weight alarmd)
    [ "$web_weight" -lt "$alarmd_weight" ] || fail "alarm-web's CPUWeight $web_weight is not below alarmd's $alarmd_weight"
    note "fence: alarm-web MemoryMax $(systemctl show -p MemoryMax --value alarm-web), CPUWeight $web_weight (alarmd's $alarmd_weight), alarmd OOMScoreAdjust $oom"
    local pid0 restarts0
    pid0=$(systemctl show -p MainPID --value alarm-web) restarts0=$(systemctl show -p NRestarts --value alarm-web)

    rec_start
    local overflows0
    overflows0=$(listen_overflows)
    memory_sample "$D/memory.stop" &
    local sampler=$!
    # 25 s: 8 s to build up, the ring 5-6 s after the add, stopped 2.5 s into it, 8 s past the stop.
    ev attack-start
    # In a scope of its own below alarm-web's CPUWeight (20) and alarmd's (100): a device on the
    # LAN spends its own CPU, not the Pi's. (Its description keeps the token, on its command line,
    # out of the journal's "Started" line.)
    systemd-run --scope --quiet --unit=web-attack --description="scripts/web-attack (system test)" -p CPUWeight=10 -- \
        python3 "$H/web-attack" --port 8475 mixed --seconds 25 --owner-token "$(cat "$token")" \
        > "$D/attack.json" 2> "$D/attack.err" &
    local attack=$!
    sleep 8
    local due
    due=$(due_in 5)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id attacked
    expect_rc add 0
    wait_state ringing 20 || fail "not ringing 15 s after the alarm was due, under attack"
    sleep 2.5
    TRACE=stop run_alarm member stop stop
    expect_rc stop 0
    grep -q stopped "$D/stop.out" || fail "alarm stop did not say stopped: $(cat "$D/stop.out")"
    sleep 1.5
    rec_stop
    [ "$(state)" = idle ] || fail "not idle after the stop: $(state)"
    wait "$attack"
    local rc=$?
    ev attack-done "$rc"
    touch "$D/memory.stop"
    wait "$sampler"
    [ "$rc" -eq 0 ] || fail "scripts/web-attack exited $rc: $(tail -3 "$D/attack.err")"
    grep -q '^{"attack": "mixed"' "$D/attack.json" || fail "scripts/web-attack printed no summary: $(tail -3 "$D/attack.err")"
    note "attack: $(cat "$D/attack.json")"
    local worst
    worst=$(sed -n 's/.*"worst_s": \([0-9.]*\).*/\1/p' "$D/attack.json")
    echo "${worst:-unknown}" > "$D/owner-worst"
    note "owner under attack: $(sed -n 's/.*"owner": {\([^}]*}\).*/\1/p' "$D/attack.json"); worst ${worst:-unknown} s"
    note "accept queue of alarm-web's listener: at most $(awk '{ if ($4 + 0 > m) m = $4 + 0 } END { print m + 0 }' "$D/memory.txt") connections waiting; handshakes dropped on a full queue (ListenOverflows): $(($(listen_overflows) - overflows0))"

    # Memory: a MemoryMax at every sample, never reached.
    local samples peak
    samples=$(wc -l < "$D/memory.txt")
    [ "$samples" -ge 10 ] || fail "only $samples samples of alarm-web's memory during the attack"
    awk '$3 == "infinity" || $3 !~ /^[0-9]+$/ { bad = $0 } END { exit bad != "" }' "$D/memory.txt" ||
        fail "alarm-web has no MemoryMax (sampled: $(awk '{ print $3 }' "$D/memory.txt" | sort -u | paste -sd, -))"
    awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $2 + 0 >= $3 + 0 { hit = 1 } END { exit hit }' "$D/memory.txt" ||
        fail "alarm-web's MemoryCurrent reached its MemoryMax during the attack: $(awk '$2 + 0 >= $3 + 0' "$D/memory.txt" | head -1)"
    peak=$(awk '$2 ~ /^[0-9]+$/ && $2 + 0 > p { p = $2 + 0 } END { printf "%.1f", p / 1048576 }' "$D/memory.txt")
    echo "$peak" > "$D/memory-peak-mib"
    note "alarm-web memory: peak ${peak} MiB of MemoryMax $(awk '{ m = $3 } END { print (m ~ /^[0-9]+$/ ? sprintf("%.0f MiB", m / 1048576) : m) }' "$D/memory.txt"), $samples samples"

    # Between two samples: the kernel's OOM killer at the cgroup's limit (systemd says so).
    journalctl --no-pager -u alarm-web --since "@$(cut -d. -f1 "$D/t0")" > "$D/web-journal.txt" 2>&1
    local cgroup
    cgroup=/sys/fs/cgroup$(systemctl show -p ControlGroup --value alarm-web)
    [ ! -f "$cgroup/memory.events" ] || cp "$cgroup/memory.events" "$D/memory.events"
    if grep -q -e "killed by the OOM killer" -e "result 'oom-kill'" "$D/web-journal.txt" ||
        awk '$1 == "oom_kill" && $2 > 0 { hit = 1 } END { exit !hit }' "$D/memory.events" 2> /dev/null; then
        fail "alarm-web reached its MemoryMax: the kernel's OOM killer killed it ($(grep -m1 -e 'OOM killer' -e oom-kill "$D/web-journal.txt" | cut -c1-200))"
    fi
    [ ! -f "$D/memory.events" ] || note "alarm-web's memory.events after the attack: $(paste -sd' ' "$D/memory.events")"
    # alarm-web ran through it all, the same process.
    systemctl is-active --quiet alarm-web || fail "alarm-web is not active after the attack: $(systemctl show -p ActiveState -p SubState -p Result alarm-web | tr '\n' ' ')"
    local pid1 restarts1
    pid1=$(systemctl show -p MainPID --value alarm-web) restarts1=$(systemctl show -p NRestarts --value alarm-web)
    if [ "$pid1" != "$pid0" ] || [ "$restarts1" != "$restarts0" ]; then
        fail "alarm-web was restarted during the attack (PID $pid0 -> $pid1, NRestarts $restarts0 -> $restarts1)"
    fi
    got=$(web_get /api/status "$(cat "$token")")
    [ "${got%% *}" = 200 ] || fail "alarm-web does not answer after the attack: ${got:0:200}"
    systemctl is-active --quiet alarmd || fail "alarmd is not active after the attack"
    journal_since "$(cat "$D/t0")" | grep -qF "$(cat "$token")" && fail "the token is in the journal"

    run_alarm member remove remove attacked
    systemctl disable --now alarm-web > /dev/null 2>&1
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
}

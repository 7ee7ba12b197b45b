# Events out (issue #13): alarm-hooks.service runs a hook in /etc/alarm/hooks.d at a ring, with
# the event on stdin and ALARM_* in its environment, and the hook may use the network (it reaches
# a TCP listener in the guest's own network namespace); `alarm watch --json` as a member follows
# the same events; and alarmd still has no network: PrivateNetwork=yes, a namespace of its own with
# only lo, from which the listener cannot be reached. The host checks the ring started in its second.
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

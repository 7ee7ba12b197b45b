# Power cut (issue #42): the guest loses power, not just alarmd. scripts/system-test boots this
# guest from a disk of its own (a copy of the image, not snapshot=on) and, when a round asks,
# SIGKILLs qemu at a random moment and boots the same disk again: the guest's page cache dies with
# qemu, what the guest fsynced was written through to the disk file (docs/system-test.md, "Power
# cut"). Each round, in a loop until the cut: `alarm add` (alarms due in 3 s, which ring and are
# snoozed or stopped, and alarms due in hours, which stay listed), each id written to the share
# (9p, no cache: on the host's disk before `echo` returns) only after `alarm add` exited 0.
# After the boot: alarms.json parses (or is empty and `alarm list` says the backup is used),
# history.jsonl is whole but for its last line, every recorded id is listed or in the history
# (these three judged on the host, system-test/power_cut_check.py: the guest has no json module),
# and the round's alarm due after the boot (added before the cut, due in PC_LATE=100 s) rings. Rounds: $H/power-cut-rounds (POWER_CUT_ROUNDS
# on the host, default 3). This scenario runs over several boots: $D/round-N/ holds round N.
PC_STATE=/var/lib/alarm
pc_rounds() { cat "$H/power-cut-rounds" 2> /dev/null || echo 3; }
# Rounds the host has cut so far (it writes cut-N.done after killing qemu).
pc_cuts() { local n=0; while [ -f "$D/cut-$((n + 1)).done" ]; do n=$((n + 1)); done; echo "$n"; }
# pc_alarm NAME ARGS...: `alarm ARGS` as the member, output to the round's NAME.out; status in RC.
pc_alarm() {
    local name=$1
    shift
    runuser -u member -- alarm "$@" > "$R/$name.out" 2>&1
    RC=$?
}
# pc_record ID: the host's record of an add that returned 0 (one write of a whole line, over 9p).
pc_record() { echo "$1" >> "$D/added-$ROUND"; }

# The loop until the host cuts the power; never returns unless the cut does not come.
pc_loop() {
    local i=0 start=${EPOCHREALTIME%.*} st flip=0
    pc_alarm late add --in "${PC_LATE:-100}s" --id "pc-$ROUND-late" --ring 30s --label "due after the boot"
    if [ "$RC" -eq 0 ]; then pc_record "pc-$ROUND-late"; else fail "round $ROUND: alarm add of the late alarm exited $RC: $(head -c 300 "$R/late.out")"; fi
    date +%s > "$R/late-added"
    ev "round-$ROUND-armed"
    echo "$EPOCHREALTIME" > "$D/cut-$ROUND.req"
    while [ $((${EPOCHREALTIME%.*} - start)) -lt 180 ]; do
        i=$((i + 1))
        if ((i % 2)); then
            pc_alarm add add --in 3s --id "pc-$ROUND-$i" --snooze 4s --ring 20s
        else
            pc_alarm add add --in 6h --id "pc-$ROUND-$i"
        fi
        if [ "$RC" -eq 0 ]; then pc_record "pc-$ROUND-$i"; else echo "pc-$ROUND-$i $RC $(head -c 200 "$R/add.out" | tr '\n' ' ')" >> "$R/add-failed"; fi
        st=$(state)
        if [ "$st" = ringing ]; then
            flip=$((1 - flip))
            if ((flip)); then pc_alarm snooze snooze; echo "snooze $RC" >> "$R/answers"; else pc_alarm stop stop; echo "stop $RC" >> "$R/answers"; fi
        fi
    done
    fail "round $ROUND: the host did not cut the power within 180 s of the request"
}

# The alarm alarmd rings or has snoozed now (status.json), "" when idle.
pc_current() { sed -n 's/.*"alarm" *: *"\([^"]*\)".*/\1/p' /run/alarm/status.json 2> /dev/null; }

# After the boot that followed round $ROUND's cut: the files as the boot found them, and what
# alarmd and `alarm list` say, into the round's directory. The guest has no Python json module
# (python3-minimal): the host judges the store, the history and the recorded adds from these
# (system-test/power_cut_check.py, called by analyse.py); the ring is judged here.
pc_check() {
    local f st cur until due booted_at rang=""
    ev "round-$ROUND-booted"
    # As alarmd found them at the boot (it may have written since: a ring, a removal).
    for f in alarms.json alarms.json.bak history.jsonl state.json; do
        [ ! -e "$PC_STATE/$f" ] || cp "$PC_STATE/$f" "$R/$f.after-boot"
    done
    # An empty store: alarm list must say that it uses the backup.
    [ -s "$PC_STATE/alarms.json" ] || pc_alarm list-empty list
    # The rings under way at the cut ring on after the boot (and catch-up rings what came due
    # while the power was off): stopped, but not the late alarm, whose ring is judged below.
    until=$((${EPOCHREALTIME%.*} + 90))
    while [ "${EPOCHREALTIME%.*}" -lt "$until" ]; do
        st=$(state) cur=$(pc_current)
        [ "$st" = idle ] && break
        [ "$cur" = "pc-$ROUND-late" ] && [ "$st" = ringing ] && break
        pc_alarm leftover stop
        echo "$cur $st $RC" >> "$R/leftovers"
        sleep 0.5
    done
    # The alarm added before the cut and due after the boot rings.
    due=$(($(cat "$R/late-added") + ${PC_LATE:-100}))
    until=$((due > ${EPOCHREALTIME%.*} ? due + 90 : ${EPOCHREALTIME%.*} + 90))
    while [ "${EPOCHREALTIME%.*}" -lt "$until" ]; do
        if history_of "pc-$ROUND-late" | grep -q '"started" *: *"'; then rang=history; break; fi
        if [ "$(state)" = ringing ] && [ "$(pc_current)" = "pc-$ROUND-late" ]; then rang=status; break; fi
        sleep 0.2
    done
    booted_at=$(($(date +%s) - $(cut -d. -f1 /proc/uptime)))
    echo "$due $booted_at ${rang:-no}" > "$R/late"
    if [ -n "$rang" ]; then
        ev "round-$ROUND-late-rang"
        note "round $ROUND: cut $(cut -d' ' -f1 "$D/cut-$ROUND.done") s after arming, $(grep -c . "$D/added-$ROUND") add(s) recorded; the late alarm (due $(hms "$due"), $([ "$due" -ge "$booted_at" ] && echo "after" || echo "before") the kernel's boot at $(hms "$booted_at")) rang ($rang)"
    else
        fail "round $ROUND: the alarm due at $(hms "$due") did not ring by $(hms "$until")"
    fi
    # A clean slate for the next round.
    for f in 1 2 3 4 5 6 7 8 9 10; do
        [ "$(state)" = idle ] && break
        pc_alarm end-stop stop
        sleep 0.5
    done
    # What the host checks the recorded adds against: the list, and the history now that every
    # ring has ended (an --in alarm leaves the list when it starts ringing, and enters the
    # history, with the occurrences that rang together with it, when the ring ends).
    alarm list --json > "$R/list.json" 2> "$R/list.err"
    cp "$PC_STATE/history.jsonl" "$R/history.jsonl.after-stop" 2> /dev/null
    history_of "pc-$ROUND-late" > "$R/late-history.jsonl"
    pc_alarm remove-all remove --all
    journalctl --no-pager -b -1 -o short-precise > "$R/journal-before-cut.txt" 2>&1
    touch "$R/checked"
}

sc_power-cut() {
    local cuts
    cuts=$(pc_cuts)
    ROUND=$cuts R=$D/round-$cuts
    if ((cuts > 0)) && [ ! -f "$R/checked" ]; then pc_check; fi
    if ((cuts >= $(pc_rounds))); then
        note "$cuts round(s) cut and booted again"
        return
    fi
    ROUND=$((cuts + 1)) R=$D/round-$((cuts + 1))
    mkdir -p "$R"
    pc_alarm stop-before stop
    pc_loop
}

# The clock set forward across a due alarm: it rings once, late. Set back across it: nothing
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

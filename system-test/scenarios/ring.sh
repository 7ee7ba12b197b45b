# A member adds an alarm 5 s ahead: it starts at its second; snooze 5s; rings again 5 s
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

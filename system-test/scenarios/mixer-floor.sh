# The volume floor: Master of the card alarmd rings on, muted and at 5 %, is unmuted and at
# 50 % while it rings, and back at 5 % and muted after alarm stop; history says what was done.
sc_mixer-floor() {
    dummy_card || return
    use_dummy
    ring_with_floor
    ev raised
    note "while ringing: $(mixer_now)"
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

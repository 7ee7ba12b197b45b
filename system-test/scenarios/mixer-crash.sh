# kill -9 while the floor holds Master up: systemd restarts alarmd, which puts the mixer back
# (mixer.json) before the resumed ring raises it again; after alarm stop it is at 5 % and muted.
sc_mixer-crash() {
    dummy_card || return
    use_dummy
    ring_with_floor
    kill9_restart
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

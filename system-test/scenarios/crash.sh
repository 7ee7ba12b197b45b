# kill -9 while ringing: systemd restarts alarmd and it rings on. Frozen 2 s while ringing (an
# underrun on a device that always reports it: the kernel stops snd-aloop's stream once its
# 50 ms buffer ran dry; shorter than the player's 3 s stall limit, past which a call that has
# not returned counts as a hung device, tried again later): alarmd logs the EPIPE, recovers and
# rings on at once, not restarted. SIGSTOP: the watchdog kills and restarts it.
sc_crash() {
    rec_start
    run_alarm member ring ring
    expect_rc ring 0
    sleep 2
    kill9_restart
    local pid n0 i
    sleep 0.5
    wait_state ringing 20 || fail "not ringing after the restart that followed kill -9"
    sleep 4
    pid=$(main_pid) n0=$(restarts)
    ev freeze "$pid"
    kill -STOP "$pid"
    sleep 2
    kill -CONT "$pid"
    ev thaw "$pid"
    sleep 4
    [ "$(main_pid)" = "$pid" ] && [ "$(restarts)" = "$n0" ] || fail "alarmd was restarted after a 2 s freeze"
    [ "$(state)" = ringing ] || fail "not ringing after a 2 s freeze: $(state)"
    # (Since the freeze: under emulation a ring underruns now and then by itself.)
    journal_since "$(grep ' freeze ' "$D/events" | cut -d' ' -f1)" | grep -E "alarmd.*snd_pcm_(writei|wait) failed: Broken pipe; recovering" > "$D/underrun.txt" ||
        fail "the underrun of a 2 s freeze is not in the journal (snd_pcm_writei or snd_pcm_wait failed: Broken pipe; recovering)"
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

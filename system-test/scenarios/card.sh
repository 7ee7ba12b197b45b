# The sound card disappears before a ring: failure and fallback in the journal and history;
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

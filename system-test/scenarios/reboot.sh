# Reboot with an alarm due while the machine is down: it rings after boot, marked late.
sc_reboot() {
    if [ ! -f "$D/rebooted" ]; then
        local due
        due=$(due_in 12)
        ev due "$due"
        echo "$due" > "$D/due"
        run_alarm member add add "$(hms "$due")" --id boot
        expect_rc add 0
        touch "$D/rebooted"
        ev reboot-cmd
        sync
        systemctl reboot
        sleep infinity
    fi
    local due
    due=$(cat "$D/due")
    ev booted
    rec_start
    local since
    since=$(systemctl show -p ActiveEnterTimestampMonotonic --value alarmd)
    note "alarmd active since boot +$((since / 1000)) ms; now $(date +%T), due was $(hms "$due")"
    wait_state ringing 30 || fail "not ringing after the boot"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    rec_stop
    history_of boot > "$D/history.jsonl"
    grep -q '"late" *: *true' "$D/history.jsonl" || fail "the ring after the boot is not marked late: $(cat "$D/history.jsonl")"
    [ "$(grep -c . "$D/history.jsonl")" -eq 1 ] || fail "history of the alarm has $(grep -c . "$D/history.jsonl") entries, expected 1: $(cat "$D/history.jsonl")"
    journalctl --no-pager -b -1 -o short-precise > "$D/journal-previous-boot.txt" 2>&1
    grep -q "ringing boot" "$D/journal-previous-boot.txt" && fail "it rang before the reboot (due too soon for this machine)"
    run_alarm member remove remove boot
}

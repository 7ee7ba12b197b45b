# With /var/lib/alarm full, then the root file system read-only: it still rings; what could not
# be saved is logged.
sc_full() {
    rec_start
    local due
    due=$(due_in 12)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id full
    expect_rc add 0
    # Fill the file system as an ordinary user: root's reserved blocks keep the journal going,
    # the alarm user gets ENOSPC.
    local avail
    avail=$(df --output=avail -B1 /var/lib/alarm | tail -1)
    runuser -u nobody -- fallocate -l "$avail" /var/tmp/fill 2> /dev/null || runuser -u nobody -- sh -c 'cat /dev/zero > /var/tmp/fill' 2> /dev/null
    ev filled "$(df --output=avail -B1 /var/lib/alarm | tail -1)"
    runuser -u alarm -- sh -c 'echo x > /var/lib/alarm/.probe' 2> /dev/null && fail "the alarm user can still write /var/lib/alarm after filling the disk"
    wait_state ringing 25 || fail "it did not ring with /var/lib/alarm full"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -i 'alarmd' "$D/journal.txt" | grep -q 'No space left on device' || fail "the journal does not show what could not be saved (No space left on device)"
    rm -f /var/tmp/fill /var/lib/alarm/.probe
    ev emptied

    # A read-only root file system, as many Pis run (remounted here: the journal moves to /run).
    due=$(due_in 14)
    ev due-ro "$due"
    run_alarm member add-ro add "$(hms "$due")" --id readonly
    expect_rc add-ro 0
    journalctl --relinquish-var
    sync
    ev ro-cmd
    if ! mount -o remount,ro / 2> "$D/remount.err"; then
        notpossible "read-only root: mount -o remount,ro / failed here: $(cat "$D/remount.err") (open files: $(lsof / 2> /dev/null | awk '$4 ~ /w/' | head -3 | tr '\n' ' '))"
    else
        ev ro-done
        runuser -u alarm -- sh -c 'echo x > /var/lib/alarm/.probe' 2> /dev/null && fail "the root file system is still writable after remount,ro"
        wait_state ringing 25 || fail "it did not ring with the root file system read-only"
        sleep 2
        run_alarm member stop-ro stop
        expect_rc stop-ro 0
        journal_since "$(grep due-ro "$D/events" | cut -d' ' -f1)" > "$D/journal-ro.txt"
        grep -i 'alarmd' "$D/journal-ro.txt" | grep -q 'Read-only file system' || fail "the journal does not show what could not be saved (Read-only file system)"
        mount -o remount,rw / || fail "could not remount / read-write"
        ev rw-done
    fi
    journalctl --flush
    sleep 1
    rec_stop
    run_alarm member remove remove full readonly
}

# timedatectl set-timezone: a floating alarm follows the new zone's wall clock, a pinned one
# does not; both ring when expected.
sc_zone() {
    local zone=Asia/Kolkata
    [ "$(readlink -f /etc/localtime)" = /usr/share/zoneinfo/Etc/UTC ] || timedatectl set-timezone Etc/UTC
    local fdue pdue
    fdue=$(due_in 30)
    pdue=$((fdue + 12))
    ev floating-due "$fdue"
    ev pinned-due "$pdue"
    # Floating: the wall time the new zone will show at fdue. Pinned to UTC (today's zone).
    run_alarm member add-floating add "$(TZ=$zone hms "$fdue")" --id floating
    expect_rc add-floating 0
    run_alarm member add-pinned add "$(TZ=UTC hms "$pdue") UTC" --id pinned
    expect_rc add-pinned 0
    alarm list --json > "$D/list-before.json" 2>&1
    rec_start
    ev zone-cmd
    timedatectl set-timezone "$zone" || fail "timedatectl set-timezone $zone failed"
    ev zone-done
    sleep 2
    alarm list --json > "$D/list-after.json" 2>&1
    local want
    want=$(TZ=$zone date -d "@$fdue" +%Y-%m-%dT%H:%M:%S%:z)
    grep -q "\"next\" *: *\"$want\"" "$D/list-after.json" || fail "after the zone change the floating alarm's next ring is not $want: $(tr -d '\n ' < "$D/list-after.json" | cut -c1-400)"
    grep -q "\"next\" *: *\"$want\"" "$D/list-before.json" && fail "before the zone change the floating alarm was already due at $want"
    sleep_until "$fdue"
    wait_state ringing 15 || fail "the floating alarm did not ring at $(TZ=$zone hms "$fdue") $zone"
    sleep 1.5
    run_alarm member stop-floating stop
    expect_rc stop-floating 0
    sleep_until "$pdue"
    wait_state ringing 15 || fail "the pinned alarm did not ring at $(TZ=UTC hms "$pdue") UTC"
    sleep 1.5
    run_alarm member stop-pinned stop
    expect_rc stop-pinned 0
    sleep 1
    rec_stop
    history_of floating > "$D/history-floating.jsonl"
    history_of pinned > "$D/history-pinned.jsonl"
    timedatectl set-timezone Etc/UTC
    run_alarm member remove remove floating pinned
}

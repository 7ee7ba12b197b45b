# Outside the group: status says alarmd runs; stop is refused with a clear message.
sc_outsider() {
    run_alarm outsider status status
    expect_rc status 0
    grep -q "not running" "$D/status.out" && fail "alarm status as a user outside the group says: $(cat "$D/status.out")"
    run_alarm outsider status-json status --json
    expect_rc status-json 0
    grep -q '"running" *: *true' "$D/status-json.out" || fail "alarm status --json does not say running: $(cat "$D/status-json.out")"
    run_alarm outsider stop stop
    [ "$RC" -ne 0 ] || fail "alarm stop by a user outside the group exited 0"
    [ "$RC" -ne 3 ] || fail "alarm stop by a user outside the group exited 3 ('not running')"
    grep -q "permission denied" "$D/stop.out" && grep -q "group 'alarm'" "$D/stop.out" ||
        fail "alarm stop outside the group does not say permission denied / group 'alarm': $(cat "$D/stop.out")"
    # And the member still may.
    run_alarm member member-status status
    expect_rc member-status 0
}

# The card removed before a ring (issue #11): alarmd's pre-flight warns in status.json and
# `alarm status`, `alarm check` exits 2, and at the ring, with no device to play on, the configured
# fallback_command runs (as the user alarm, in the unit's sandbox) and is recorded in history.
sc_card-removed() {
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    rm -f /var/lib/alarm/fallback.env
    cat >> /etc/alarm/alarm.conf <<'CONF'
device = plughw:CARD=Loopback,DEV=0
preflight = 20s
fallback_command = env | grep '^ALARM_' > /var/lib/alarm/fallback.env
CONF
    systemctl reload alarmd
    sleep 1
    local due
    due=$(due_in 45)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id nocard2 --label "card removed"
    expect_rc add 0
    # With the card present it will ring: 0, or 1 for warnings (the guest's clock is not
    # synchronized; "member" is not in group audio, so it may not open the card itself).
    run_alarm member check-before check
    [ "$RC" -le 1 ] || fail "alarm check with the card present exited $RC, expected 0 or 1: $(cat "$D/check-before.out")"
    grep -q '^  fail ' "$D/check-before.out" && fail "alarm check with the card present reports a fail: $(grep '^  fail ' "$D/check-before.out")"
    ev unplug-cmd
    unplug || fail "modprobe -r snd-aloop failed: $(cat "$D/modprobe.err")"
    ev unplug-done
    [ -e /proc/asound/Loopback ] && fail "the Loopback card is still there"
    # The pre-flight runs from 20 s before the ring.
    local i warned=""
    for i in $(seq 400); do
        grep -q '"device: ' /run/alarm/status.json 2> /dev/null && { warned=1; break; }
        [ "${EPOCHREALTIME%.*}" -ge "$due" ] && break
        sleep 0.1
    done
    ev warned
    cp /run/alarm/status.json "$D/status-preflight.json"
    [ -n "$warned" ] || fail "no pre-flight warning about the device in status.json before the ring: $(tr -d '\n' < /run/alarm/status.json | cut -c1-400)"
    [ "${EPOCHREALTIME%.*}" -lt "$due" ] || fail "the pre-flight warning came only at or after the ring"
    run_alarm member status status
    expect_rc status 0
    grep -q '^warning: device: ' "$D/status.out" || fail "alarm status does not show the pre-flight warning: $(cat "$D/status.out")"
    run_alarm member check check
    expect_rc check 2
    run_alarm member check-json check --json
    grep -q '"verdict" : "fail"' "$D/check-json.out" || fail "alarm check --json does not say fail: $(tr -d '\n' < "$D/check-json.out" | cut -c1-300)"
    run_alarm outsider check-outsider check
    expect_rc check-outsider 2
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal-preflight.txt"
    grep -q "pre-flight for 'nocard2'" "$D/journal-preflight.txt" || fail "the journal has no pre-flight warning for the alarm"
    # The ring: no device plays; the fallback command runs.
    sleep_until "$due"
    for i in $(seq 300); do [ -s /var/lib/alarm/fallback.env ] && break; sleep 0.1; done
    ev fallback-seen
    cp /var/lib/alarm/fallback.env "$D/fallback.env" 2> /dev/null
    [ -s "$D/fallback.env" ] || fail "fallback_command did not run within 30 s of the ring"
    grep -qx 'ALARM_ID=nocard2' "$D/fallback.env" || fail "fallback_command did not get ALARM_ID=nocard2: $(cat "$D/fallback.env" 2> /dev/null)"
    grep -qx 'ALARM_LABEL=card removed' "$D/fallback.env" || fail "fallback_command did not get ALARM_LABEL"
    grep -q '^ALARM_TIME=' "$D/fallback.env" && grep -q '^ALARM_REASON=.' "$D/fallback.env" || fail "fallback_command did not get ALARM_TIME and ALARM_REASON"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    history_of nocard2 > "$D/history.jsonl"
    grep -q '"outcome" *: *"failed"' "$D/history.jsonl" || fail "the history does not record the failed ring: $(cat "$D/history.jsonl")"
    grep -q '"fallback" *: *"[^"]*exited with status 0"' "$D/history.jsonl" || fail "the history does not record the fallback command's exit: $(cat "$D/history.jsonl")"
    journal_since "$(head -1 "$D/events" | cut -d' ' -f1)" > "$D/journal.txt"
    grep -q 'running fallback_command' "$D/journal.txt" || fail "the journal does not say the fallback command ran"
    modprobe snd-aloop || fail "modprobe snd-aloop failed"
    udevadm settle
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    systemctl reload alarmd
    rm -f /var/lib/alarm/fallback.env
    run_alarm member remove remove nocard2
}

# alarm devices with two cards: both listed by id, PCMs by card name, the configured device
# in use, opening, and its mixer.
sc_devices() {
    dummy_card || return
    # The member is not in group audio (the user alarm is): the cards are there but closed to them.
    run_alarm member devices-member devices --json
    expect_rc devices-member 0
    grep -q '"/dev/snd/controlC1"' "$D/devices-member.out" || fail "alarm devices --json as a user outside group audio does not name /dev/snd/controlC1 as inaccessible"
    run_alarm root devices-json devices --json --device plughw:CARD=Dummy,DEV=0
    expect_rc devices-json 0
    local f="$D/devices-json.out"
    grep -q '"id" : "Loopback"' "$f" || fail "alarm devices --json does not list the card Loopback"
    grep -q '"id" : "Dummy"' "$f" || fail "alarm devices --json does not list the card Dummy"
    grep -q '"name" : "plughw:CARD=Dummy,DEV=0"' "$f" || fail "alarm devices --json does not list the PCM plughw:CARD=Dummy,DEV=0"
    grep -q '"card_id" : "Dummy"' "$f" || fail "no PCM of the Dummy card has card_id Dummy"
    grep -q '"current" : "plughw:CARD=Dummy,DEV=0"' "$f" || fail "the device in use is not the one given: $(grep current "$f")"
    grep -q '"control" : "Master"' "$f" && grep -q '"device" : "hw:CARD=Dummy"' "$f" || fail "the mixer of the device in use is not Master on hw:CARD=Dummy"
    run_alarm root devices devices
    expect_rc devices 0
    grep -q '^device alarm uses now: ' "$D/devices.out" || fail "alarm devices does not say which device alarm uses"
    grep -Eq '^[0-9]+ +Dummy ' "$D/devices.out" || fail "alarm devices does not list the card Dummy in its table"
    modprobe -r snd-dummy || note "modprobe -r snd-dummy failed (still in use?)"
}

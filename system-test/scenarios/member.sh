# A group member plants configuration in the user alarm's home (issue #42). The user's passwd home
# is /var/lib/alarm, the state directory, which the group alarm may write (2770): alsa-lib reads
# ~/.asoundrc, where a `file` PCM whose name starts with `|` is run by popen, and Python reads the
# user site directory. Every unit that runs as alarm sets HOME to a place the group cannot write,
# so alarmd's ring does not run the member's command. A control first: the same file does run the
# command for a process of the user alarm whose HOME is the passwd home (else this proves nothing).
sc_member() {
    local home owned u env_home pid
    home=$(getent passwd alarm | cut -d: -f6)
    owned=$home/owned-by-member
    rm -f "$owned"
    note "the user alarm's home in passwd: $home"
    # The member's ~/.asoundrc for the user alarm: the default PCM through a `file` PCM whose
    # output is a command (then on to the card, so that the ring still sounds).
    member tee "$home/.asoundrc" > /dev/null 2> "$D/plant.err" <<ASOUNDRC || { fail "the member could not write $home/.asoundrc: $(cat "$D/plant.err")"; return; }
pcm.!default {
    type plug
    slave.pcm {
        type file
        slave.pcm "hw:Loopback,0"
        file "|/bin/sh -c 'id > $owned; cat > /dev/null'"
        format raw
    }
}
ASOUNDRC
    runuser -u alarm -- env HOME="$home" timeout 10 aplay -q -D default -d 1 -f S16_LE -r 48000 -c 1 /dev/zero > "$D/control.out" 2>&1
    if ! wait_for 5 test -s "$owned"; then
        fail "control: the planted .asoundrc ran nothing even for the user alarm with HOME=$home (aplay: $(head -c 300 "$D/control.out")): this scenario would prove nothing"
        rm -f "$home/.asoundrc"
        return
    fi
    note "control: with HOME=$home the planted command ran as $(cut -d' ' -f1 "$owned")"
    rm -f "$owned"
    # Every unit of the package that runs as alarm: HOME set, to a place the member cannot write.
    for u in alarmd alarm-button alarm-hooks alarm-mqtt; do
        [ "$(systemctl show -p User --value "$u" 2> /dev/null)" = alarm ] || { fail "$u.service does not run as alarm (User=$(systemctl show -p User --value "$u" 2>&1))"; continue; }
        env_home=$(systemctl show -p Environment --value "$u" | tr ' ' '\n' | sed -n 's/^HOME=//p')
        if [ -z "$env_home" ]; then
            fail "$u.service does not set HOME (so alsa-lib and Python use the passwd home $home)"
        elif member test -w "$env_home"; then
            fail "$u.service sets HOME=$env_home, which the member may write"
        else
            note "$u.service: HOME=$env_home"
        fi
    done
    systemctl restart alarmd || fail "systemctl restart alarmd failed"
    wait_for 20 test "$(systemctl show -p ActiveState --value alarmd)" = active || fail "alarmd is not active after the restart"
    pid=$(main_pid)
    env_home=$(tr '\0' '\n' < "/proc/$pid/environ" | sed -n 's/^HOME=//p')
    note "alarmd (pid $pid) runs with HOME=$env_home"
    [ "$env_home" != "$home" ] || fail "alarmd runs with HOME=$home, the group-writable passwd home"
    run_alarm member ring ring
    expect_rc ring 0
    wait_state ringing 20 || fail "not ringing 20 s after alarm ring"
    sleep 2
    run_alarm member stop stop
    expect_rc stop 0
    sleep 1
    [ -e "$owned" ] && fail "alarmd's ring ran the member's command from $home/.asoundrc: $(cat "$owned")"
    journal_since "$(cat "$D/t0")" | grep -F 'asoundrc' > "$D/journal-asoundrc.txt" && note "the journal names .asoundrc: $(head -1 "$D/journal-asoundrc.txt")"
    rm -f "$home/.asoundrc" "$owned"
}

# Internet radio (issue #43): the package alarm-stream installed (its socket enabled and
# listening for the group alarm), alarmd's sandbox unchanged (PrivateNetwork=yes, AF_UNIX only);
# an alarm whose sound is the host's Icecast stream (stream_host.py: a 660 Hz sine as MP3, reached
# through qemu's user network as http://10.0.2.2:PORT/live.mp3) rings that stream, fetched by an
# alarm-stream@ instance; the host's server is killed mid-ring and the default tone (880 Hz) takes
# over within stream_timeout (5 s) + 1 s, which the history's reason says. analyse.py measures the
# frequencies and the switch on the recording. Then alarm-stream is purged: its socket goes.
sc_stream() {
    local sdeb url port i due
    # (The host serves the station to the amd64 guest only: the arm64 image has none of
    # alarm-stream's libraries.)
    [ -f "$H/stream-port" ] || { notpossible "the host serves no station to this guest (the stream scenario runs in the amd64 plan)"; return; }
    sdeb=$(cd "$H" && ls alarm-stream_*.deb 2> /dev/null | head -1)
    [ -n "$sdeb" ] || { fail "no alarm-stream package in the share"; return; }
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$sdeb") > "$D/apt.out" 2>&1 ||
        { fail "apt-get install ./$sdeb failed: $(tail -5 "$D/apt.out")"; return; }
    ev installed
    [ "$(systemctl is-enabled alarm-stream.socket 2>&1)" = enabled ] || fail "alarm-stream.socket is not enabled after install: $(systemctl is-enabled alarm-stream.socket 2>&1)"
    [ "$(systemctl is-active alarm-stream.socket 2>&1)" = active ] || fail "alarm-stream.socket is not active after install: $(systemctl is-active alarm-stream.socket 2>&1)"
    [ -S /run/alarm-stream/socket ] && [ "$(stat -c '%a %U %G' /run/alarm-stream/socket)" = "660 root alarm" ] ||
        fail "/run/alarm-stream/socket is not a socket 0660 root:alarm: $(stat -c '%F %a %U %G' /run/alarm-stream/socket 2>&1)"
    [ "$(alarm-stream --version 2>&1)" = "$(dpkg-query -W -f '${Version}' alarm-stream)" ] ||
        fail "alarm-stream --version says '$(alarm-stream --version 2>&1)', the package is $(dpkg-query -W -f '${Version}' alarm-stream)"
    man -w alarm-stream > /dev/null 2>&1 || fail "man alarm-stream: no page"
    # alarmd keeps no network: the stream comes through alarm-stream's socket.
    local pn af
    pn=$(systemctl show alarmd -p PrivateNetwork --value)
    af=$(systemctl show alarmd -p RestrictAddressFamilies --value)
    echo "PrivateNetwork=$pn RestrictAddressFamilies=$af" > "$D/alarmd-sandbox.txt"
    [ "$pn" = yes ] || fail "alarmd's PrivateNetwork is '$pn', not yes"
    [ "$af" = AF_UNIX ] || fail "alarmd's RestrictAddressFamilies is '$af', not AF_UNIX"

    user_net || return
    for i in $(seq 300); do [ -f "$O/stream-host/ready" ] && break; sleep 0.2; done
    [ -f "$O/stream-host/ready" ] || { fail "the host's stream (stream_host.py) was not live within 60 s: $(tail -3 "$O/stream-host/host.log" 2> /dev/null)"; return; }
    port=$(cat "$H/stream-port")
    url=http://10.0.2.2:$port/live.mp3
    note "the host's stream: $url"
    # What alarm check says of it, the evening before (it connects through alarm-stream too).
    member alarm-stream --url "$url" --seconds 1 > "$D/probe.bin" 2> "$D/probe.err" || true
    grep -q '"codec":"mp3"' "$D/probe.bin" || note "alarm-stream --url $url: $(head -c 200 "$D/probe.bin" | tr -cd '[:print:]') $(cat "$D/probe.err")"

    rec_start
    due=$(due_in 5)
    ev due "$due"
    run_alarm member add add "$(hms "$due")" --id radio --sound "$url"
    expect_rc add 0
    run_alarm member check check
    grep -q "'$url' plays" "$D/check.out" || fail "alarm check does not say the stream plays: $(tr '\n' ' ' < "$D/check.out" | cut -c1-300)"
    wait_state ringing 20 || { fail "not ringing 15 s after the alarm was due"; rec_stop; return; }
    # The stream plays for a while, fetched by one alarm-stream@ instance.
    sleep 4
    systemctl list-units --no-legend --state=running 'alarm-stream@*.service' > "$D/instances.txt" 2>&1
    grep -q 'alarm-stream@' "$D/instances.txt" || fail "no alarm-stream@ instance runs while the stream rings: $(systemctl list-units --no-legend 'alarm-stream@*' 2>&1 | head -3)"
    sleep 4
    # The station goes away mid-ring.
    ev stop-req
    echo stop > "$O/stream-host/stop.tmp" && mv "$O/stream-host/stop.tmp" "$O/stream-host/stop"
    for i in $(seq 100); do [ -f "$O/stream-host/stopped" ] && break; sleep 0.1; done
    [ -f "$O/stream-host/stopped" ] && ev server-stopped || fail "the host did not stop its stream within 10 s"
    wait_for 15 journal_has "playing the default tone" || fail "alarmd did not say it fell back to the default tone within 15 s of the station's end"
    ev fell-back
    [ "$(state)" = ringing ] || fail "not ringing after the stream failed: $(state)"
    # The fallback's sound on the recording for a while, then stop.
    sleep 4
    TRACE=stop run_alarm member stop stop
    expect_rc stop 0
    sleep 1.5
    rec_stop
    history_of radio > "$D/history.jsonl"
    grep -q '"sound" *: *"default"' "$D/history.jsonl" && grep -qF "stream $url:" "$D/history.jsonl" ||
        fail "the history does not say the stream failed and the default tone played: $(cat "$D/history.jsonl")"
    journal_since "$(cat "$D/t0")" | grep -F -e alarm-stream -e 'radio' > "$D/journal-stream.txt" || true
    run_alarm member remove remove radio

    # Removed again: its socket goes with it.
    DEBIAN_FRONTEND=noninteractive apt-get purge -y alarm-stream > "$D/purge.out" 2>&1 || fail "apt-get purge alarm-stream failed: $(tail -3 "$D/purge.out")"
    ! systemctl cat alarm-stream.socket > /dev/null 2>&1 || fail "alarm-stream.socket is still known after the purge"
    [ ! -e /run/alarm-stream/socket ] || fail "/run/alarm-stream/socket is still there after the purge"
    [ "$(systemctl is-active alarmd)" = active ] || fail "alarmd is not active after alarm-stream's purge"
}

# The signed apt repository of scripts/release (issue #32), as a user meets it: the host serves
# it over HTTP (system-test/apt_host.py on its loopback, reached as 10.0.2.2 through qemu's user
# network); the key is fetched from it into /etc/apt/keyrings/, the source is a deb822
# /etc/apt/sources.list.d/alarm.sources with Signed-By. A copy whose Packages was altered after
# signing is refused by apt update (the lists keep nothing of it); from the good one, on a machine
# where the package was purged, apt install alarm alarm-web installs release 1; an alarm is added
# and rings (history); then the host publishes release 2 (the same tree, a higher version) into
# the served directory, and apt update && apt upgrade moves to it: dpkg and --version say release
# 2, the alarms and history are kept, alarmd is active and was restarted.
apt_lists_from_host() { # how many Packages lists apt keeps from the host's server
    local f n=0
    for f in /var/lib/apt/lists/10.0.2.2[:_]*_Packages; do [ ! -f "$f" ] || n=$((n + 1)); done
    echo "$n"
}
apt_write_sources() { # apt_write_sources URI
    printf 'Types: deb\nURIs: %s\nSuites: stable\nComponents: main\nSigned-By: /etc/apt/keyrings/alarm-archive-keyring.gpg\n' "$1" \
        > /etc/apt/sources.list.d/alarm.sources
}
sc_apt() {
    [ -f "$H/apt-port" ] || { fail "the host serves no apt repository to this guest (no $H/apt-port)"; return; }
    local url v1 v2 rc
    url=$(apt_url) v1=$(cat "$H/apt-release-1") v2=$(cat "$H/apt-release-2")
    note "repository $url/apt/ (release 1: $v1, release 2: $v2), apt $(dpkg-query -W -f='${Version}' apt), signature check by $(command -v sqv > /dev/null && echo sqv || echo gpgv)"
    user_net || return
    apt_sources_aside
    # The key, from the repository, with apt's own HTTP client (the guest has no curl or wget).
    rm -f /etc/apt/keyrings/alarm-archive-keyring.gpg
    /usr/lib/apt/apt-helper download-file "$url/apt/alarm-archive-keyring.gpg" /etc/apt/keyrings/alarm-archive-keyring.gpg > "$D/key.out" 2>&1 ||
        { fail "could not fetch $url/apt/alarm-archive-keyring.gpg: $(tail -2 "$D/key.out" | tr '\n' ' ')"; return; }
    chmod 644 /etc/apt/keyrings/alarm-archive-keyring.gpg
    note "key: $(sha256sum < /etc/apt/keyrings/alarm-archive-keyring.gpg | cut -c1-16)..., $(stat -c %s /etc/apt/keyrings/alarm-archive-keyring.gpg) bytes"

    # 1. A Packages file altered after signing: apt update fails, and keeps none of it.
    apt_write_sources "$url/tampered/"
    rm -rf /var/lib/apt/lists/10.0.2.2[:_]*
    ev tampered-cmd
    apt-get update > "$D/update-tampered.out" 2>&1
    rc=$?
    ev tampered-done "$rc"
    [ "$rc" -ne 0 ] || fail "apt-get update accepted the tampered repository (exit 0): $(grep -E '^(W|E):' "$D/update-tampered.out" | head -2 | tr '\n' ' ')"
    grep -Eq 'Hash Sum mismatch|Hashes of expected file|unexpected size' "$D/update-tampered.out" ||
        fail "apt-get update did not say the tampered Packages does not match: $(tail -3 "$D/update-tampered.out" | tr '\n' ' ')"
    [ "$(apt_lists_from_host)" -eq 0 ] || fail "apt kept a Packages list from the tampered repository: $(ls /var/lib/apt/lists/)"
    apt-cache policy alarm-web > "$D/policy-tampered.out" 2>&1
    grep -q '10\.0\.2\.2' "$D/policy-tampered.out" && fail "apt-cache policy names the tampered repository: $(cat "$D/policy-tampered.out" | tr '\n' ' ')"
    note "tampered: apt-get update exit $rc: $(grep -E 'Hash Sum mismatch|unexpected size' "$D/update-tampered.out" | head -1 | cut -c1-160)"

    # 2. The good repository: the signature checked, release 1 installed on a machine without it.
    apt_write_sources "$url/apt/"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y alarm alarm-web > "$D/purge.out" 2>&1 || fail "apt-get purge alarm failed: $(tail -2 "$D/purge.out")"
    ev update-cmd
    apt-get update > "$D/update-1.out" 2>&1 || fail "apt-get update of the signed repository failed: $(grep -E '^(W|E):' "$D/update-1.out" | head -3 | tr '\n' ' ')"
    ev update-done
    grep -E '^(W|E):' "$D/update-1.out" && fail "apt-get update warned: $(grep -E '^(W|E):' "$D/update-1.out" | head -3 | tr '\n' ' ')"
    grep -q "10.0.2.2:[0-9]*/apt/\? stable InRelease" "$D/update-1.out" || fail "apt-get update did not read the repository's InRelease: $(head -3 "$D/update-1.out" | tr '\n' ' ')"
    [ "$(apt_lists_from_host)" -ge 1 ] || fail "no Packages list of the repository after apt-get update"
    apt-cache policy alarm > "$D/policy-1.out" 2>&1
    grep -q "Candidate: $v1\$" "$D/policy-1.out" || fail "apt-cache policy alarm: not $v1 as the candidate: $(tr '\n' ' ' < "$D/policy-1.out")"
    ev install-cmd
    DEBIAN_FRONTEND=noninteractive apt-get install -y alarm alarm-web > "$D/install.out" 2>&1 ||
        fail "apt-get install alarm alarm-web from the repository failed: $(tail -3 "$D/install.out" | tr '\n' ' ')"
    ev install-done
    grep -qi 'unauthenticated\|not be authenticated' "$D/install.out" && fail "apt-get install warned of unauthenticated packages"
    grep -q "^Get:[0-9]* http://10.0.2.2:[0-9]*/apt/\? stable/main $(dpkg --print-architecture) alarm " "$D/install.out" ||
        fail "apt-get install did not fetch alarm from the repository: $(grep '^Get:' "$D/install.out" | head -2 | tr '\n' ' ')"
    [ "$(dpkg-query -W -f='${Version}' alarm 2>&1)" = "$v1" ] || fail "installed alarm $(dpkg-query -W -f='${Version}' alarm 2>&1), not release 1 ($v1)"
    [ "$(dpkg-query -W -f='${Version}' alarm-web 2>&1)" = "$v1" ] || fail "installed alarm-web $(dpkg-query -W -f='${Version}' alarm-web 2>&1), not release 1 ($v1)"
    [ "$(alarm --version 2>&1)" = "$v1" ] || note "release 1 ($v1) was repackaged from binaries built as $(alarm --version 2>&1) (scripts/release --no-build)"
    systemctl is-active -q alarmd || fail "alarmd is not active after apt-get install from the repository"
    local i
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done

    # 3. Alarms and history under release 1.
    run_alarm member add-keep add 'Mon..Fri 06:45' --id kept --label 'from the repository'
    expect_rc add-keep 0
    run_alarm member ring ring
    expect_rc ring 0
    wait_state ringing 30 || fail "alarm ring did not ring within 30 s under release 1"
    run_alarm member stop stop
    expect_rc stop 0
    wait_for 10 bash -c '[ -s /var/lib/alarm/history.jsonl ]' || fail "no history after a ring and a stop under release 1"
    cp /var/lib/alarm/history.jsonl "$D/history-1.jsonl" 2> /dev/null
    alarm list --json > "$D/list-1.json" 2>&1
    local pid
    pid=$(main_pid)

    # 4. Release 2 published into the served directory; apt update && apt upgrade moves to it.
    apt_publish 2 || return
    ev upgrade-cmd
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y; } > "$D/upgrade.out" 2>&1 ||
        fail "apt-get update && apt-get upgrade failed: $(tail -3 "$D/upgrade.out" | tr '\n' ' ')"
    ev upgrade-done
    grep -E '^(W|E):' "$D/upgrade.out" && fail "apt-get update/upgrade warned: $(grep -E '^(W|E):' "$D/upgrade.out" | head -3 | tr '\n' ' ')"
    [ "$(dpkg-query -W -f='${Version}' alarm 2>&1)" = "$v2" ] || fail "after apt upgrade dpkg-query says alarm $(dpkg-query -W -f='${Version}' alarm 2>&1), not release 2 ($v2)"
    [ "$(dpkg-query -W -f='${Version}' alarm-web 2>&1)" = "$v2" ] || fail "after apt upgrade alarm-web is $(dpkg-query -W -f='${Version}' alarm-web 2>&1), not $v2"
    [ "$(alarm --version 2>&1)" = "$v2" ] || fail "after apt upgrade alarm --version says $(alarm --version 2>&1), not $v2"
    note "upgraded: dpkg-query -W alarm: $(dpkg-query -W alarm | tr '\t' ' '); alarm --version: $(alarm --version 2>&1)"
    systemctl is-active -q alarmd || fail "alarmd is not active after apt upgrade"
    [ "$(main_pid)" != "$pid" ] || fail "apt upgrade did not restart alarmd (still pid $pid)"
    alarm list --json > "$D/list-2.json" 2>&1
    grep -q '"id" *: *"kept"' "$D/list-2.json" || fail "apt upgrade lost the alarm 'kept'"
    cmp -s <(grep -v '"next"' "$D/list-1.json") <(grep -v '"next"' "$D/list-2.json") || fail "alarm list --json changed across apt upgrade (list-1.json, list-2.json)"
    cp /var/lib/alarm/history.jsonl "$D/history-2.jsonl" 2> /dev/null
    [ -s "$D/history-1.jsonl" ] && [ "$(head -c "$(stat -c %s "$D/history-1.jsonl")" "$D/history-2.jsonl" | sha256sum)" = "$(sha256sum < "$D/history-1.jsonl")" ] ||
        fail "apt upgrade did not keep the history (history-1.jsonl is not the start of history-2.jsonl)"
    member alarm history --last 1 > "$D/history-after.out" 2>&1 || fail "alarm history after the upgrade: $(tail -2 "$D/history-after.out")"
    note "history kept: $(wc -l < "$D/history-2.jsonl") entries; $(tr '\n' ' ' < "$D/history-after.out" | cut -c1-120)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    run_alarm member remove remove kept
    apt_sources_back
}

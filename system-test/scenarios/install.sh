# apt-get install of alarm and alarm-web: user and group, unit enabled and active (READY), FIFO
# 0620 group alarm, status.json readable by all, systemd-analyze security <= 2.0 on the live
# system; alarm-web a binary of its own, its unit off.
sc_install() {
    local deb webdeb
    deb=$(cd "$H" && ls alarm_*.deb)
    webdeb=$(cd "$H" && ls alarm-web_*.deb)
    ev install-cmd
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/apt.out" 2>&1 ||
        fail "apt-get install ./$deb ./$webdeb failed: $(tail -5 "$D/apt.out")"
    ev install-done
    [ "$(dpkg-query -W -f='${Status}' alarm-web)" = "install ok installed" ] || fail "alarm-web is not installed: $(dpkg-query -W -f='${Status}' alarm-web 2>&1)"
    [ -f /usr/bin/alarm-web ] && [ ! -L /usr/bin/alarm-web ] || fail "/usr/bin/alarm-web is not a binary of its own"
    [ "$(dpkg -S /usr/bin/alarm-web 2>&1)" = "alarm-web: /usr/bin/alarm-web" ] || fail "/usr/bin/alarm-web is not the package alarm-web's: $(dpkg -S /usr/bin/alarm-web 2>&1)"
    # The version every entry point prints is the package's; the manual pages read with man.
    local version prog page
    version=$(dpkg-query -W -f='${Version}' alarm)
    for prog in alarm alarmd alarm-hooks alarm-button alarm-web; do
        [ "$("$prog" --version 2>&1)" = "$version" ] || fail "$prog --version says '$("$prog" --version 2>&1)', the package is $version"
    done
    for page in alarm alarm.conf alarmd alarm-hooks alarm-button alarm-web; do
        MANWIDTH=80 man -P cat "$page" > "$D/man-$page.txt" 2> "$D/man-$page.err" || fail "man $page: $(tail -3 "$D/man-$page.err")"
    done
    grep -q "snooze" "$D/man-alarm.txt" && grep -q "web_connections_per_address" "$D/man-alarm.conf.txt" ||
        fail "man alarm / man alarm.conf do not describe the commands and settings"
    # The button's settings, named alike in alarm-button(8), alarm.conf(5) and the installed guide.
    local key
    for key in button_device button_keys button_hold; do
        grep -q "$key" "$D/man-alarm-button.txt" && grep -q "$key" "$D/man-alarm.conf.txt" && grep -q "$key" /usr/share/doc/alarm/raspberry-pi.md ||
            fail "$key is not in man alarm-button, man alarm.conf and the Pi guide alike"
    done
    note "--version: $version everywhere; man alarm ($(wc -l < "$D/man-alarm.txt") lines), alarm.conf, alarmd, alarm-hooks, alarm-button, alarm-web"
    getent passwd alarm > /dev/null || fail "no user alarm"
    getent group alarm > /dev/null || fail "no group alarm"
    id -nG alarm | grep -qw audio || fail "user alarm is not in group audio: $(id -nG alarm)"
    [ "$(systemctl is-enabled alarmd)" = enabled ] || fail "alarmd is not enabled: $(systemctl is-enabled alarmd)"
    local i
    for i in $(seq 100); do [ -p /run/alarm/control ] && [ -f /run/alarm/status.json ] && break; sleep 0.1; done
    [ "$(systemctl show -p ActiveState --value alarmd)/$(systemctl show -p SubState --value alarmd)" = active/running ] ||
        fail "alarmd is not active/running: $(systemctl show -p ActiveState -p SubState alarmd | tr '\n' ' ')"
    # Type=notify: active means READY=1 came; STATUS= shows it speaks the protocol.
    local text
    text=$(systemctl show -p StatusText --value alarmd)
    [ -n "$text" ] || fail "alarmd sent no STATUS= (StatusText empty)"
    note "alarmd StatusText: $text"
    [ "$(stat -c '%F %a %G' /run/alarm/control 2>&1)" = "fifo 620 alarm" ] || fail "/run/alarm/control: $(stat -c '%F %a %U:%G' /run/alarm/control 2>&1), expected fifo 620 group alarm"
    local mode
    mode=$(stat -c %a /run/alarm/status.json 2>&1)
    [ "$mode" = 644 ] || fail "/run/alarm/status.json is mode $mode, expected 644 (readable by every user)"
    outsider cat /run/alarm/status.json > /dev/null 2>&1 || fail "a user outside the group cannot read /run/alarm/status.json"
    systemd-analyze security --no-pager alarmd > "$D/security.txt" 2>&1
    local score
    score=$(sed -n 's/.*Overall exposure level for alarmd.service: \([0-9.]*\).*/\1/p' "$D/security.txt")
    if [ -z "$score" ]; then fail "systemd-analyze security gave no rating: $(tail -3 "$D/security.txt")"; else
        note "systemd-analyze security alarmd (live): $score"
        awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "systemd-analyze security alarmd rates $score, above 2.0"
    fi
    note "installed size: $(du -sh /usr/bin/alarm | cut -f1) /usr/bin/alarm; $(readlink /usr/bin/alarmd) <- /usr/bin/alarmd"
    # alarmd's memory once idle (no alarm, no ring): resident, anonymous, and its own dirty pages.
    sleep 3
    local pid
    pid=$(main_pid)
    if [ -r "/proc/$pid/status" ]; then
        echo "VmRSS $(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status") kB, RssAnon $(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status") kB," \
            "Private_Dirty $(awk '/^Private_Dirty:/ { print $2 }' "/proc/$pid/smaps_rollup") kB (smaps_rollup)" > "$D/memory"
        note "alarmd idle memory: $(cat "$D/memory")"
    fi
    # The person who may use the alarm clock joins its group (as the README tells them to).
    usermod -aG alarm member
}

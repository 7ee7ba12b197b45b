# apt-get remove, purge, reinstall; an upgrade from the previous commit's package keeps the
# alarms.
sc_upgrade() {
    local deb webdeb
    deb=$(cd "$H" && ls alarm_*.deb)
    webdeb=$(cd "$H" && ls alarm-web_*.deb)
    run_alarm member add-keep add '07:00' --id keep
    expect_rc add-keep 0
    DEBIAN_FRONTEND=noninteractive apt-get remove -y alarm > "$D/remove.out" 2>&1 || fail "apt-get remove alarm failed: $(tail -3 "$D/remove.out")"
    [ ! -e /usr/bin/alarm ] && [ ! -e /usr/bin/alarmd ] || fail "apt-get remove left /usr/bin/alarm or alarmd"
    [ ! -e /usr/bin/alarm-web ] || fail "apt-get remove alarm left alarm-web (it depends on alarm)"
    systemctl is-active -q alarmd && fail "alarmd still runs after apt-get remove"
    [ -f /var/lib/alarm/alarms.json ] || fail "apt-get remove deleted the alarms"
    getent passwd alarm > /dev/null || fail "apt-get remove deleted the user alarm"
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/reinstall.out" 2>&1 || fail "reinstall failed: $(tail -3 "$D/reinstall.out")"
    systemctl is-active -q alarmd || fail "alarmd is not active after the reinstall"
    member alarm list > "$D/list-reinstall.out" 2>&1
    grep -q keep "$D/list-reinstall.out" || fail "the reinstall lost the alarms: $(cat "$D/list-reinstall.out")"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y alarm > "$D/purge.out" 2>&1 || fail "apt-get purge alarm failed: $(tail -3 "$D/purge.out")"
    [ ! -e /var/lib/alarm ] || fail "apt-get purge left /var/lib/alarm"
    [ ! -e /etc/alarm ] || fail "apt-get purge left /etc/alarm"
    systemctl is-active -q alarmd && fail "alarmd still runs after apt-get purge"

    local prev
    prev=$(ls "$H"/previous/alarm_*.deb 2> /dev/null | head -1)
    if [ -z "$prev" ]; then
        notpossible "upgrade from the previous commit's package: $(cat "$H/previous-missing" 2> /dev/null || echo "no previous package")"
        (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/install.out" 2>&1 || fail "install after purge failed"
        return
    fi
    # The previous commit's packages: alarm alone (when it still shipped alarm-web), or both.
    (cd "$H/previous" && DEBIAN_FRONTEND=noninteractive apt-get install -y ./*.deb) > "$D/install-previous.out" 2>&1 ||
        fail "installing the previous package failed: $(tail -3 "$D/install-previous.out")"
    note "previous: $(dpkg-query -W -f='${Version}' alarm)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    run_alarm member add-old1 add 'Mon..Fri 06:30' --id weekday
    expect_rc add-old1 0
    run_alarm member add-old2 add '*-12-25 08:00 Europe/Berlin' --id christmas
    expect_rc add-old2 0
    alarm list --json > "$D/list-before.json"
    local pid
    pid=$(main_pid)
    (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb" "./$webdeb") > "$D/upgrade.out" 2>&1 || fail "the upgrade failed: $(tail -3 "$D/upgrade.out")"
    note "upgraded to: $(dpkg-query -W -f='${Version}' alarm) and alarm-web $(dpkg-query -W -f='${Version}' alarm-web)"
    [ "$(dpkg-query -W -f='${Version}' alarm-web)" = "$(dpkg-deb -f "$H/$webdeb" Version)" ] || fail "alarm-web not upgraded: $(dpkg-query -W -f='${Version}' alarm-web 2>&1)"
    [ -f /usr/bin/alarm-web ] && [ ! -L /usr/bin/alarm-web ] || fail "after the upgrade /usr/bin/alarm-web is not alarm-web's own binary"
    [ -f /usr/lib/systemd/system/alarm-web.service ] || fail "the upgrade lost alarm-web.service"
    [ -f /etc/alarm/web-token ] || fail "the upgrade lost the web token"
    [ "$(dpkg-query -W -f='${Version}' alarm)" = "$(dpkg-deb -f "$H/$deb" Version)" ] || fail "not upgraded: $(dpkg-query -W -f='${Version}' alarm)"
    systemctl is-active -q alarmd || fail "alarmd is not active after the upgrade"
    [ "$(main_pid)" != "$pid" ] || fail "the upgrade did not restart alarmd (still pid $pid)"
    alarm list --json > "$D/list-after.json"
    for id in weekday christmas; do grep -q "\"id\" *: *\"$id\"" "$D/list-after.json" || fail "the upgrade lost the alarm $id"; done
    cmp -s <(grep -v '"next"' "$D/list-before.json") <(grep -v '"next"' "$D/list-after.json") || note "alarm list --json changed across the upgrade (see list-before/after.json)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    run_alarm member ring ring
    expect_rc ring 0
    run_alarm member stop stop
    expect_rc stop 0
}

# alarm-web: the token made at install (0640 root:alarm), the unit off until enabled; enabled
# with web_listen = 0.0.0.0:8475 it answers on this machine, and the host (scripts/system-test,
# web_host.py) reaches it through qemu's forwarded port: 401 without the token or with a wrong
# one, 200 with it, and an alarm it adds is in `alarm list`. The token is in no journal line.
# Its port (issue #42): alarm-web.socket holds 8475; the user outsider cannot bind it on either
# family while alarm-web runs, while `systemctl restart` runs, nor after alarm-web is killed and
# before systemd starts it again; the token works over 127.0.0.1 and [::1] after each.
web_get() { # web_get PATH [TOKEN] [ADDRESS]: "STATUS BODY" of a GET to ADDRESS (127.0.0.1):8475 from the guest (bash's /dev/tcp)
    local auth="" reply
    [ -z "${2:-}" ] || auth="Authorization: Bearer $2"$'\r\n'
    exec 3<> "/dev/tcp/${3:-127.0.0.1}/8475" || { echo "0 cannot connect"; return; }
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n' "$1" "$auth" >&3
    reply=$(timeout 20 cat <&3 | tr -d '\r')
    exec 3<&-
    echo "$(sed -n '1s/^HTTP\/1\.1 \([0-9]*\).*/\1/p' <<< "$reply") $(sed '1,/^$/d' <<< "$reply" | tr '\n' ' ')"
}
# steal_port WHEN: the user outsider binds 8475 (SO_REUSEADDR, SO_REUSEPORT, listen) on [::]
# with IPV6_V6ONLY, [::1] and 127.0.0.1, by perl-base's Socket; each bind must fail.
steal_port() {
    local host v6only out
    for host in "::/1" "::1/1" "127.0.0.1/0"; do
        v6only=${host#*/} host=${host%/*}
        out=$(outsider perl -e '
            use Socket qw(:all);
            my ($host, $v6only) = @ARGV;
            my $family = $host =~ /:/ ? AF_INET6 : AF_INET;
            socket(my $s, $family, SOCK_STREAM, 0) or die "socket: $!\n";
            setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1);
            setsockopt($s, SOL_SOCKET, SO_REUSEPORT, 1);
            setsockopt($s, IPPROTO_IPV6, IPV6_V6ONLY, $v6only) if $family == AF_INET6;
            my $a = $family == AF_INET6 ? pack_sockaddr_in6(8475, inet_pton(AF_INET6, $host)) : pack_sockaddr_in(8475, inet_aton($host));
            if (bind($s, $a) && listen($s, 5)) { print "bound\n"; exit 0 }
            print "refused: $!\n"; exit 1;' "$host" "$v6only" 2>&1)
        echo "$1 $host v6only=$v6only: $out" >> "$D/steal.out"
        [ "$out" != bound ] || fail "$1: the user outsider bound $host:8475 (IPV6_V6ONLY $v6only)"
        [ "$out" = "refused: Address already in use" ] || fail "$1: the probe for $host:8475 did not run as meant: $out"
    done
}
sc_web() {
    local token=/etc/alarm/web-token
    [ "$(stat -c '%a %U %G' "$token" 2>&1)" = "640 root alarm" ] || fail "$token is $(stat -c '%a %U:%G' "$token" 2>&1), expected 640 root:alarm"
    grep -Eqx '[A-Za-z0-9_-]{43}' "$token" || fail "$token does not hold a 43-character token"
    [ "$(systemctl is-enabled alarm-web 2>&1)" = disabled ] || fail "alarm-web.service is not disabled after install: $(systemctl is-enabled alarm-web 2>&1)"
    [ "$(systemctl is-enabled alarm-web.socket 2>&1)" = disabled ] || fail "alarm-web.socket is not disabled after install: $(systemctl is-enabled alarm-web.socket 2>&1)"
    systemctl is-active --quiet alarm-web && fail "alarm-web runs after install"
    run_alarm member member-token web-token
    expect_rc member-token 0
    [ "$(cat "$D/member-token.out")" = "$(cat "$token")" ] || fail "alarm web-token as a member does not print the token"
    run_alarm outsider outsider-token web-token
    [ "$RC" -ne 0 ] || fail "alarm web-token printed the token to a user outside the group"
    # qemu's user network: its forwarded port reaches 10.0.2.15:8475.
    mkdir -p /etc/systemd/network
    printf '[Match]\nName=eth0\n\n[Network]\nAddress=10.0.2.15/24\n' > /etc/systemd/network/10-system-test.network
    systemctl start systemd-networkd || fail "systemd-networkd did not start"
    local i
    for i in $(seq 100); do [ "$(cat /sys/class/net/eth0/operstate 2> /dev/null)" = up ] && break; sleep 0.2; done
    note "eth0: $(cat /sys/class/net/eth0/operstate 2>&1)"
    echo "web_listen = 0.0.0.0:8475" >> /etc/alarm/alarm.conf
    ev enable-cmd
    systemctl enable --now alarm-web > "$D/enable.out" 2>&1 || fail "systemctl enable --now alarm-web failed: $(cat "$D/enable.out"; journalctl -u alarm-web --no-pager | tail -5)"
    ev enable-done
    [ "$(systemctl show -p ActiveState --value alarm-web)/$(systemctl show -p SubState --value alarm-web)" = active/running ] ||
        fail "alarm-web is not active/running: $(systemctl show -p ActiveState -p SubState alarm-web | tr '\n' ' ')"
    systemd-analyze security --no-pager alarm-web > "$D/security.txt" 2>&1
    local score
    score=$(sed -n 's/.*Overall exposure level for alarm-web.service: \([0-9.]*\).*/\1/p' "$D/security.txt")
    if [ -z "$score" ]; then fail "systemd-analyze security alarm-web gave no rating"; else
        note "systemd-analyze security alarm-web (live): $score"
        awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' || fail "systemd-analyze security alarm-web rates $score, above 2.5"
    fi
    run_alarm member web-url web-url
    grep -q '^http://10.0.2.15:8475/$' "$D/web-url.out" || fail "alarm web-url does not name http://10.0.2.15:8475/: $(cat "$D/web-url.out")"
    # On the guest itself.
    local got
    got=$(web_get /api/status)
    [ "${got%% *}" = 401 ] || fail "GET /api/status without the token on the guest: ${got:0:200}"
    got=$(web_get /api/status "$(cat "$token")")
    [ "${got%% *}" = 200 ] && grep -q '"running" : true' <<< "$got" || fail "GET /api/status with the token on the guest: ${got:0:300}"
    # The port (issue #42).
    [ "$(systemctl is-enabled alarm-web.socket 2>&1)" = enabled ] || fail "enabling alarm-web did not enable alarm-web.socket: $(systemctl is-enabled alarm-web.socket 2>&1)"
    journalctl --no-pager -u alarm-web | grep -q "serving on the sockets systemd passed: \[::\]:8475 (IPv4 too)" ||
        fail "alarm-web does not serve the socket systemd passed: $(journalctl --no-pager -u alarm-web | tail -3)"
    check_port() { # check_port WHEN: the token works over both families
        local address answer
        for address in 127.0.0.1 ::1; do
            answer=$(web_get /api/status "$(cat "$token")" "$address")
            [ "${answer%% *}" = 200 ] || fail "$1: GET /api/status with the token over $address: ${answer:0:200}"
        done
    }
    steal_port "alarm-web running"
    systemctl restart alarm-web &
    local restart=$!
    steal_port "during systemctl restart alarm-web"
    wait "$restart" || fail "systemctl restart alarm-web failed"
    steal_port "after systemctl restart"
    check_port "after systemctl restart"
    local pid
    pid=$(systemctl show -p MainPID --value alarm-web)
    kill -9 "$pid"
    for i in $(seq 50); do [ "$(systemctl show -p MainPID --value alarm-web)" != "$pid" ] && break; sleep 0.1; done
    note "alarm-web killed: $(systemctl show -p ActiveState -p SubState alarm-web | tr '\n' ' ')"
    steal_port "alarm-web killed, before systemd starts it again"
    for i in $(seq 150); do systemctl is-active --quiet alarm-web && break; sleep 0.2; done
    systemctl is-active --quiet alarm-web || fail "alarm-web did not come back within 30 s of kill -9"
    steal_port "after kill -9 and restart"
    check_port "after kill -9 and restart"
    note "the port: $(grep -c refused "$D/steal.out") binds by outsider refused, $(grep -c 'bound$' "$D/steal.out") taken"
    # From the host, through the forwarded port.
    cp "$token" "$D/web-ready.tmp" && mv "$D/web-ready.tmp" "$D/web-ready"
    ev host-wait
    for i in $(seq 600); do [ -f "$D/host-results.txt" ] && break; sleep 0.2; done
    ev host-done
    if [ ! -f "$D/host-results.txt" ]; then
        fail "the host did not reach alarm-web through the forwarded port within 120 s"
    else
        # One line per request: NAME STATUS BODY (web_host.py).
        local name status text
        while read -r name status text; do
            case "$name" in
            page) want=200 body=signin-form ;;
            no_token) want=401 body='"error"' ;;
            wrong_token) want=401 body="wrong token" ;;
            status) want=200 body='"running" : true' ;;
            add) want=201 body="Mon..Fri *-*-* 06:30:00" ;;
            alarms) want=200 body=from-host ;;
            *) continue ;;
            esac
            echo "$name $status" >> "$D/host-check.out"
            [ "$status" = "$want" ] && grep -qF -- "$body" <<< "$text" || fail "from the host: $name answered $status ${text:0:200} (wanted $want with $body)"
        done < "$D/host-results.txt"
        [ "$(wc -l < "$D/host-check.out")" -eq 6 ] || fail "from the host: not every request was answered: $(cat "$D/host-results.txt")"
        note "from the host: $(tr '\n' ',' < "$D/host-check.out" 2> /dev/null)"
    fi
    run_alarm member list list --json
    grep -q '"id" : "from-host"' "$D/list.out" || fail "the alarm the host added through alarm-web is not in alarm list --json"
    journalctl --no-pager -u alarm-web > "$D/web-journal.txt" 2>&1
    grep -q "listening on" "$D/web-journal.txt" || fail "alarm-web's journal does not say where it listens"
    grep -qF "$(cat "$token")" "$D/web-journal.txt" && fail "the token is in alarm-web's journal"
    journal_since "$(cat "$D/t0")" | grep -qF "$(cat "$token")" && fail "the token is in the journal"
    run_alarm member remove remove from-host
    systemctl disable --now alarm-web alarm-web.socket > /dev/null 2>&1
    sed -i '/^web_listen = 0.0.0.0:8475$/d' /etc/alarm/alarm.conf
}

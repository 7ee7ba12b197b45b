# The Raspberry Pi guide, true on trixie (issue #30): its commands, as the installed guide
# (/usr/share/doc/alarm/raspberry-pi.md) prints them, run by a Pi owner's account ("owner", with
# sudo, in groups audio and adm as Raspberry Pi OS's first user is) in the arm64 trixie guest, and what
# their comments promise checked. Each command is looked up in the guide verbatim (its comment
# stripped) before it runs, and at the end every command of every sh block must have been run or
# excused here with the reason: a guide edit that changes, adds or drops a command changes this
# scenario's result. Where the guest differs, a word is substituted and said (the card: Loopback
# for the guide's Device and sndrpihifiberry; the repository's address: the host's server, which
# qemu's user network shows the guest as 10.0.2.2; wget: busybox's, as the guest has no wget).
# The key's fingerprint the guide has the owner compare is the one the host read from the key it
# serves (apt-key-fpr in the share, as scripts/release prints it).
# Section 1 installs from the apt repository the host serves (system-test/apt_host.py, release 2,
# the newest): the package the earlier scenarios installed is purged first, as on a fresh Pi.
GUIDE=/usr/share/doc/alarm/raspberry-pi.md
GN=0
# g [-s FROM TO]... [-e REGEX]... [-d DIR] [-i ANSWER] [-r] -- COMMAND: COMMAND must be a command
# line of the guide; it runs (each FROM replaced by its TO) as owner in a fresh login-like process (groups
# as at a new login), in DIR, with ANSWER as its input (apt's question; else nothing); it must exit 0 (-r: 0 or 1) and its output match every REGEX (grep -E).
g() {
    local subs=() dir=/home/owner rc1=0 res=() input=""
    while [ "$1" != -- ]; do
        case "$1" in
        -i) input=$2; shift 2 ;;
        -s) subs+=("$2" "$3"); shift 3 ;;
        -e) res+=("$2"); shift 2 ;;
        -d) dir=$2; shift 2 ;;
        -r) rc1=1; shift ;;
        esac
    done
    shift
    local cmd=$1 run=$1
    GN=$((GN + 1))
    grep -qxF -- "$cmd" "$D/guide-commands" || { fail "not a command of the guide (verbatim): $cmd"; return 1; }
    echo "$cmd" >> "$D/guide-ran"
    local k
    for ((k = 0; k < ${#subs[@]}; k += 2)); do run=${run//"${subs[k]}"/"${subs[k + 1]}"}; done
    ((${#subs[@]} == 0)) || note "guide: read as ($(for ((k = 0; k < ${#subs[@]}; k += 2)); do printf "'%s' -> '%s'; " "${subs[k]}" "${subs[k + 1]}"; done)) here: $run"
    local out="$D/g-$GN.out" rc=0
    (cd "$dir" && runuser -u owner -- env -i HOME=/home/owner USER=owner LOGNAME=owner SHELL=/bin/bash \
        PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin XDG_RUNTIME_DIR="/run/user/$(id -u owner)" \
        bash -c "$run") < <(printf '%s' "$input") > "$out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] && ! { [ "$rc1" = 1 ] && [ "$rc" = 1 ]; }; then
        fail "guide: '$run' exited $rc: $(tail -3 "$out" | tr '\n' ' ' | cut -c1-300)"
        return 1
    fi
    local re
    for re in "${res[@]}"; do
        grep -Eq -- "$re" "$out" && continue
        fail "guide: '$run' did not print what the guide says (/$re/): $(tail -3 "$out" | tr '\n' ' ' | cut -c1-300)"
        return 1
    done
    return 0
}
# excuse COMMAND WHY: a command of the guide not run here, and why (a note).
excuse() {
    grep -qxF -- "$1" "$D/guide-commands" || { fail "excused, but not a command of the guide: $1"; return; }
    echo "$1" >> "$D/guide-excused"
    note "guide, not run: $1 ($2)"
}
as_root_active() { # as_root_active UNIT WHAT: UNIT is active, else a failure naming WHAT
    [ "$(systemctl is-active "$1")" = active ] || fail "$1 is not active after $2: $(journalctl --no-pager -u "$1" -n 3 | tr '\n' ' ' | cut -c1-300)"
}
sc_guide() {
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    [ "$codename" = trixie ] || { notpossible "the Pi guide is for trixie; this guest is $codename (the arm64 guest runs it)"; return; }
    [ -f "$GUIDE" ] || { fail "no $GUIDE (the guide is not installed)"; return; }
    command -v sudo > /dev/null || { fail "no sudo in the guest image"; return; }
    # Every command line of the guide's sh blocks, its comment stripped.
    awk '/^```sh$/ { f = 1; next } /^```/ { f = 0 } f' "$GUIDE" | sed -e 's/[[:space:]]\+#.*$//' -e 's/[[:space:]]*$//' |
        grep -v -e '^#' -e '^$' | sort -u > "$D/guide-commands"
    : > "$D/guide-ran"
    : > "$D/guide-excused"
    # The owner, as Raspberry Pi OS makes its first user: sudo without a password, groups audio
    # (alarm play) and adm (journalctl).
    id owner > /dev/null 2>&1 || useradd -m -s /bin/bash -G audio,adm owner
    echo 'owner ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/owner
    cp /etc/alarm/alarm.conf "$D/alarm.conf.orig"
    # No alarm of an earlier scenario in the way of "next wake".
    local id
    for id in $(alarm list --json 2> /dev/null | python3 -c 'import json, sys; print(" ".join(a["id"] for a in json.load(sys.stdin)))'); do
        alarm remove "$id" > /dev/null 2>&1
    done
    local deb
    deb=$(cd "$H" && ls alarm_*_arm64.deb 2> /dev/null)

    # 1. Install the package: from the repository the host serves, as a fresh Pi.
    g -e '^aarch64$' -- 'uname -m'
    g -e '^trixie$' -- '. /etc/os-release && echo "$VERSION_CODENAME"'
    [ -f "$H/apt-port" ] || { fail "the host serves no apt repository to this guest (no $H/apt-port)"; return; }
    local url v2 repo=()
    url=$(apt_url)/apt v2=$(cat "$H/apt-release-2")
    apt_publish 2 || return
    user_net || return
    apt_sources_aside
    DEBIAN_FRONTEND=noninteractive apt-get purge -y alarm alarm-web > "$D/purge.out" 2>&1 || fail "apt-get purge alarm alarm-web failed: $(tail -2 "$D/purge.out")"
    rm -f /etc/apt/sources.list.d/alarm.sources /etc/apt/keyrings/alarm-archive-keyring.gpg
    note "a fresh Pi: the package of the earlier scenarios purged, the repository's source and key removed; the repository is $url (release 2, $v2)"
    repo=(-s 'http://192.168.1.10:8080' "$url" -s 'wget -qO' 'busybox wget -qO')
    excuse 'python3 -m http.server -d out/apt 8080' "the owner's machine serves out/apt: here the host serves the releases scripts/release wrote (system-test/apt_host.py)"
    local fpr
    fpr=$(cat "$H/apt-key-fpr" 2> /dev/null)
    [[ "$fpr" =~ ^[0-9A-F]{40}$ ]] || { fail "the host gave no fingerprint of the repository's key (apt-key-fpr: '$fpr')"; return; }
    rm -f /home/owner/alarm-archive-keyring.gpg
    g "${repo[@]}" -- 'wget -qO alarm-archive-keyring.gpg http://192.168.1.10:8080/alarm-archive-keyring.gpg'
    # What the owner compares: the fingerprint on its own line under "pub", all 40 characters.
    g -e "^ +$fpr\$" -- 'gpg --show-keys alarm-archive-keyring.gpg'
    g -- 'sudo install -m 644 alarm-archive-keyring.gpg /etc/apt/keyrings/'
    [ "$(stat -c '%a %U' /etc/apt/keyrings/alarm-archive-keyring.gpg 2>&1)" = "644 root" ] ||
        fail "the key the guide installs is not root's, mode 644: $(stat -c '%a %U' /etc/apt/keyrings/alarm-archive-keyring.gpg 2>&1)"
    g "${repo[@]}" -e '^Signed-By: /etc/apt/keyrings/alarm-archive-keyring.gpg$' -- "printf 'Types: deb\\nURIs: http://192.168.1.10:8080/\\nSuites: stable\\nComponents: main\\nSigned-By: /etc/apt/keyrings/alarm-archive-keyring.gpg\\n' | sudo tee /etc/apt/sources.list.d/alarm.sources"
    g -e "${url//./\\.}/? stable InRelease" -- 'sudo apt update'
    grep -E '^(W|E):' "$D/g-$GN.out" && fail "sudo apt update warned or failed: $(grep -E '^(W|E):' "$D/g-$GN.out" | head -3 | tr '\n' ' ')"
    g -i $'y\n' -- 'sudo apt install alarm'
    [ "$(dpkg-query -W -f='${Version}' alarm 2>&1)" = "$v2" ] || fail "the guide's apt install alarm installed $(dpkg-query -W -f='${Version}' alarm 2>&1), not the repository's $v2"
    as_root_active alarmd "the guide's apt install alarm"
    g -i $'y\n' -- 'sudo apt update && sudo apt upgrade'
    [ "$(dpkg-query -W -f='${Version}' alarm 2>&1)" = "$v2" ] || fail "the guide's apt upgrade, with nothing newer published, changed alarm to $(dpkg-query -W -f='${Version}' alarm 2>&1)"
    for i in $(seq 100); do [ -p /run/alarm/control ] && break; sleep 0.1; done
    g -- 'sudo usermod -aG alarm "$USER"'
    g -- 'newgrp alarm'
    g -- "alarm add 'Mon..Fri 06:30' --id wake --label 'work days'"
    g -e '^idle: next wake at ... 06:30 \(in ' -- 'alarm status'
    g -e 'Status: "next: wake at' -- 'systemctl status alarmd'

    # 3. The sound device, the volume floor, a board without a mixer.
    g -e 'Loopback' -- 'alarm devices'
    g -s CARD=Device CARD=Loopback -- "echo 'device = plughw:CARD=Device,DEV=0' | sudo tee /etc/alarm/alarm.conf.d/50-device.conf"
    g -- 'sudo systemctl restart alarmd'
    as_root_active alarmd "the device was set and alarmd restarted"
    # The drop-in, not the package's conffile, holds it; alarm config says so.
    cmp -s /etc/alarm/alarm.conf "$D/alarm.conf.orig" || fail "the guide's settings changed /etc/alarm/alarm.conf, the package's conffile"
    g -e '^device = plughw:CARD=Loopback,DEV=0 +# /etc/alarm/alarm\.conf\.d/50-device\.conf:1$' -e '^snooze = 9m +# default$' -- 'alarm config'
    alarm devices > "$D/devices-after.out" 2>&1
    grep -q 'plughw:CARD=Loopback,DEV=0' "$D/devices-after.out" || fail "alarm devices does not show the device set as the guide says: $(head -3 "$D/devices-after.out")"
    g -- "printf 'mixer_floor = 70\\nmixer_control = Speaker\\n' | sudo tee /etc/alarm/alarm.conf.d/50-mixer.conf"
    g -- 'sudo systemctl reload alarmd'
    as_root_active alarmd "mixer_floor and a mixer_control this card lacks (Speaker), reloaded"
    g -- "echo 'volume = 40' | sudo tee /etc/alarm/alarm.conf.d/50-volume.conf"
    g -- 'sudo systemctl reload alarmd'
    as_root_active alarmd "volume = 40, reloaded"
    g -s CARD=sndrpihifiberry CARD=Loopback -- 'alarm play chime.flac --device plughw:CARD=sndrpihifiberry,DEV=0 --volume 40'

    # 4. alarm check, play and ring.
    g -e 'chime\.flac' -e 'beacon\.flac' -- 'alarm sounds'
    g -s CARD=Device CARD=Loopback -- 'alarm play chime.flac --device plughw:CARD=Device,DEV=0'
    g -s CARD=Device CARD=Loopback -- 'alarm play beacon.flac --device plughw:CARD=Device,DEV=0 --volume 60'
    g -s CARD=Device CARD=Loopback -- 'alarm play --default --device plughw:CARD=Device,DEV=0'
    g -e 'chime' -- 'alarm ring --sound chime.flac'
    g -- 'alarm stop'
    g -e 'chime\.flac' -- 'alarm history --last 1'

    # 5. A snooze button: the gpio-key overlay's device found with no setting. qemu's arm64 virt
    # machine has a gpio-keys device of its own whose only key is KEY_POWER, as a Pi 5's power
    # button: passed over (issue #41). The overlay's button@11 (gpio-keys/input0, BTN_0, as the
    # guide's dtoverlay line makes it) is made through uinput. Then a USB button by name; the
    # service and its journal.
    local overlay_cmd=/run/alarm-test-guide-overlay.cmd overlay_maker=""
    if modprobe uinput 2> /dev/null; then
        rm -f "$overlay_cmd" && mkfifo "$overlay_cmd"
        python3 "$H/uinput.py" --phys gpio-keys/input0 button@11 256 < "$overlay_cmd" > "$D/uinput-overlay.out" 2>&1 &
        overlay_maker=$!
        exec 6> "$overlay_cmd"
        wait_for 20 grep -q '^ready' "$D/uinput-overlay.out" || fail "uinput.py made no button@11: $(cat "$D/uinput-overlay.out")"
        g -e 'button \(alarm-button\): /dev/input/event[0-9]+ "button@11", by the gpio-keys device' -- 'alarm devices'
        if grep -q 'B: KEY=10000000000000 0' /proc/bus/input/devices; then
            grep -q 'passed over /dev/input/event[0-9]* ".*": its only key is KEY_POWER' "$D/g-$GN.out" ||
                fail "alarm devices does not say the virt machine's power button is passed over: $(grep 'button (alarm-button)' "$D/g-$GN.out" | tr '\n' ' ')"
        fi
    else
        note "no uinput in this guest: the overlay's button@11 cannot be made, 'alarm devices' is not checked"
    fi
    g -- "printf 'button_device = Logitech USB Receiver\\nbutton_keys = KEY_PAGEDOWN, KEY_ENTER\\n' | sudo tee /etc/alarm/alarm.conf.d/50-button.conf"
    local t0=$EPOCHREALTIME
    g -- 'sudo systemctl enable --now alarm-button'
    as_root_active alarm-button "enable --now"
    wait_for 20 bash -c "journalctl --no-pager -u alarm-button --since @${t0%.*} | grep -q \"no input device named 'Logitech USB Receiver'; waiting for it\"" ||
        fail "alarm-button with the guide's USB receiver absent does not say it waits for it: $(journalctl --no-pager -u alarm-button -n 3 | tr '\n' ' ')"
    # Without those two lines, the guide's gpio-keys default (the overlay's device).
    rm -f /etc/alarm/alarm.conf.d/50-button.conf
    if [ -n "$overlay_maker" ]; then
        systemctl restart alarm-button
        wait_for 20 bash -c "journalctl --no-pager -u alarm-button -b | grep -q 'using /dev/input/event[0-9]* (\"button@11\"'" || true
        g -e 'using /dev/input/event[0-9]+ \("button@11", gpio-keys/input0\)' -- 'journalctl -u alarm-button -b'
    else
        g -e 'waiting for it' -- 'journalctl -u alarm-button -b'
    fi
    systemctl disable --now alarm-button > /dev/null 2>&1
    if [ -n "$overlay_maker" ]; then
        exec 6>&-
        wait "$overlay_maker" 2> /dev/null
        rm -f "$overlay_cmd"
    fi

    # 5a. Hooks.
    g -- 'sudo systemctl enable --now alarm-hooks'
    as_root_active alarm-hooks "enable --now"
    g -e 'alarm-hooks' -- 'alarm ring; alarm stop; journalctl -u alarm-hooks'
    systemctl disable --now alarm-hooks > /dev/null 2>&1

    # 6. A real-time clock: the virt machine's PL031 is /dev/rtc0; fake-hwclock as Pi OS has it.
    excuse 'sudo reboot' "the reboot scenario reboots the guest; here it would end the scenario"
    g -e '^/dev/rtc0' -e '[0-9]{4}-[0-9]{2}-[0-9]{2}' -- 'ls /dev/rtc0 && sudo hwclock -r'
    if dpkg-query -W -f='${Status}' fake-hwclock 2> /dev/null | grep -q 'install ok installed'; then
        g -i $'y\n' -- 'sudo apt purge fake-hwclock'
        dpkg-query -W -f='${Status}' fake-hwclock 2> /dev/null | grep -q 'install ok installed' && fail "fake-hwclock is still installed after the guide's purge"
    else
        excuse 'sudo apt purge fake-hwclock' "fake-hwclock is not in this guest image"
    fi
    g -e 'RTC time: ' -- 'timedatectl'
    g -- 'sudo hwclock -w'

    # 7. When something went wrong.
    g -e 'Active: active \(running\)' -- 'systemctl status alarmd'
    g -e 'next wake at' -- 'alarm status'
    g -e '^wake in [0-9]' -- 'alarm next'
    g -r -- 'journalctl -u alarmd -b'
    g -r -- 'journalctl -u alarmd -p warning'
    g -r -- 'journalctl -u alarmd --since yesterday'
    excuse 'journalctl -u alarmd -f' "follows for ever; -b and --since read the same journal"
    g -e 'chime' -- 'alarm history'
    g -e '"outcome"' -- 'alarm history --json --last 5'

    # 8. alarm-web from the repository, listening, its URL and token.
    g -i $'y\n' -- 'sudo apt install alarm-web'
    [ "$(dpkg-query -W -f='${Version}' alarm-web 2>&1)" = "$v2" ] || fail "the guide's apt install alarm-web installed $(dpkg-query -W -f='${Version}' alarm-web 2>&1), not $v2"
    g -- "echo 'web_listen = 0.0.0.0:8475' | sudo tee /etc/alarm/alarm.conf.d/50-web.conf"
    g -- 'sudo systemctl enable --now alarm-web'
    as_root_active alarm-web "enable --now with web_listen = 0.0.0.0:8475"
    g -e '^http://[^ ]+:8475/' -- 'alarm web-url'
    g -e '^[A-Za-z0-9_+/=-]{16,}$' -- 'alarm web-token'
    systemctl disable --now alarm-web > /dev/null 2>&1

    # 9. The user service, in owner's own manager (lingering: as while logged in).
    cp /etc/alarm/alarm.conf "$D/alarm.conf.guide"
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    rm -f /etc/alarm/alarm.conf.d/50-*.conf
    loginctl enable-linger owner
    wait_for 30 test -S "/run/user/$(id -u owner)/bus" || fail "no user bus for owner after loginctl enable-linger (dbus-user-session)"
    g -- 'sudo systemctl disable --now alarmd'
    g -- 'systemctl --user enable --now alarmd'
    g -- 'export ALARM_STATE_DIR="$HOME/.local/state/alarm" ALARM_RUNTIME_DIR="$XDG_RUNTIME_DIR/alarm"'
    runuser -u owner -- env XDG_RUNTIME_DIR="/run/user/$(id -u owner)" HOME=/home/owner bash -c \
        'export ALARM_STATE_DIR="$HOME/.local/state/alarm" ALARM_RUNTIME_DIR="$XDG_RUNTIME_DIR/alarm"; systemctl --user is-active alarmd && alarm add 07:15 --id user-wake && alarm status' \
        > "$D/user.out" 2>&1 || fail "the user alarmd does not answer with the guide's exports: $(tail -3 "$D/user.out" | tr '\n' ' ')"
    grep -q 'user-wake' "$D/user.out" || fail "the user alarmd's status does not show its own alarm: $(tail -2 "$D/user.out" | tr '\n' ' ')"
    [ -f /home/owner/.local/state/alarm/alarms.json ] || fail "the user alarmd keeps no alarms in ~/.local/state/alarm (%S)"
    runuser -u owner -- env XDG_RUNTIME_DIR="/run/user/$(id -u owner)" systemctl --user disable --now alarmd > /dev/null 2>&1
    loginctl disable-linger owner
    systemctl enable --now alarmd > /dev/null 2>&1
    as_root_active alarmd "the system service enabled again"

    # 10, 11. Uninstall and a build from source: the install scenario removes, purges and
    # reinstalls the package; CI builds from source on the host (natively and cross for arm64).
    excuse 'sudo scripts/uninstall' "a source install's; this guest has the package (CI's check-packaging runs scripts/install and scripts/uninstall into temporary roots)"
    excuse 'sudo scripts/uninstall --purge' "as above"
    excuse 'scripts/build-deb --arch arm64' "needs the source and Swift: CI's arm64-package step runs it on the host"
    excuse 'ALARM_RELEASE_KEY=0123456789ABCDEF0123456789ABCDEF01234567 scripts/release 0.2.0' "the maintainers' release: the host ran scripts/release (a throwaway key) for the repository section 1 installed from"
    excuse 'scripts/deps' "needs the source and network: CI runs it on the host"
    excuse 'swift --version' "no Swift in the guest (a native build under emulation would take hours)"
    excuse 'SWIFT_BUILD_ARGS="-j 1" scripts/install' "a build from source: as above"
    # The swap file for a build: 2G where the guest's disk has room, else a smaller one (said).
    local size=2G
    [ "$(df --output=avail -k /var/tmp | tail -1)" -gt 2621440 ] || size=256M
    local sub=()
    [ "$size" = 2G ] || sub=(-s 2G "$size")
    g "${sub[@]}" -- 'sudo fallocate -l 2G /var/tmp/build.swap && sudo chmod 600 /var/tmp/build.swap'
    g -- 'sudo mkswap /var/tmp/build.swap && sudo swapon /var/tmp/build.swap'
    g -e "^/var/tmp/build.swap +file +$size" -- 'swapon --show'
    g -- 'sudo swapoff /var/tmp/build.swap && sudo rm /var/tmp/build.swap'
    [ ! -e /var/tmp/build.swap ] || fail "the guide's swap file is still there after its last command"

    # 10. Removed with apt: alarmd gone, the alarms kept; then installed again offline, from the
    # .deb files (section 1's and 8's offline lines; alarm-web went with alarm, which it depends on).
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    rm -f /etc/alarm/alarm.conf.d/50-*.conf
    g -i $'y\n' -- 'sudo apt remove alarm'
    [ "$(dpkg-query -W -f='${Status}' alarm 2> /dev/null)" != "install ok installed" ] || fail "alarm is still installed after the guide's apt remove"
    systemctl is-active --quiet alarmd && fail "alarmd still runs after apt remove alarm"
    [ -f /var/lib/alarm/alarms.json ] || fail "apt remove alarm deleted /var/lib/alarm/alarms.json (only purge may)"
    if [ -n "$deb" ]; then
        g -d "$H" -- 'sudo apt install ./alarm_*_arm64.deb'
        # (alarm-web's offline line is a comment of section 8.)
        (cd "$H" && DEBIAN_FRONTEND=noninteractive apt-get install -y ./alarm-web_*_arm64.deb) > "$D/reinstall-web.out" 2>&1 || fail "alarm-web did not install again: $(tail -2 "$D/reinstall-web.out")"
        as_root_active alarmd "apt install after apt remove"
        alarm list 2> /dev/null | grep -q wake || fail "the alarm 'wake' is not there after apt remove and install"
    else
        excuse 'sudo apt install ./alarm_*_arm64.deb' "no arm64 package in this guest's share"
    fi

    # Every command of the guide was run or excused.
    local missing
    missing=$(sort -u "$D/guide-ran" "$D/guide-excused" | comm -23 "$D/guide-commands" -)
    [ -z "$missing" ] || fail "commands of the guide neither run nor excused: $(echo "$missing" | paste -sd'|')"
    note "guide: $(sort -u "$D/guide-ran" | wc -l) of its $(wc -l < "$D/guide-commands") commands run as owner, $(sort -u "$D/guide-excused" | wc -l) excused"
    cp "$D/alarm.conf.orig" /etc/alarm/alarm.conf
    rm -f /etc/alarm/alarm.conf.d/50-*.conf
    systemctl restart alarmd
    alarm remove wake > /dev/null 2>&1
    apt_sources_back
}

# Root for the scripts that need it (scripts/test, system-test, test-arm64, release, install,
# build-deb --arch arm64), asked for by the script itself (issue #41). Sourced; then
#
#   alarm_become_root "$@"
#
# returns at once as root; otherwise runs the script again under sudo and exits with its status.
# `sudo scripts/test` loses the caller's PATH (sudo sets its secure_path), and with it a Swift
# installed where swift.org's tarball or swiftly puts it: so the script asks sudo itself, with
# the caller's PATH, the Swift toolchain's own bin directory first (a swiftly proxy reads its
# configuration from the caller's home, which sudo changes: the toolchain's swift does not), and
# the environment the scripts read (ALARM_*, SYSTEM_TEST_*, GNUPGHOME, ...). Files the run makes
# in the checkout (.build, out, ...) are given back to the caller at the end, so that their next
# `swift build` is not refused.
#
# ALARM_ROOT_PROBE=1: as root, make .build/alarm-root-probe in the checkout, print who runs and
# which swift it finds, and exit 0 (the first-command check, scripts/check-first-command).
# shellcheck shell=bash

# The bin directory of the toolchain `swift` on PATH belongs to (from its own
# -print-target-info), or nothing.
alarm_swift_bin() {
    local resources
    command -v swift > /dev/null || return 0
    resources=$(swift -print-target-info 2> /dev/null | sed -n 's/.*"runtimeResourcePath": *"\(.*\)".*/\1/p' | head -1)
    [ -n "$resources" ] && [ -x "$resources/../../bin/swift" ] && (cd "$resources/../../bin" && pwd)
    return 0
}

alarm_become_root() {
    local me path bin v vars=() status=0 give_back
    me=$(basename "$0")
    if [ "$(id -u)" -eq 0 ]; then
        if [ "${ALARM_ROOT_PROBE:-}" = 1 ]; then
            mkdir -p "$(dirname "$0")/../.build" && touch "$(dirname "$0")/../.build/alarm-root-probe"
            echo "$me: uid $(id -u), swift $(command -v swift || echo none): $(swift --version 2> /dev/null | head -1)"
            exit 0
        fi
        return 0
    fi
    command -v sudo > /dev/null || { echo "$me: needs root, and sudo is not installed: run it as root" >&2; exit 1; }
    path=$PATH
    bin=$(alarm_swift_bin)
    [ -z "$bin" ] || path=$bin:$path
    for v in $(compgen -e); do
        case "$v" in
        ALARM_* | SYSTEM_TEST_* | ARM64_SCENARIOS | KEEP | CI | GNUPGHOME | DEB_COMPRESSION | SWIFT_BUILD_ARGS | \
            DESTDIR | PREFIX | SYSCONFDIR | STATEDIR | SWIFTLY_* | http_proxy | https_proxy | no_proxy)
            vars+=("$v=${!v}") ;;
        esac
    done
    # What root's run may leave root-owned that is yours: the checkout, and a GNUPGHOME of yours
    # (scripts/release signs with your key).
    give_back=$(cd "$(dirname "$0")/.." && pwd)
    if [ -n "${GNUPGHOME:-}" ] && [ -O "$GNUPGHOME" ]; then give_back+=:$GNUPGHOME; fi
    echo "$me: needs root: sudo, keeping your PATH (swift: ${bin:-not found})" >&2
    # One sudo: the script, then (as root, still) the new root-owned files given back.
    sudo env PATH="$path" "${vars[@]}" ALARM_GIVE_BACK_TO="$(id -u):$(id -g)" ALARM_GIVE_BACK="$give_back" \
        bash -c 'bash "$0" "$@"; s=$?; IFS=: read -ra d <<< "$ALARM_GIVE_BACK"; chown -R --from=0:0 "$ALARM_GIVE_BACK_TO" "${d[@]}" 2> /dev/null; exit $s' \
        "$0" "$@" || status=$?
    exit "$status"
}

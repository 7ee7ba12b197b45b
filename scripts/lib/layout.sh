# Where alarm's files go: sourced by scripts/install, scripts/uninstall, scripts/build-deb and
# their tests, so the three always agree. Honours DESTDIR (a staging root, default none),
# PREFIX (default /usr) and SYSCONFDIR (default /etc).
# shellcheck shell=bash

DESTDIR=${DESTDIR:-}
DESTDIR=${DESTDIR%/}
PREFIX=${PREFIX:-/usr}
PREFIX=${PREFIX%/}
SYSCONFDIR=${SYSCONFDIR:-/etc}
STATEDIR=${STATEDIR:-/var/lib/alarm}

BINDIR=$PREFIX/bin
DATADIR=$PREFIX/share/alarm
SOUNDSDIR=$DATADIR/sounds
LIBEXECDIR=$PREFIX/lib/alarm
UNITDIR=$PREFIX/lib/systemd/system
USERUNITDIR=$PREFIX/lib/systemd/user
SYSUSERSDIR=$PREFIX/lib/sysusers.d
DOCDIR=$PREFIX/share/doc/alarm
BASHCOMPDIR=$PREFIX/share/bash-completion/completions
FISHCOMPDIR=$PREFIX/share/fish/vendor_completions.d
MANDIR=$PREFIX/share/man
# Debian's zsh searches vendor-completions under /usr, site-functions under /usr/local.
if [ "$PREFIX" = /usr ]; then ZSHCOMPDIR=$PREFIX/share/zsh/vendor-completions; else ZSHCOMPDIR=$PREFIX/share/zsh/site-functions; fi
CONFFILE=$SYSCONFDIR/alarm/alarm.conf
# alarm-web's access token: made at install when missing (0640 root:alarm), never shipped.
WEBTOKEN=$SYSCONFDIR/alarm/web-token
# Every installed file is listed here, so that uninstall removes exactly what install wrote
# even if the checkout has changed since.
MANIFEST=$DATADIR/installed-files

# The files install writes (absolute paths without DESTDIR), except the config file, which is
# only created when absent and only removed when unchanged or on --purge. (The hooks directory
# $SYSCONFDIR/alarm/hooks.d and the drop-in directory alarm.conf.d are made empty and removed
# when empty.)
alarm_files() {
    local repo=$1 s
    printf '%s\n' "$BINDIR/alarm" "$BINDIR/alarmd" "$BINDIR/alarm-hooks" "$BINDIR/alarm-button" "$LIBEXECDIR/alarm-mqtt" \
        "$UNITDIR/alarmd.service" "$UNITDIR/alarm-button.service" "$UNITDIR/alarm-hooks.service" \
        "$UNITDIR/alarm-mqtt.service" "$USERUNITDIR/alarmd.service" \
        "$SYSUSERSDIR/alarm.conf" \
        "$DOCDIR/alarm.conf.example" "$DOCDIR/mqtt.conf.example" \
        "$BASHCOMPDIR/alarm" "$ZSHCOMPDIR/_alarm" "$FISHCOMPDIR/alarm.fish" \
        "$MANDIR/man1/alarm.1" "$MANDIR/man8/alarmd.8" "$MANDIR/man8/alarm-hooks.8" "$MANDIR/man8/alarm-button.8" \
        "$MANDIR/man5/alarm.conf.5"
    local doc
    for doc in $(alarm_docs); do printf '%s\n' "$DOCDIR/${doc##*/}"; done
    [ "${ALARM_WEB:-1}" -eq 0 ] || alarm_web_files
    alarm_stream_files
    for s in "$repo"/Sounds/*; do
        [ -f "$s" ] && printf '%s\n' "$SOUNDSDIR/${s##*/}"
    done
    printf '%s\n' "$MANIFEST"
}

# The user documentation, installed flat into $DOCDIR with its links made true there
# (scripts/lib/install-docs.py): paths in the repository.
alarm_docs() {
    printf '%s\n' README.md CHANGELOG.md docs/raspberry-pi.md docs/using.md docs/configuration.md docs/calendar.md \
        docs/sounds.md docs/events.md docs/alarm-web.md
}

# alarm-web's files: scripts/build-deb moves them into the package alarm-web.
alarm_web_files() {
    printf '%s\n' "$BINDIR/alarm-web" "$UNITDIR/alarm-web.service" "$UNITDIR/alarm-web.socket" "$MANDIR/man8/alarm-web.8"
}

# alarm-stream's files (issue #43): scripts/build-deb moves them into the package alarm-stream.
alarm_stream_files() {
    printf '%s\n' "$BINDIR/alarm-stream" "$UNITDIR/alarm-stream.socket" "$UNITDIR/alarm-stream@.service" \
        "$MANDIR/man8/alarm-stream.8"
}

# Directories that belong to alarm alone: removed by uninstall once empty.
alarm_dirs() {
    printf '%s\n' "$SOUNDSDIR" "$DATADIR" "$LIBEXECDIR" "$DOCDIR" "$SYSCONFDIR/alarm/hooks.d" "$SYSCONFDIR/alarm/alarm.conf.d" "$SYSCONFDIR/alarm"
}

# Units, scripts and the config example name /usr paths; rewrites them for another PREFIX.
alarm_subst() {
    sed -e "s|/usr/bin/alarmd|$BINDIR/alarmd|g" -e "s|/usr/bin/alarm-hooks|$BINDIR/alarm-hooks|g" -e "s|/usr/bin/alarm-button|$BINDIR/alarm-button|g" -e "s|/usr/bin/alarm-web|$BINDIR/alarm-web|g" -e "s|/usr/bin/alarm-stream|$BINDIR/alarm-stream|g" -e "s|/usr/lib/alarm/|$LIBEXECDIR/|g" \
        -e "s|/usr/share/doc/alarm/|$DOCDIR/|g" -e "s|/usr/share/alarm/sounds|$SOUNDSDIR|g" "$1"
}

# True when installing into the running system (no staging root): only then are systemd,
# users and groups touched.
alarm_live() { [ -z "$DESTDIR" ]; }

# True when systemd is the running init (not in a container or chroot without it).
alarm_systemd_running() { [ -d /run/systemd/system ]; }

# The version of what is built: VERSION (or ALARM_VERSION) when set, else 0.1.0+git<commits>.<hash>
# of the checkout, else 0.1.0. Package.swift compiles ALARM_VERSION into `--version`.
alarm_version() {
    local repo
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    if [ -n "${VERSION:-}" ]; then
        echo "$VERSION"
    elif [ -n "${ALARM_VERSION:-}" ]; then
        echo "$ALARM_VERSION"
    elif git -C "$repo" rev-parse --git-dir > /dev/null 2>&1; then
        echo "0.1.0+git$(git -C "$repo" rev-list --count HEAD).$(git -C "$repo" rev-parse --short HEAD)"
    else
        echo 0.1.0
    fi
}

# The release binaries' link (issue #32: the core package within 16 MiB): lld, and relative
# relocations packed (DT_RELR, glibc 2.36 or later: bookworm and trixie): a position-independent
# executable's 44,000 relative relocations take 9 KB instead of 1 MB. lld is the toolchain's
# (swift.org's ships ld.lld beside swift; Debian's swiftlang needs the package lld); without it the
# default linker links as before. And no dynamic symbol table of our own: --static-swift-stdlib
# exports every public symbol of our modules (the toolchain's static-stdlib-args.lnk says
# -export-dynamic), 5,700 names (450 KB) that nothing looks up: the binaries load no plugin that
# calls back into them (dlsym is only called on libjack). Crash backtraces of the stripped binary
# show addresses instead of those names. With them the compile flags of release_swift_flags
# (below). Prints swift build arguments, one per line.
release_link_args() {
    local swift_bin
    release_swift_flags
    swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
    if [ -x "$swift_bin/ld.lld" ] || command -v ld.lld > /dev/null; then
        printf '%s\n' -Xswiftc -use-ld=lld
        release_lld_flags
    else
        printf '%s\n' -Xlinker --no-export-dynamic
    fi
}
# release_lld_flags: the linker flags above, for a link by lld (the native release with lld, and
# the arm64 cross build in scripts/lib/cross.sh, which always links with lld).
release_lld_flags() {
    printf '%s\n' -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
}
# release_swift_flags: how the release build compiles Swift (ours and our dependencies') so that
# the link can drop what nothing calls. -function-sections: each function a section of its own,
# which the link's --gc-sections keeps only when it is referenced (a module was one section per
# file, kept whole for one live function). -internalize-at-link: the compiler no longer marks every
# public symbol as used (which keeps it, and what it calls, through --gc-sections), because no
# code outside the link calls them: the binaries are executables that export no symbols (above)
# and nothing looks ours up by name. Together 831 KB less of the amd64 multi-call binary
# (16,735,808 to 15,904,264 bytes; BENCHMARKS.md, package sizes, and a full bench/run with them:
# every target met). Swift 6.3.1 here and Debian's 6.2 (the arm64 cross build) take both.
release_swift_flags() {
    printf '%s\n' -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link
}

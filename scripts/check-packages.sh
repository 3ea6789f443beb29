#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-packages`: build the Debian packages, lint them, install them
# on this machine, and check the install, so that the VM case
# tests/vm/cases/81-packages.sh can load the DKMS-built module and run an
# example against the packaged library (the VM sees this machine's /usr,
# /lib/modules and /var read-only).
#
#  1. build: a copy of the tree (tracked and untracked files, no build
#     products, no .git) in a scratch directory; dpkg-buildpackage -us -uc -b
#  2. lint: lintian on the .changes; any error fails (warnings are printed)
#  3. contents: the key files of each package are where they belong
#  4. install: purge an earlier install of the four packages, drop every
#     DKMS registration and source dir of pmuctx (tests/dkms.sh leaves one
#     from the tree), dpkg -i the new packages: pmuctx-dkms's postinst runs
#     dkms add/build/install
#  5. verify on this machine: dkms says installed for KVER, the module is
#     in /lib/modules/KVER/updates/dkms/, the group pmuctx exists, the
#     packaged pmuctx runs with the packaged libpmuctx, an example builds
#     with the system's pkg-config, the man pages and completion are found
#  6. record for the VM: $PMUCTX_PKG_STATE (default
#     /var/cache/pmuctx/packages/): the .debs, the lintian report and
#     `state` (KVER, version, srcversion of the package's module build)
#
# DKMS and tests/dkms.sh (`make check-dkms-prepare`): both install
# pmuctx/VERSION, same name, same version; there can be only one.  This
# step runs first and records what the package built; tests/dkms.sh then
# removes that registration and re-adds pmuctx/VERSION from the tree (its
# case, 50-dkms.sh, tests that).  The packages stay installed, and
# 81-packages.sh checks what it can verify afterwards: the files of
# pmuctx-dkms are intact (dpkg --verify), `modprobe pmuctx` loads a DKMS
# module built from identical sources (its srcversion, a hash of the
# sources, equals the one recorded here), and the packaged tool and
# library work with it.
#
# Root is needed (dpkg -i, dkms).  Missing build tools (debhelper, dh-dkms,
# lintian, ...) are installed with apt-get, as scripts/setup-deps.sh does.
# Environment: KVER (default: the kernel tests/vm/run boots),
# PMUCTX_PKG_STATE, PMUCTX_PKG_KEEP=1 (keep the build directory).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top"
t0=$SECONDS
die() { echo "check-packages: $*" >&2; exit 1; }
log() { echo "check-packages: $*"; }
errors=0
err() { echo "check-packages: FAIL: $*" >&2; errors=$((errors + 1)); }

[ "$(id -u)" = 0 ] || die "must run as root (dpkg -i, dkms); sudo make check-packages"
state=${PMUCTX_PKG_STATE:-/var/cache/pmuctx/packages}
kver=${KVER:-}
[ -n "$kver" ] || kver=$(tests/vm/run --print-kver) || die "cannot tell the kernel release"
[ -d "/lib/modules/$kver/build" ] || die "/lib/modules/$kver/build missing: apt-get install linux-headers-$kver"

version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' dkms.conf | head -n 1)
debversion=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null ||
	sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
[ "${debversion%%-*}" = "$version" ] ||
	die "debian/changelog version $debversion does not match dkms.conf's PACKAGE_VERSION $version (update both)"
pkgs=(pmuctx-dkms libpmuctx0 libpmuctx-dev pmuctx-tools)

# ---- tools
need=()
for p in dpkg-dev:dpkg-buildpackage debhelper:dh dh-dkms:dh_dkms lintian:lintian \
	fakeroot:fakeroot groff:groff man-db:man; do
	command -v "${p#*:}" >/dev/null 2>&1 || need+=("${p%%:*}")
done
if [ "${#need[@]}" -gt 0 ]; then
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}"; } ||
		die "apt-get install ${need[*]} failed"
fi

# ---- 1. build in a copy
work=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-packages.XXXXXX")
if [ "${PMUCTX_PKG_KEEP:-0}" = 1 ]; then
	log "keeping $work"
else
	trap 'rm -rf "$work"' EXIT
fi
src=$work/pmuctx-$version
scripts/copy-tree.sh "$src"
log "dpkg-buildpackage -us -uc -b in $src"
tb=$SECONDS
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log" >&2
	die "dpkg-buildpackage failed (log above)"
fi
log "built in $((SECONDS - tb))s: $(cd "$work" && ls ./*.deb | sed 's|^\./||' | tr '\n' ' ')"
changes=$(ls "$work"/*.changes)

# ---- 2. lintian
lintian --fail-on error --display-level '>=warning' --info "$changes" >"$work/lintian.log" 2>&1 || lrc=$?
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/check-packages: lintian: /' || true
if [ "${lrc:-0}" -ne 0 ] || grep -q '^E: ' "$work/lintian.log"; then
	err "lintian reports errors"
else
	log "lintian: no errors ($(grep -c '^W: ' "$work/lintian.log" || true) warnings)"
fi

# ---- 3. contents
deb() { ls "$work/$1"_*_*.deb; }
contains() {	# contains PKG REGEX...
	local p=$1 list re
	shift
	list=$(dpkg-deb -c "$(deb "$p")" | awk '{print $6}' | sed 's|^\./|/|')
	for re in "$@"; do
		grep -qE "^$re\$" <<<"$list" || err "$p does not contain $re"
	done
}
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
contains pmuctx-dkms "/usr/src/pmuctx-$version/dkms.conf" "/usr/src/pmuctx-$version/Makefile" \
	"/usr/src/pmuctx-$version/Kbuild" "/usr/src/pmuctx-$version/module/session\\.c" \
	"/usr/src/pmuctx-$version/include/uapi/linux/pmuctx\\.h" "/lib/udev/rules\\.d/60-pmuctx\\.rules" \
	"/usr/share/man/man4/pmuctx\\.4\\.gz"
contains libpmuctx0 "/usr/lib/$ma/libpmuctx\\.so\\.0" "/usr/lib/$ma/libpmuctx\\.so\\.0\\.[0-9.]+"
contains libpmuctx-dev /usr/include/pmuctx\\.h /usr/include/linux/pmuctx\\.h "/usr/lib/$ma/libpmuctx\\.so" \
	"/usr/lib/$ma/libpmuctx\\.a" "/usr/lib/$ma/pkgconfig/libpmuctx\\.pc" \
	"/usr/share/man/man3/pmuctx_open\\.3\\.gz" "/usr/share/doc/libpmuctx-dev/examples/lib-stat\\.c"
contains pmuctx-tools /usr/bin/pmuctx "/usr/share/man/man1/pmuctx-stat\\.1\\.gz" \
	/usr/share/bash-completion/completions/pmuctx
# (a here-string, not a pipe into grep -q: under pipefail the writer's
# SIGPIPE at grep's first match would hide that match)
if grep -qE '\.(o|ko|cmd)$' <<<"$(dpkg-deb -c "$(deb pmuctx-dkms)")"; then
	err "pmuctx-dkms contains build products"
fi

# ---- 4. install
installed=()
for p in "${pkgs[@]}" libpmuctx0-dbgsym pmuctx-tools-dbgsym; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qE 'installed|config-files|half|unpacked' &&
		installed+=("$p")
done
if [ "${#installed[@]}" -gt 0 ]; then
	log "dpkg --purge ${installed[*]}"
	dpkg --purge "${installed[@]}" >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; die "dpkg --purge failed"; }
fi
for v in $(dkms status pmuctx 2>/dev/null | sed -n 's|^pmuctx[/,] *\([^,:]*\)[,:].*|\1|p' | sort -u); do
	log "dkms remove pmuctx/$v --all (left by tests/dkms.sh or an earlier run)"
	dkms remove "pmuctx/$v" --all >/dev/null || die "dkms remove pmuctx/$v failed"
done
rm -rf /var/lib/dkms/pmuctx /usr/src/pmuctx-[0-9]*
log "dpkg -i (pmuctx-dkms's postinst builds the module with DKMS)"
ti=$SECONDS
debs=()
for p in "${pkgs[@]}"; do debs+=("$(deb "$p")"); done
if ! dpkg -i "${debs[@]}" >"$work/install.log" 2>&1; then
	cat "$work/install.log" >&2
	die "dpkg -i failed"
fi
sed 's/^/check-packages: dpkg: /' "$work/install.log" | grep -iE 'dkms|building|install|error|warning' | head -n 30 || true
log "installed in $((SECONDS - ti))s"

# ---- 5. verify
for p in "${pkgs[@]}"; do
	s=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2>/dev/null || true)
	[ "$s" = "installed $debversion" ] || err "$p is not installed at $debversion ($s)"
done
ds=$(dkms status "pmuctx/$version" -k "$kver" 2>/dev/null || true)
grep -q 'installed' <<<"$ds" || err "dkms status pmuctx/$version -k $kver: '$ds' (the postinst did not install it)"
modpath=$(modinfo -k "$kver" -n pmuctx 2>/dev/null || true)
case $modpath in
"/lib/modules/$kver/updates/dkms/"*) log "module: $modpath" ;;
*) err "modinfo -k $kver -n pmuctx: '$modpath', want /lib/modules/$kver/updates/dkms/..." ;;
esac
srcversion=$(modinfo -k "$kver" -F srcversion pmuctx 2>/dev/null || true)
modversion=$(modinfo -k "$kver" -F version pmuctx 2>/dev/null || true)
[ "$modversion" = "$version" ] || err "the DKMS module's version is '$modversion', want $version"
getent group pmuctx >/dev/null || err "the group pmuctx does not exist after installing pmuctx-dkms"
dpkg --verify "${pkgs[@]}" >"$work/verify.log" 2>&1 || true
[ ! -s "$work/verify.log" ] || { cat "$work/verify.log" >&2; err "dpkg --verify reports changed files"; }

out=$(/usr/bin/pmuctx --version 2>&1) || err "/usr/bin/pmuctx --version failed: $out"
lib=$(ldd /usr/bin/pmuctx | sed -n 's/.*libpmuctx\.so\.0 => \([^ ]*\) .*/\1/p')
[ -n "$lib" ] && [ "$(realpath "$lib")" = "$(realpath "/usr/lib/$ma/libpmuctx.so.0")" ] ||
	err "/usr/bin/pmuctx does not use the packaged libpmuctx: '$lib'"
if grep -qE 'RPATH|RUNPATH' <<<"$(readelf -d /usr/bin/pmuctx)"; then
	err "/usr/bin/pmuctx has an RPATH/RUNPATH"
fi
ex=/usr/share/doc/libpmuctx-dev/examples
for e in lib-stat raw-ioctl; do
	if ! cc -Wall -Wextra -Werror -o "$work/$e" "$ex/$e.c" $(pkg-config --cflags --libs libpmuctx) >"$work/cc.log" 2>&1; then
		cat "$work/cc.log" >&2
		err "$ex/$e.c does not build with the packaged headers and library"
	fi
done
[ "$(man -w pmuctx-stat 2>/dev/null)" = /usr/share/man/man1/pmuctx-stat.1.gz ] || err "man -w pmuctx-stat"
[ -n "$(man -w 3 pmuctx_close 2>/dev/null)" ] || err "man -w 3 pmuctx_close"
[ -n "$(man -w 4 pmuctx 2>/dev/null)" ] || err "man -w 4 pmuctx"

# ---- 6. state for the VM
mkdir -p "$state"
rm -f "$state"/*.deb
cp "${debs[@]}" "$work/lintian.log" "$state/"
cat >"$state/state" <<-EOF
	# written by scripts/check-packages.sh, read by tests/vm/cases/81-packages.sh
	PKG_VERSION=$debversion
	PKG_KVER=$kver
	PKG_MODULE=$modpath
	PKG_SRCVERSION=$srcversion
	PKG_MULTIARCH=$ma
	PKG_TIME=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
log "state for the VM: $state/state (srcversion $srcversion)"

if [ "$errors" -ne 0 ]; then
	echo "check-packages: $errors problem(s) ($((SECONDS - t0))s)" >&2
	exit 1
fi
log "built, lintian-clean (errors), installed and verified in $((SECONDS - t0))s"

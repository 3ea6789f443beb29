#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages, as installed on the host by scripts/check-packages.sh
# (make check-packages, before the VM steps' tests/dkms.sh): the VM sees the host's
# /usr, /lib/modules and /var, read-only.
#
#  - the four packages are installed at the version check-packages built,
#    and dpkg --verify finds their files intact;
#  - `modprobe pmuctx` loads the DKMS module from /lib/modules/KVER/
#    updates/dkms/, built from the package's sources: its srcversion (a
#    hash of the sources) equals the one check-packages recorded right
#    after pmuctx-dkms's postinst built it.  tests/dkms.sh re-registers
#    pmuctx/VERSION from the tree after check-packages (same name and
#    version; see scripts/check-packages.sh), so this is what can be
#    verified: same sources, same module;
#  - the packaged pmuctx (/usr/bin) runs with the packaged libpmuctx;
#  - the examples shipped in libpmuctx-dev build with the system's
#    pkg-config and run against the packaged library.
# Afterwards the fresh build is loaded again.
# vm-timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

state=${PMUCTX_PKG_STATE:-/var/cache/pmuctx/packages}/state
if [ ! -r "$state" ]; then
	not_ok "scripts/check-packages.sh ran on the host ($state)"
	diag "run 'make check-packages' (as root) on the host first; make check does"
	exit 1
fi
PKG_VERSION= PKG_KVER= PKG_SRCVERSION= PKG_MULTIARCH=
# shellcheck disable=SC1090
. "$state"
kver=$(uname -r)
diag "check-packages state: version $PKG_VERSION, module for $PKG_KVER, srcversion $PKG_SRCVERSION"

for p in pmuctx-dkms libpmuctx0 libpmuctx-dev pmuctx-tools; do
	s=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2>/dev/null || true)
	if [ "$s" = "installed $PKG_VERSION" ]; then
		ok "package $p $PKG_VERSION is installed"
	else
		not_ok "package $p $PKG_VERSION is installed ('$s')"
	fi
done
# tests/dkms.sh puts this tree's module sources where pmuctx-dkms put its
# own (/usr/src/pmuctx-VERSION, one name for both): intact only when the
# packages were built from the same sources (CI: make check builds both).
# Packages of an older tree (make check-packages not run since the module
# changed) leave them different: said, not failed.
verify="pmuctx-dkms libpmuctx0 libpmuctx-dev pmuctx-tools"
fresh_src=$(modinfo -F srcversion "$MODULE" 2>/dev/null || echo unknown)
if [ "$fresh_src" != "$PKG_SRCVERSION" ]; then
	verify="libpmuctx0 libpmuctx-dev pmuctx-tools"
	skip "dpkg --verify pmuctx-dkms" "the packages were built from other module sources (srcversion $PKG_SRCVERSION, this tree's $fresh_src) and tests/dkms.sh replaced theirs in /usr/src: make check-packages"
fi
check sh -c 'out=$(dpkg --verify $1 2>&1); [ -z "$out" ] || { echo "$out"; false; }' sh "$verify" \
	-- "dpkg --verify: the packages' files are intact ($verify)"
last_ok || diag_out "$CHECK_OUT"

# ---- the module
if [ "$kver" != "$PKG_KVER" ]; then
	skip "modprobe loads the package's DKMS module" "check-packages recorded the module for $PKG_KVER, this VM runs $kver"
else
	src=/usr/src/pmuctx-${PKG_VERSION%%-*}
	owner=$(dpkg -S "$src/dkms.conf" 2>/dev/null | cut -d: -f1 || true)
	if [ "$owner" = pmuctx-dkms ]; then
		ok "$src/dkms.conf belongs to pmuctx-dkms"
	else
		not_ok "$src/dkms.conf belongs to pmuctx-dkms ('$owner')"
	fi
	path=$(modinfo -n "$MODNAME" 2>/dev/null || true)
	case $path in
	"/lib/modules/$kver/updates/dkms/"*) ok "modinfo finds the DKMS module ($path)" ;;
	*) not_ok "modinfo finds the DKMS module under /lib/modules/$kver/updates/dkms/ ('$path')" ;;
	esac
	mod_loaded && check mod_unload -- "rmmod the fresh build"
	check modprobe "$MODNAME" -- "modprobe $MODNAME"
	loaded=$(cat "/sys/module/$MODNAME/srcversion" 2>/dev/null || echo none)
	if [ "$fresh_src" != "$PKG_SRCVERSION" ]; then
		skip "the loaded module has the srcversion of the package's DKMS build" \
			"tests/dkms.sh built this tree's sources ($loaded) in the package's place ($PKG_SRCVERSION): make check-packages"
	elif [ "$loaded" = "$PKG_SRCVERSION" ]; then
		ok "the loaded module has the srcversion of the package's DKMS build ($loaded)"
	else
		not_ok "the loaded module has the srcversion of the package's DKMS build ($loaded, want $PKG_SRCVERSION)"
	fi
fi
mod_loaded || mod_load
require is_misc_dev "$DEV" -- "$DEV exists"

# ---- the packaged tool and library
ma=${PKG_MULTIARCH:-x86_64-linux-gnu}
pkglib=$(realpath "/usr/lib/$ma/libpmuctx.so.0" 2>/dev/null || echo missing)
uses_pkglib() {
	_l=$(ldd "$1" 2>/dev/null | sed -n 's/.*libpmuctx\.so\.0 => \([^ ]*\) .*/\1/p')
	[ -n "$_l" ] && [ "$(realpath "$_l")" = "$pkglib" ]
}
check /usr/bin/pmuctx info -- "the packaged pmuctx info works"
if last_ok && printf '%s\n' "$CHECK_OUT" | grep -q "${PKG_VERSION%%-*}"; then
	ok "the packaged pmuctx info shows version ${PKG_VERSION%%-*}"
else
	not_ok "the packaged pmuctx info shows version ${PKG_VERSION%%-*}"
	diag_out "$CHECK_OUT"
fi
check uses_pkglib /usr/bin/pmuctx -- "/usr/bin/pmuctx uses the packaged libpmuctx ($pkglib)"

ex=/usr/share/doc/libpmuctx-dev/examples
out=$CASE_TMP/pkg-examples
mkdir -p "$out"
for e in lib-stat raw-ioctl; do
	# shellcheck disable=SC2046
	check cc -Wall -Wextra -Werror -o "$out/$e" "$ex/$e.c" $(pkg-config --cflags --libs libpmuctx) \
		-- "$e.c from libpmuctx-dev builds with the system's pkg-config"
	last_ok || { diag_out "$CHECK_OUT"; continue; }
	check "$out/$e" -- "$e (packaged headers and library) runs"
	if last_ok && printf '%s\n' "$CHECK_OUT" | grep -qE '(^task-clock|count: task-clock) +[1-9][0-9]*'; then
		ok "$e counts task-clock"
	else
		not_ok "$e counts task-clock"
		diag_out "$CHECK_OUT"
	fi
done
[ -x "$out/lib-stat" ] && check uses_pkglib "$out/lib-stat" -- "lib-stat runs with the packaged libpmuctx"

# ---- back to the fresh build
if [ "$(cat "/sys/module/$MODNAME/srcversion" 2>/dev/null)" != "$(modinfo -F srcversion "$MODULE")" ]; then
	check rmmod "$MODNAME" -- "rmmod the DKMS module"
	check insmod "$MODULE" -- "insmod the fresh build again"
fi

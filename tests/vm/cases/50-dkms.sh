#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "modprobe pmuctx" loads the DKMS-installed module.  The host side is
# tests/dkms.sh -k KVER (run by scripts/check-kernel.sh for the kernel
# under test, or make check-dkms-prepare), which installs it into the
# host's /lib/modules/KVER/updates/dkms/; the VM sees the host's
# /lib/modules.  Afterwards the fresh build is loaded again.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

kver=$(uname -r)
need_exec "$CLI" || exit 1

path=$(modinfo -n "$MODNAME" 2>/dev/null || true)
if [ -z "$path" ]; then
	not_ok "a DKMS-installed $MODNAME exists for $kver"
	diag "modinfo -n $MODNAME finds nothing in /lib/modules/$kver:" \
		"the DKMS step was not done; run tests/dkms.sh as root on the" \
		"host (scripts/check-kernel.sh does, in make check and make check-vm)"
	exit 1
fi
case $path in
"/lib/modules/$kver/updates/dkms/"* | "/lib/modules/$kver/updates/"* | "/lib/modules/$kver/extra/"*)
	ok "modinfo -n $MODNAME points to the DKMS install ($path)" ;;
*)
	not_ok "modinfo -n $MODNAME points to the DKMS install under /lib/modules/$kver/updates/dkms/ ($path)" ;;
esac
dkms_version=$(modinfo -F version "$MODNAME" 2>/dev/null || true)
fresh_version=$(modinfo -F version "$MODULE" 2>/dev/null || true)
if [ -n "$dkms_version" ] && [ "$dkms_version" = "$fresh_version" ]; then
	ok "the DKMS module has the fresh build's version ($dkms_version)"
else
	not_ok "the DKMS module has the fresh build's version (dkms '$dkms_version', fresh '$fresh_version')"
fi

check mod_unload -- "rmmod the fresh build"
check modprobe "$MODNAME" -- "modprobe $MODNAME"
check test -d "/sys/module/$MODNAME" -- "/sys/module/$MODNAME exists after modprobe"
loaded=$(cat "/sys/module/$MODNAME/srcversion" 2>/dev/null || echo none)
want=$(modinfo -F srcversion "$path" 2>/dev/null || echo unknown)
if [ "$loaded" = "$want" ]; then
	ok "the loaded module is the DKMS one (srcversion $loaded)"
else
	not_ok "the loaded module is the DKMS one (srcversion $loaded, $path has $want)"
fi
fresh=$(modinfo -F srcversion "$MODULE" 2>/dev/null || echo unknown)
if [ "$want" != "$fresh" ]; then
	diag "note: the DKMS copy ($want) and module/pmuctx.ko ($fresh) differ in" \
		"srcversion: the sources changed since tests/dkms.sh ran"
fi
check is_misc_dev "$DEV" -- "$DEV exists with the DKMS module"
check test ! -e "/sys/module/$MODNAME/parameters/selftest_inject" -- \
	"the DKMS module is the release build (no test hooks)"
check "$CLI" info -- "pmuctx info works with the DKMS module"

check rmmod "$MODNAME" -- "rmmod the DKMS module"
check insmod "$MODULE" -- "insmod the fresh build again"
loaded=$(cat "/sys/module/$MODNAME/srcversion" 2>/dev/null || echo none)
if [ "$loaded" = "$fresh" ]; then
	ok "the fresh build is loaded again (srcversion $loaded)"
else
	not_ok "the fresh build is loaded again (srcversion $loaded, want $fresh)"
fi

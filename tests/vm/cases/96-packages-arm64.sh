#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The arm64 Debian packages in use (scripts/check-packages-arm64.sh made
# them, cross, and unpacked them into $PMUCTX_TOP/pkgroot, the aarch64
# tree of the arm64 tier): the module built from pmuctx-dkms's source as
# DKMS builds it, loaded with modprobe from the guest's
# /lib/modules/KVER/updates/dkms/, and the packaged pmuctx with the
# packaged libpmuctx (not the tree's) counting a command.  Skipped, saying
# so, where the packages were not made (make check-packages-arm64).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

ROOT=$PMUCTX_TOP/pkgroot
PCLI=$ROOT/usr/bin/pmuctx
PLIB=$ROOT/usr/lib/aarch64-linux-gnu
if [ "$(uname -m)" != aarch64 ] || [ ! -x "$PCLI" ]; then
	echo "1..0 # SKIP no arm64 packages unpacked in $ROOT (make check-packages-arm64, then the arm64 tier)"
	exit 0
fi

mod_unload 2>/dev/null || true
path=$(modinfo -n "$MODNAME" 2>/dev/null || true)
case $path in
*/updates/dkms/pmuctx.ko*)
	ok "modinfo -n $MODNAME names the module built from pmuctx-dkms ($path)" ;;
*)
	not_ok "modinfo -n $MODNAME names the module built from pmuctx-dkms (${path:-nothing})" ;;
esac
check modprobe "$MODNAME" -- "modprobe $MODNAME loads it"
check test ! -e "/sys/module/$MODNAME/parameters/selftest_inject" -- \
	"it is the release build (no test hooks)"
check env LD_LIBRARY_PATH="$PLIB" "$PCLI" info -- "the packaged pmuctx info, with the packaged libpmuctx"
out=$(env LD_LIBRARY_PATH="$PLIB" "$PCLI" stat -x, -e task-clock,instructions:u -- true 2>&1 || true)
diag_out "$out"
tc=$(echo "$out" | awk -F, '$3 == "task-clock" && $1 ~ /^[0-9]+$/ { print $1 }')
ins=$(echo "$out" | awk -F, '$3 == "instructions:u" && $1 ~ /^[0-9]+$/ { print $1 }')
if [ -n "$tc" ] && [ "$tc" -gt 0 ] && [ -n "$ins" ] && [ "$ins" -gt 0 ]; then
	ok "the packaged pmuctx stat counts true's task-clock ($tc ns) and user instructions ($ins)"
else
	not_ok "the packaged pmuctx stat counts true's task-clock and user instructions (${tc:-none}, ${ins:-none})"
fi
check rmmod "$MODNAME" -- "rmmod the packaged module"
check insmod "$MODULE" -- "insmod the fresh build again"

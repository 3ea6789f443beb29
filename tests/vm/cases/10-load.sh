#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# The module unloads and loads cleanly 20 times (5 on a debug kernel:
# each load there is seconds of KASAN and kmemleak, and CI's time is
# short), /dev/pmuctx appears each time as a misc char device (major 10,
# mode 0660 root:root), and modinfo shows its metadata.  The suite checks
# the kernel log after the case.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

CYCLES=20
! debug_kernel || CYCLES=5

if [ ! -f "$MODULE" ]; then
	not_ok "$MODULE exists (build it: make module)"
	exit 1
fi

# --- modinfo -----------------------------------------------------------------
for field in version description license author; do
	v=$(modinfo -F "$field" "$MODULE" 2>/dev/null || true)
	if [ -n "$v" ]; then
		ok "modinfo shows $field ($v)"
	else
		not_ok "modinfo shows $field"
	fi
done
lic=$(modinfo -F license "$MODULE")
case $lic in
GPL | "GPL v2" | "GPL and additional rights" | "Dual BSD/GPL" | "Dual MIT/GPL" | "Dual MPL/GPL")
	ok "license is GPL-compatible ($lic)" ;;
*) not_ok "license is GPL-compatible ($lic)" ;;
esac
# modinfo prints "name:description (type)", "name:description" (no type
# known, e.g. module_param_cb), or just "name:type" when a parameter has
# no MODULE_PARM_DESC.
parms=$(modinfo -F parm "$MODULE")
if [ -z "$parms" ]; then
	not_ok "modinfo lists module parameters"
else
	bad=$(printf '%s\n' "$parms" | grep -E '^[A-Za-z0-9_]+:[A-Za-z0-9_]*$' || true)
	if [ -z "$bad" ]; then
		ok "every module parameter has a description ($(printf '%s\n' "$parms" | cut -d: -f1 | tr '\n' ' '))"
	else
		not_ok "every module parameter has a description"
		diag_out "$bad"
	fi
	text_has "$parms" "" '^max_tasks:' "parameter max_tasks is documented"
fi
vermagic=$(modinfo -F vermagic "$MODULE" | cut -d' ' -f1)
if [ "$vermagic" = "$(uname -r)" ]; then
	ok "vermagic matches the running kernel ($vermagic)"
else
	not_ok "vermagic matches the running kernel ($vermagic vs $(uname -r))"
fi
if [ -f dkms.conf ]; then
	pv=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' dkms.conf)
	mv=$(modinfo -F version "$MODULE")
	case $mv in
	"$pv" | "$pv"[-+~]*) ok "module version $mv matches dkms.conf ($pv)" ;;
	*) not_ok "module version $mv matches dkms.conf PACKAGE_VERSION ($pv)" ;;
	esac
fi

# --- release and debug builds (docs/BUILDING.md) --------------------------------
# The module the harness loaded is the release build, what users install:
# no test hook, no benchmark.  The debug build has the eight hooks.
HOOKS="selftest_inject selftest_inject_pid selftest_attach_delay_ms selftest_task_work_tail_ms selftest_revive_delay_ms selftest_join_delay_ms selftest_dead_cached selftest_exec_delay_ms"
if mod_is_debug "$MODULE"; then
	skip "the release module has no test hooks" "the harness loaded a debug build ($MODULE)"
else
	bad=$(modinfo -F parm "$MODULE" | cut -d: -f1 | grep -E 'selftest|bench' || true)
	if [ -z "$bad" ]; then
		ok "the release module has no test hook parameters"
	else
		not_ok "the release module has no test hook parameters: $(printf '%s\n' "$bad" | tr '\n' ' ')"
	fi
	mod_load 2>/dev/null || true
	bad=
	for f in "/sys/module/$MODNAME/parameters/"*; do
		case ${f##*/} in *selftest* | *bench*) bad="$bad ${f##*/}" ;; esac
	done
	if [ -z "$bad" ] && mod_loaded; then
		ok "the loaded release module shows no test hook in /sys/module/$MODNAME/parameters"
	else
		not_ok "the loaded release module shows no test hook in /sys/module/$MODNAME/parameters:$bad"
	fi
	if [ -d /sys/kernel/debug ] && ! mountpoint -q /sys/kernel/debug; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
	fi
	if mountpoint -q /sys/kernel/debug; then
		check test ! -e /sys/kernel/debug/pmuctx/ring_bench -- \
			"the release module has no debugfs ring_bench"
	else
		skip "the release module has no debugfs ring_bench" "no debugfs"
	fi
fi
if [ -f "$MODULE_DEBUG" ]; then
	parms=$(modinfo -F parm "$MODULE_DEBUG" | cut -d: -f1)
	missing=
	for h in $HOOKS; do
		printf '%s\n' "$parms" | grep -qx "$h" || missing="$missing $h"
	done
	if [ -z "$missing" ]; then
		ok "the debug build has the test hooks ($HOOKS)"
	else
		not_ok "the debug build has the test hooks: missing$missing"
	fi
	check test "$(modinfo -F version "$MODULE_DEBUG")" = "$(modinfo -F version "$MODULE")" -- \
		"the debug build is the same version as the release module"
else
	not_ok "the debug build of the module is there ($MODULE_DEBUG; make module-debug)"
fi

# --- load/unload cycles --------------------------------------------------------
# dev_ok: /dev/pmuctx is a misc char device, 0660 root:root.
dev_ok() {
	is_misc_dev "$DEV" || return 1
	[ "$(stat -c '%a %u %g' "$DEV")" = "660 0 0" ]
}

fail=
i=0
while [ "$i" -lt "$CYCLES" ]; do
	i=$((i + 1))
	if mod_loaded && ! out=$(rmmod "$MODNAME" 2>&1); then
		fail="cycle $i: rmmod failed: $out"
		break
	fi
	if mod_loaded; then
		fail="cycle $i: /sys/module/$MODNAME still there after rmmod"
		break
	fi
	if [ -e "$DEV" ]; then
		fail="cycle $i: $DEV still exists after rmmod"
		break
	fi
	if ! out=$(insmod "$MODULE" 2>&1); then
		fail="cycle $i: insmod failed: $out"
		break
	fi
	if ! dev_ok; then
		fail="cycle $i: $DEV after insmod: $(ls -l "$DEV" 2>&1)"
		break
	fi
done
if [ -z "$fail" ]; then
	ok "$CYCLES rmmod/insmod cycles, $DEV a misc char device 0660 root:root each time"
else
	not_ok "$CYCLES rmmod/insmod cycles, $DEV a misc char device 0660 root:root each time"
	diag "$fail"
fi

# --- final state ---------------------------------------------------------------
mod_load 2>/dev/null || true
check grep -q "^$MODNAME .* Live " /proc/modules -- "the module is loaded (Live) after the loop"
check is_misc_dev "$DEV" -- "$DEV is a char device with the misc major (10)"
minor=$(stat -c %T "$DEV" 2>/dev/null || echo none)
if grep -qE "^ *$((0x${minor:-0})) pmuctx\$" /proc/misc 2>/dev/null; then
	ok "/proc/misc lists pmuctx with the minor of $DEV"
else
	not_ok "/proc/misc lists pmuctx with the minor of $DEV"
	diag_out "$(cat /proc/misc)"
fi
check test -d /sys/class/misc/pmuctx -- "/sys/class/misc/pmuctx exists"

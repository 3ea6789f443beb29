#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-module-builds.sh [RELEASE_KO DEBUG_KO] - the release module
# has no test or benchmark code, the debug build has it (docs/BUILDING.md,
# "Release and debug builds").
#
# Without arguments (`make check`, step module-builds): builds the debug
# module (make module-debug WERROR=1) and checks module/pmuctx.ko (the
# release build of `make all`) against module-debug/module/pmuctx.ko.
# scripts/check-kernel.sh passes the two it built for its kernel.
#
# The release module must have no symbol matching selftest, ringbench,
# ring_bench or probebench (nm) and no selftest_* parameter (modinfo); the
# debug build must have the seven test hook parameters, the SELFTEST
# backend's code, the probe timer and, on a kernel with debugfs,
# ring_bench: so that the check can fail.
# Environment: MAKE, KVER, KDIR (from the Makefile).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MAKE=${MAKE:-make}
HOOKS="selftest_inject selftest_inject_pid selftest_attach_delay_ms selftest_task_work_tail_ms selftest_revive_delay_ms selftest_join_delay_ms selftest_dead_cached selftest_exec_delay_ms selftest_work_stall_ms"
TEST_SYMS='selftest|ringbench|ring_bench|probebench'

if [ $# -eq 0 ]; then
	rel=$top/module/pmuctx.ko
	dbg=$top/module-debug/module/pmuctx.ko
	$MAKE --no-print-directory -C "$top" module-debug WERROR=1 \
		${KVER:+KVER="$KVER"} ${KDIR:+KDIR="$KDIR"} || {
		echo "check-module-builds: make module-debug failed" >&2
		exit 1
	}
elif [ $# -eq 2 ]; then
	rel=$1 dbg=$2
else
	echo "usage: scripts/check-module-builds.sh [RELEASE_KO DEBUG_KO]" >&2
	exit 2
fi

failed=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=1; }
# missing_from LINES WORD...: " WORD" for each WORD that is no line of LINES
missing_from() {
	local lines=$1 w
	shift
	for w; do
		grep -qx -- "$w" <<<"$lines" || printf " %s" "$w"
	done
}

for ko in "$rel" "$dbg"; do
	[ -f "$ko" ] || { echo "check-module-builds: $ko is missing (make module / make module-debug)" >&2; exit 1; }
done
kver=$(modinfo -F vermagic "$rel" | cut -d' ' -f1)
echo "check-module-builds: release $rel, debug $dbg ($kver)"

# the release module
syms=$(nm "$rel" | awk '{ print $NF }' | grep -E "$TEST_SYMS" || true)
if [ -z "$syms" ]; then
	pass "release: no symbol matches $TEST_SYMS (nm)"
else
	fail "release: symbols matching $TEST_SYMS (nm): $(printf '%s\n' "$syms" | head -n 10 | tr '\n' ' ')"
fi
parms=$(modinfo -F parm "$rel" | cut -d: -f1)
bad=$(printf '%s\n' "$parms" | grep -E 'selftest|bench' || true)
if [ -z "$bad" ]; then
	pass "release: no test hook parameter (modinfo: $(printf '%s\n' "$parms" | tr '\n' ' '))"
else
	fail "release: test hook parameters (modinfo): $(printf '%s\n' "$bad" | tr '\n' ' ')"
fi

# the debug build: the same module plus the test code
dparms=$(modinfo -F parm "$dbg" | cut -d: -f1)
# shellcheck disable=SC2086 # HOOKS is a list of words
missing=$(missing_from "$dparms" $HOOKS)
if [ -z "$missing" ]; then
	pass "debug: the test hook parameters ($HOOKS)"
else
	fail "debug: test hook parameters missing:$missing"
fi
dsyms=$(nm "$dbg" | awk '{ print $NF }')
want="pmuctx_selftest_save pmuctx_selftest_verify pmuctx_probebench_end"
if grep -qx 'CONFIG_DEBUG_FS=y' "/lib/modules/$kver/build/.config" 2>/dev/null; then
	want="$want pmuctx_ringbench_init"
fi
# shellcheck disable=SC2086 # want is a list of words
missing=$(missing_from "$dsyms" $want)
if [ -z "$missing" ]; then
	pass "debug: the SELFTEST backend and ring_bench are in it ($want)"
else
	fail "debug: symbols missing:$missing"
fi
if [ "$(modinfo -F name "$rel")" = pmuctx ] && [ "$(modinfo -F name "$dbg")" = pmuctx ]; then
	pass "both are named pmuctx (/dev/pmuctx, the same tests)"
else
	fail "both are named pmuctx ($(modinfo -F name "$rel"), $(modinfo -F name "$dbg"))"
fi
if [ "$(modinfo -F version "$rel")" = "$(modinfo -F version "$dbg")" ]; then
	pass "same version ($(modinfo -F version "$rel"))"
else
	fail "same version ($(modinfo -F version "$rel") vs $(modinfo -F version "$dbg"))"
fi
# kbuild's clean of the module's directory (the top Makefile's `make
# clean` runs it): it reads module/Kbuild without the kernel's .config,
# so the architecture check must not stop it
kdir=${KDIR:-/lib/modules/$kver/build}
if [ -f "$kdir/Makefile" ]; then
	t=$(mktemp -d)
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$t/"
	if out=$($MAKE -s -C "$kdir" M="$t" clean 2>&1); then
		pass "kbuild clean of the module's tree works ($kdir)"
	else
		fail "kbuild clean of the module's tree: $(printf '%s\n' "$out" | grep -m1 -E 'pmuctx|Error')"
	fi
	rm -rf "$t"
fi
exit "$failed"

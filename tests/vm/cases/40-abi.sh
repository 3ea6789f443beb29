#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The INFO ioctl ABI checks of tests/progs/abi_info, relayed as they are
# (its ok / not ok lines become this case's results).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

PROG=$PMUCTX_TOP/tests/progs/abi_info
out=$CASE_TMP/abi_info.out

need_exec "$PROG" || exit 1
mod_load 2>/dev/null || true
require is_misc_dev "$DEV" -- "$DEV exists with the module loaded"

rc=0
"$PROG" >"$out" || rc=$?
# Relay everything but a plan line; check the plan here instead.
grep -v '^1\.\.[0-9]' "$out" || true
results=$(grep -cE '^(not )?ok([[:space:]]|$)' "$out" || true)
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$out" | tail -n 1)
if [ "$results" -gt 0 ]; then
	ok "tests/progs/abi_info printed $results results"
else
	not_ok "tests/progs/abi_info printed results"
fi
if [ -n "$plan" ] && [ "$plan" != "$results" ]; then
	not_ok "tests/progs/abi_info planned $plan results, printed $results"
fi
if [ "$rc" -eq 0 ]; then
	ok "tests/progs/abi_info exits 0"
else
	not_ok "tests/progs/abi_info exits 0 (exit $rc)"
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# No sample of the profiler's own task_work, at the edges of the work
# (67-profile compares a whole profile with perf's and saw 1 or 2 such
# samples in 4,000 on the debug kernel, now and then).  The deferred
# unwind's task_work marks its entry while it runs, and a tick that sees
# the mark, or an ip in the module, takes no sample.  What runs before the
# mark and after the unmark is the window: kernel code there (the unmark's
# rcu_read_unlock() with its lockdep hooks, module_put()) was sampled as
# the program's time.
#
# The debug build's selftest_task_work_tail_ms hook busy-waits 1 ms right
# after the work's module_put(), its last kernel call before, so at 1 kHz
# a tick lands there after about every sample taken in the kernel:
# pmuctx record -g of 2 s of dd (16-byte reads and writes: most samples in
# the kernel, each queuing an unwind), then tests/vm/profile-stats.py --own on
# its perf-script output.  Before the fix (Debian 6.1): 701 of 1,705
# samples in delay_tsc <- pmuctx_task_work_done <- task_work_run (each
# sample there queued the next unwind).  Now the mark covers the module_put() and the
# hook, and goes with interrupts off until the work returns: a tick after
# it is taken at an ip in the module (pmuctx_sample_work_end()).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

need_exec "$CLI" || exit 1
if ! command -v python3 >/dev/null 2>&1; then
	not_ok "python3 is needed for tests/vm/profile-stats.py"
	exit 1
fi
use_debug_module
mod_load
W=${CASE_TMP:-/tmp}/observer
rm -rf "$W"
mkdir -p "$W"
PARAM=/sys/module/$MODNAME/parameters/selftest_task_work_tail_ms
require sh -c "echo 1 > $PARAM" -- "selftest_task_work_tail_ms = 1"
# 2 s of dd, however fast the emulator runs (a count of records gave 87
# samples on a quiet host and 217 on a busy one): timeout's 124 is
# success (coreutils; busybox's timeout, the arm64 guest's, gives the
# killed dd's 143)
check "$CLI" record -q -g -F 1000 -o "$W/dd.pmu" -- \
	sh -c 'timeout 2 dd if=/dev/zero of=/dev/null bs=16 2>/dev/null; rc=$?; [ $rc = 124 ] || [ $rc = 143 ]' -- \
	"pmuctx record -g -F 1000 -- dd bs=16 for 2 s, each unwind's task_work 1 ms longer after its module_put()"
echo 0 > "$PARAM"
"$CLI" report -i "$W/dd.pmu" --format perf-script > "$W/dd.txt" 2>"$W/report.err" ||
	diag_out "$(cat "$W/report.err")"
python3 "$PMUCTX_TOP/tests/vm/profile-stats.py" --own "$W/dd.txt" dd 50 \
	> "$W/stats" 2>&1 || true
verdicts "observer window" "$W/stats"

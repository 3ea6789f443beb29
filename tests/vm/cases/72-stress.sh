#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 1200
#
# Stress (tests/faults/pmuctx-stress): thread and process churn under a pid
# session with inheritance plus system-wide, cgroup and ring sessions at
# once (60 s; 15 s on a debug kernel, to fit CI), cpu1 offline/online in a
# loop under load (opt-in: PMUCTX_STRESS_HOTPLUG=1; the suite's 2 CPUs:
# cpu1 is the one that can go),
# 1000 sessions at once, session fds passed over unix sockets and closed
# in either order, targets exiting during session teardown, sessions
# closed while their targets switch, per-task reads of a growing session,
# and rmmod attempts while sessions are held under load (refused, then
# clean once they are closed).  The counts must add up and the store must
# be empty at the end of each part.
# PMUCTX_STRESS_SECS overrides the churn duration.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

S=tests/faults/pmuctx-stress
need_exec "$S" || exit 1
mod_load 2>/dev/null || true

if debug_kernel; then
	secs=${PMUCTX_STRESS_SECS:-15} n=40 hp=10 rc_secs=5
else
	secs=${PMUCTX_STRESS_SECS:-60} n=200 hp=10 rc_secs=10
fi
rc=0
"$S" churn "$secs" 4 || rc=1
# CPU hotplug is opt-in: under QEMU TCG a guest cycling cpu1 hung in 2 of
# 3 runs on a loaded host, cpu1 looping on an int3 in __schedule() after
# coming online and cpu0 waiting for it in smp_call_function_many_cond()
# (from pmuctx's ENABLE IPI once, from tracepoint_probe_unregister() once;
# no pmuctx code on cpu1's stack), also with an anchor session keeping
# pmuctx's probes and perf's static keys still.  That is QEMU TCG running
# stale live-patched text (docs/TESTING.md, "Static keys are pinned"); with
# the suite's pinning it passed 5 of 5 runs, still too few for CI.
if [ "${PMUCTX_STRESS_HOTPLUG:-0}" = 1 ]; then
	"$S" hotplug "$hp" || rc=1
else
	skip "stress: CPU hotplug" "PMUCTX_STRESS_HOTPLUG=1 runs it (hangs QEMU TCG guests intermittently, see docs/TESTING.md)"
fi
"$S" sessions 1000 || rc=1
"$S" scm || rc=1
"$S" exit-teardown "$n" || rc=1
"$S" teardown-busy "$n" || rc=1
"$S" read-churn "$rc_secs" || rc=1

# rmmod while sessions are held under load: refused, then clean.
# The holder holds for 8 s after it says "# holding"; rmmod is tried for
# 5 s of that, and never after it says "# releasing".
"$S" hold 8 >"$CASE_TMP/hold.out" 2>&1 &
holder=$!
holding() { grep -q '^# holding' "$CASE_TMP/hold.out" 2>/dev/null; }
wait_for 60 holding || true
start=$(date +%s)
refused=0 tries=0
while kill -0 "$holder" 2>/dev/null && [ "$tries" -lt 20 ] &&
      [ $(($(date +%s) - start)) -lt 5 ] &&
      ! grep -q '^# releasing' "$CASE_TMP/hold.out"; do
	tries=$((tries + 1))
	if out=$(rmmod "$MODNAME" 2>&1); then
		not_ok "stress: rmmod succeeded while sessions were held"
		insmod "$MODULE"
		break
	fi
	case $out in *"in use"*) refused=$((refused + 1)) ;; esac
	sleep 0.2
done
wait "$holder" || rc=1
grep -E '^(not )?ok' "$CASE_TMP/hold.out" || true
if [ "$refused" -gt 0 ] && [ "$refused" -eq "$tries" ]; then
	ok "stress: rmmod refused ($refused tries, \"in use\") while sessions were held under load"
else
	not_ok "stress: rmmod refused while sessions were held under load ($refused of $tries)"
fi
check rmmod "$MODNAME" -- "stress: rmmod succeeds once the sessions are closed"
check insmod "$MODULE" -- "stress: insmod again"
exit "$rc"

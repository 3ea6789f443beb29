#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Tracepoint (un)registration is not paced by user space (issue 29 item 8).
# Registering or unregistering a tracepoint probe patches kernel text (a
# static key and a static call: text_poke_bp(), IPIs to every CPU).  The
# first session hooks the scheduler and the last one used to unhook it at
# once, so a group member looping create/close made every CPU take those
# IPIs at the loop's rate.  The module now unhooks one second after the
# last user of a probe goes (perf_sched_delayed does the same), and a
# session created meanwhile keeps the probes.
#
# On the debug build (selftest_probe_flips counts every probe registered
# or unregistered), as uid 65534 in the device's group, nothing else open:
#  - 200 create/close rounds of a per-switch session flip the probes at
#    most once each way (before: 10 flips a round, 2000), plus once each
#    way per round whose create came over 0.5 s after the previous close
#    (a slow guest: the unhook may rightly run in such a gap);
#  - the same for a cgroup session (root: the cgroup_attach_task probe);
#  - the probes are gone within 3 s of the last close, and INFO says so;
#  - rounds spaced around the delay (a create racing with the unhook
#    work) keep working and balance (lockdep/KASAN on the debug kernel);
#  - rmmod right after a close (the unhook still pending) unregisters
#    synchronously: no oops, the next load starts clean.
# The function-call IPIs of the last CPU (/proc/interrupts "Function call
# interrupts": x86-64's CAL, arm64's IPI1) are printed
# for the record only: the suite pins the tracepoints' static keys (QEMU
# TCG, tests/progs/pin_keys.c), so here a flip pokes no text.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

P=tests/faults/pmuctx-sec
GID=4242
need_exec "$P" || exit 1
use_debug_module
p=$(user_exec "$P")
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
user() { as_user 65534 65534 "$GID" "$@"; }
# Debian's default 3 refuses every user without CAP_PERFMON
old=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$old" > /proc/sys/kernel/perf_event_paranoid' EXIT
echo 2 > /proc/sys/kernel/perf_event_paranoid

flips() { cat /sys/module/pmuctx/parameters/selftest_probe_flips; }
# function-call IPIs taken by the last CPU so far
cal() {
	awk -v c="$(nproc)" '/Function call interrupts/ { print $(c + 1) }' /proc/interrupts
}
# idle MS: wait up to MS for no probes; $pb: the PMUCTX_PROBES_* bits
# then, $pms: the milliseconds waited
idle() {
	_o=$("$P" idle "$1")
	pb=${_o% *} pms=${_o#* }
}

idle 5000
check test "$pb" = 0 -- "no probes before the test (probes $pb after $pms ms)"

# churn KIND N GAP_MS: flips and IPIs of N rounds, in $nflips and $ncal;
# $slow: rounds whose create returned over 0.5 s after the previous close
# (the probes may have been unhooked meanwhile: a busy PREEMPT_RT guest)
churn() {
	_f0=$(flips) _c0=$(cal)
	if [ "$1" = cgroup ]; then
		_o=$("$P" churn "$@" || true)
	else
		_o=$(user "$p" churn "$@" || true)
	fi
	_f1=$(flips) _c1=$(cal)
	printf '%s\n' "$_o"
	slow=$(printf '%s\n' "$_o" | sed -n 's/.*, \([0-9]*\) slow .*/\1/p')
	nflips=$((_f1 - _f0))
	ncal=$((_c1 - _c0))
	diag "churn $1 x$2 (gap $3 ms): $nflips probe flips, $ncal CAL IPIs on CPU $(($(nproc) - 1))"
}

# 5 probes for a per-switch session: fork, exec, exit, free, sched_switch;
# each slow round may unhook and hook them again
churn pid 200 0
check test "$nflips" -le $((5 + 10 * ${slow:-0})) -- "200 create/close rounds of a per-switch session (uid 65534) register the probes once ($nflips flips, $slow slow rounds: at most 5 + 10 each; 2000 when every round flips)"
idle 3000
check test "$pb" = 0 -- "the probes are unregistered within 3 s of the last close (probes $pb after $pms ms)"
f=$(flips)
check test "$((f % 2))" = 0 -- "every probe registered was unregistered ($f flips since load)"

# cgroup_attach_task too (root: a cgroup session needs CAP_PERFMON)
churn cgroup 100 0
check test "$nflips" -le $((6 + 12 * ${slow:-0})) -- "100 create/close rounds of a cgroup session register the probes once ($nflips flips, $slow slow rounds: at most 6 + 12 each; 1200 when every round flips)"
idle 3000
check test "$pb" = 0 -- "the probes are unregistered within 3 s of the last cgroup session (probes $pb after $pms ms)"

# a create near the moment the unhook work runs: either it still finds
# the probes (the work sees a user and leaves them) or registers again
f0=$(flips)
for gap in 950 1000 1020 1050 990 1100; do
	user "$p" churn pid 2 "$gap" >/dev/null || true
	"$P" churn cgroup 1 "$gap" >/dev/null || true
done
idle 3000
check test "$pb" = 0 -- "rounds spaced around the delay: the probes end unregistered (probes $pb after $pms ms)"
f1=$(flips)
check test "$(((f1 - f0) % 2))" = 0 -- "rounds spaced around the delay: each registration undone ($((f1 - f0)) flips)"

# rmmod with the unhook pending: module exit unregisters synchronously
user "$p" churn pid 1 0 >/dev/null || true
idle 0
check test "$pb" != 0 -- "right after the last close the probes are still registered (probes $pb)"
check rmmod "$MODNAME" -- "rmmod with the unhook pending"
check mod_load -- "the module loads again"
idle 0
check test "$pb" = 0 -- "after the reload: no probes (probes $pb)"
check test "$(flips)" = 0 -- "after the reload: no flips yet"

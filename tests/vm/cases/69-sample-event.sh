#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Sampling on counter overflow (pmuctx record --sample-event, the
# session attr's sample_event): the source for a hardware PMU, where the
# overflow is an NMI.  The guest has no hardware PMU, so:
#   - cpu-clock (a perf software event overflowing from its hrtimer) takes
#     the same capture -> irq_work -> ring path an NMI takes: deferred
#     user callchains of tests/sample/chain stitch to main;f1;f2;f3 (>= 80%
#     of the samples, >= 90% of the deferred ones stitched, user records
#     shared), the report names the source, perf-script prints the event;
#   - --sample-event cycles fails cleanly, saying there is no hardware PMU
#     (with a hardware PMU it must record samples instead);
#   - module-native events (task-clock, ...) are refused: they never
#     overflow.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

CHAIN=$PMUCTX_TOP/tests/sample/chain
need_exec "$CLI" || exit 1
need_exec "$CHAIN" || exit 1
mod_load 2>/dev/null || true
W=${CASE_TMP:-/tmp}/sample-event
rm -rf "$W"
mkdir -p "$W"

# ---- cpu-clock overflow, deferred user callchains ----------------------------

check "$CLI" record -g -F 999 --sample-event cpu-clock -o "$W/ovf.pmu" -- \
	sh -c "echo go | '$CHAIN' -700 1 >/dev/null" -- \
	"pmuctx record -g --sample-event cpu-clock -- chain"
last_ok || diag_out "$CHECK_OUT"
check "$CLI" report -i "$W/ovf.pmu" --format folded --weight samples -- \
	"report --format folded of the overflow recording"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/ovf.folded"
# the exec and exit paths have no user stack by design (NOUSER, lib.sh)
all=$(weight_user "$W/ovf.folded" '^chain;')
full=$(weight "$W/ovf.folded" '^chain;.*main;f1;f2;f3')
if [ "$all" -ge 20 ] && [ $((full * 100)) -ge $((all * 80)) ]; then
	ok "overflow samples: $full of $all chain samples (exec/exit aside) have main;f1;f2;f3"
else
	not_ok "overflow samples: >= 20 chain samples, >= 80% with main;f1;f2;f3 ($full of $all, exec/exit aside)"
	diag_out "$(grep -v 'main;f1;f2;f3' "$W/ovf.folded" | sort -t' ' -k2 -n -r | head -n 10)"
fi
# PREEMPT_RT runs a plain irq_work in the irq_work/N thread: a sample
# written there named that thread, not the task sampled (issue 14).
wrong=$(weight "$W/ovf.folded" '^irq_work/')
if [ "$wrong" -eq 0 ]; then
	ok "overflow samples: none attributed to the irq_work thread"
else
	not_ok "overflow samples: $wrong attributed to the irq_work thread, not the sampled task"
fi
if grep -qE "^chain;.*main;f1;f2;f3;[^ ]*($SYSCALL_ENTRY_RE)" "$W/ovf.folded"; then
	ok "overflow samples: kernel callchains (the syscall entry) after f3"
else
	not_ok "overflow samples: kernel callchains (the syscall entry) after f3"
fi

check "$CLI" report -i "$W/ovf.pmu" --stitch-stats -- \
	"report --stitch-stats of the overflow recording"
stats=$CHECK_OUT
diag_out "$stats"
num() { printf '%s\n' "$stats" | sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" | head -n 1; }
stitched=$(num stitched) shared=$(num 'shared by >1 sample') deferred=$(num deferred)
nouser=$(weight_nouser "$W/ovf.folded")
if [ "${stitched:-0}" -gt 0 ] &&
   [ $((stitched * 100)) -ge $(((${deferred:-0} - nouser) * 90)) ]; then
	ok "overflow samples: $stitched of $deferred deferred samples stitched (task_work queued from the irq_work)"
else
	not_ok "overflow samples: >= 90% of deferred samples outside exec/exit stitched ($stitched of $deferred, $nouser in exec/exit)"
fi
if [ "${shared:-0}" -gt 0 ]; then
	ok "overflow samples: $shared user records shared by more than one sample"
else
	not_ok "overflow samples: user records shared by more than one sample ($shared)"
fi

check "$CLI" report -i "$W/ovf.pmu" --format text -- \
	"report --format text of the overflow recording"
if printf '%s\n' "$CHECK_OUT" | grep -q "on overflow of cpu-clock" &&
   printf '%s\n' "$CHECK_OUT" | grep -q "of event 'cpu-clock'"; then
	ok "report names the sampling source (on overflow of cpu-clock)"
else
	not_ok "report names the sampling source (on overflow of cpu-clock)"
	diag_out "$(printf '%s\n' "$CHECK_OUT" | head -n 12)"
fi
check "$CLI" report -i "$W/ovf.pmu" --format perf-script -- \
	"report --format perf-script of the overflow recording"
if printf '%s\n' "$CHECK_OUT" | grep -qE '^chain .* cpu-clock: $'; then
	ok "perf-script: samples headed with the sampled event"
else
	not_ok "perf-script: samples headed with the sampled event"
	diag_out "$(printf '%s\n' "$CHECK_OUT" | head -n 8)"
fi

# ---- hardware events: a clean failure without a PMU ----------------------------

if "$CLI" info 2>/dev/null | grep -q 'hw-pmu'; then
	check "$CLI" record -F 999 --sample-event cycles -o "$W/hw.pmu" -- \
		sh -c "echo go | '$CHAIN' -500 0 >/dev/null" -- \
		"pmuctx record --sample-event cycles (hardware PMU present)"
else
	expect_fail "$CLI" record -F 999 --sample-event cycles -o "$W/hw.pmu" -- \
		sh -c "echo go | '$CHAIN' -500 0 >/dev/null" -- \
		"pmuctx record --sample-event cycles fails without a hardware PMU"
	if printf '%s\n' "$CHECK_OUT" | grep -q "no hardware PMU" &&
	   printf '%s\n' "$CHECK_OUT" | grep -q "cycles"; then
		ok "the message names cycles and the missing hardware PMU"
	else
		not_ok "the message names cycles and the missing hardware PMU"
		diag_out "$CHECK_OUT"
	fi
	if [ "$CHECK_RC" = 1 ]; then
		ok "exit status 1 (an error, not a usage error)"
	else
		not_ok "exit status 1 (an error, not a usage error): $CHECK_RC"
	fi
fi

# ---- unprivileged: no overflow source (issue 29 item 3) ----------------------------
# Overflow counters run on every CPU, whoever runs there: a user without
# CAP_PERFMON gets EACCES for --sample-event (at any paranoid level), and
# the hrtimer source, which costs nothing where its tasks do not run.
GID=4242
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
old=$(cat /proc/sys/kernel/perf_event_paranoid)
ucli=$(user_exec "$CLI")
for par in 1 2; do
	echo "$par" > /proc/sys/kernel/perf_event_paranoid
	rc=0
	out=$(as_user 65534 65534 "$GID" sh -c "exec '$ucli' record -q -F 99 \
		--sample-event cpu-clock -o /tmp/ovf-u.pmu -- true" 2>&1) || rc=$?
	if [ "$rc" != 0 ] && printf '%s\n' "$out" | grep -q 'needs CAP_PERFMON'; then
		ok "paranoid $par: --sample-event without CAP_PERFMON is refused, saying why"
	else
		not_ok "paranoid $par: --sample-event without CAP_PERFMON is refused, saying why (exit $rc)"
		diag_out "$out"
	fi
	rc=0
	out=$(as_user 65534 65534 "$GID" sh -c "exec '$ucli' record -q -F 99 \
		-o /tmp/hrt-u.pmu -- true" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		ok "paranoid $par: the hrtimer source is allowed"
	else
		not_ok "paranoid $par: the hrtimer source is allowed (exit $rc)"
		diag_out "$out"
	fi
done
echo "$old" > /proc/sys/kernel/perf_event_paranoid

# ---- events that never overflow --------------------------------------------------

expect_fail "$CLI" record -F 999 --sample-event task-clock -o "$W/tc.pmu" -- true -- \
	"--sample-event task-clock is refused"
text_has "$CHECK_OUT" "" "never overflows" \
	"the message says why (counted at context switches, never overflows)"

exit 0

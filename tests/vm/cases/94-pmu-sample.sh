#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# Overflow sampling on instructions with callchains, on a real (emulated)
# PMU: the arm64 tier's guest under -icount (QEMU's PMUv3 counts
# instructions only then); skipped, saying so, elsewhere.  As root:
#
#   pmuctx record -g -F 100 --sample-event instructions -e instructions
#       -- tests/sample/chain -1000 0
#
# (main -> f1 -> f2 -> f3 reading /dev/zero in a loop for 1 s of CPU
# time, built with frame pointers), then:
#  - every sample is chain's (by pid), none of another task's;
#  - >= 90 % of them unwind to main;f1;f2;f3 (--format folded): the user
#    part is walked once per kernel entry from a task_work and stitched
#    (module/arch_arm64.c's frame-pointer walk, deferred callchains);
#  - the sample periods add up to the instructions the session counted
#    for chain in the same recording, at most 2 % over and 20 % under:
#    the last period of each CPU is never sampled, and an overflow inside
#    pmuctx's own task_work (the deferred walk of the user stack, slow
#    under TCG) is no sample of chain by design, while its instructions
#    are chain's (91.2 % on 6.1, 95.5 % on 6.12; 47 % when perf
#    throttled the counter, below); and the rate is near
#    the asked -F: between 1/4 and 2 times 100 samples per second of
#    chain's task-clock.
# 100 Hz, not perf's 1000, and perf's throttling off (below): an
# overflow interrupt takes ~0.3 ms under TCG, so perf lowers
# perf_event_max_sample_rate and throttles the counter (stopped until the
# next tick): at -F 1000 the periods added up to 47 % of the count.  perf
# writes THROTTLE records for that; so does pmuctx (misc
# PMUCTX_THROTTLE_PERF), checked last: perf_event_max_sample_rate 100
# (one overflow per tick at any HZ >= 100) under -F 1000, the periods
# fall short of the count, and the recording must say why: THROTTLE
# records of kind "perf" (report --format json) and record's summary
# line, the same number of times.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

CHAIN=tests/sample/chain
need_exec "$CLI" || exit 1
need_exec "$CHAIN" || exit 1
need_hw_pmu
need_icount
W=$(mktemp -d /tmp/pmu-sample.XXXXXX)
# perf's throttling off for the case: an earlier case's 1 kHz sampling in
# the same boot has made perf lower perf_event_max_sample_rate to 250
# (interrupts of 0.46 ms under TCG), one sample per 4 ms tick, and the
# frequency mode's first short periods then throttle the counter (85 %
# of the count once).  Restored after.
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
pct=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)
# (the rate cannot be written while the percentage is 0 or 100)
trap 'echo "$pct" >/proc/sys/kernel/perf_cpu_time_max_percent || true
	echo "$rate" >/proc/sys/kernel/perf_event_max_sample_rate || true
	rm -rf "$W"' EXIT
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent

# chain prints its addresses, then waits for a byte on stdin
check "$CLI" record -q -g -F 100 --sample-event instructions \
	-e task-clock,instructions -o "$W/s.pmu" -- \
	sh -c "echo go | $CHAIN -1000 0 >$W/chain.out" -- \
	"pmuctx record -g -F 100 --sample-event instructions -- chain (1 s)"
last_ok || diag_out "$CHECK_OUT"

check "$CLI" report -i "$W/s.pmu" --format perf-script -- \
	"report --format perf-script"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/s.txt"
# sample lines: "COMM PID/TID [CPU] TIME: PERIOD instructions:"
grep -E '[[:space:]]instructions:' "$W/s.txt" >"$W/s.samples" || true
total=$(wc -l <"$W/s.samples")
mine=$(awk '$1 == "chain"' "$W/s.samples" | wc -l)
pid=$(awk '$1 == "chain" { split($2, a, "/"); print a[1]; exit }' "$W/s.samples")
other=$(awk -v p="$pid" '{ split($2, a, "/"); if (a[1] != p && $1 != "sh" && $1 != "pmuctx") n++ } END { print n + 0 }' "$W/s.samples")
diag "samples: $total, chain's (pid ${pid:-?}): $mine, of other tasks: $other"
if [ "$mine" -ge 40 ] && [ "$other" = 0 ]; then
	ok "every sample is of the recorded tree, $mine of chain ($total in all)"
else
	not_ok "every sample is of the recorded tree, at least 40 of chain ($mine of chain, $other of other tasks, $total in all)"
	diag_out "$(awk '{ print $1, $2 }' "$W/s.samples" | sort | uniq -c | sort -rn | head)"
fi

check "$CLI" report -i "$W/s.pmu" --format folded --weight samples -- \
	"report --format folded --weight samples"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/s.folded"
all=$(weight "$W/s.folded" '^chain;')
full=$(weight "$W/s.folded" '^chain;.*main;f1;f2;f3')
if [ "$all" -gt 0 ] && [ $((full * 100)) -ge $((all * 90)) ]; then
	ok "callchains: $full of chain's $all samples unwind to main;f1;f2;f3 (>= 90%)"
else
	not_ok "callchains: >= 90% of chain's samples unwind to main;f1;f2;f3 ($full of $all)"
	diag_out "$(sort -t' ' -k2 -n -r "$W/s.folded" | head -n 8)"
fi

# the periods against the count, and the rate, from the per-task summary
check "$CLI" report -i "$W/s.pmu" --format json -- "report --format json"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/s.json"
# chain's task object: "pid": P, ... "values": {"task-clock": N, "instructions": N}
vals=$(tr ',{}' '\n' <"$W/s.json" | awk -v p="$pid" '
	/"pid":/ { gsub(/[^0-9]/, ""); cur = $0 }
	cur == p && /"task-clock":/ { gsub(/[^0-9]/, ""); tc = $0 }
	cur == p && /"instructions":/ { gsub(/[^0-9]/, ""); ins = $0 }
	END { print tc + 0, ins + 0 }')
tc=${vals% *} ins=${vals#* }
periods=$(awk -v p="$pid" '{ split($2, a, "/") } a[1] == p { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^instructions:/) s += $i } END { printf "%.0f", s }' "$W/s.samples")
diag "chain: task-clock $tc ns, instructions $ins counted, sample periods add up to $periods"
if [ "$ins" -gt 0 ] && awk -v s="$periods" -v c="$ins" 'BEGIN { exit !(s <= c * 1.02 && s >= c * 0.8) }'; then
	ok "the sample periods add up to the counted instructions, 2% over to 20% under ($periods of $ins)"
else
	not_ok "the sample periods add up to the counted instructions, 2% over to 20% under ($periods of ${ins:-?})"
	"$CLI" report -i "$W/s.pmu" --format text >"$W/s.report" 2>&1 || true
	diag_out "$(head -n 30 "$W/s.report")"
	diag_out "$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^instructions:/) print $i }' "$W/s.samples" | sort -n | uniq -c | sort -rn | head -n 12)"
fi
if [ "$tc" -gt 0 ] && awk -v n="$mine" -v t="$tc" 'BEGIN { r = n / (t / 1e9); exit !(r >= 25 && r <= 200) }'; then
	ok "the rate is near -F 100: $mine samples in $tc ns of chain's task-clock"
else
	not_ok "the rate is near -F 100 (25-200/s): $mine samples in ${tc:-?} ns of chain's task-clock"
fi

# perf throttles the sampling counter: one overflow per tick allowed
# (perf_event_max_sample_rate 100; it cannot be written while the
# percentage is 0), -F 1000 asked.  The periods then fall short of the
# count, and the recording must say so.
echo 25 >/proc/sys/kernel/perf_cpu_time_max_percent
echo 100 >/proc/sys/kernel/perf_event_max_sample_rate
check "$CLI" record -F 1000 --sample-event instructions -e instructions \
	-o "$W/t.pmu" -- sh -c "echo go | $CHAIN -1000 0 >/dev/null" -- \
	"pmuctx record -F 1000 --sample-event instructions, perf_event_max_sample_rate 100"
last_ok || diag_out "$CHECK_OUT"
said=$(printf '%s\n' "$CHECK_OUT" |
	sed -n 's/^pmuctx record: perf throttled the sampling counter \([0-9]*\) time.*/\1/p')
check "$CLI" report -i "$W/t.pmu" --format json -- "report --format json (throttled)"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/t.json"
# the THROTTLE records of kind "perf", and the times their "dropped" add up to
recs=$(tr '{}' '\n' <"$W/t.json" | awk '
	/"kind": *"perf"/ { n++; if (match($0, /"dropped": *[0-9]+/)) {
		d = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", d); s += d } }
	END { print n + 0, s + 0 }')
nrec=${recs% *} times=${recs#* }
check "$CLI" report -i "$W/t.pmu" --format perf-script -- "report --format perf-script (throttled)"
printf '%s\n' "$CHECK_OUT" | grep -E '[[:space:]]instructions:' >"$W/t.samples" || true
tpid=$(awk '$1 == "chain" { split($2, a, "/"); print a[1]; exit }' "$W/t.samples")
tper=$(awk -v p="$tpid" '{ split($2, a, "/") } a[1] == p { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^instructions:/) s += $i } END { printf "%.0f", s }' "$W/t.samples")
tins=$(tr ',{}' '\n' <"$W/t.json" | awk -v p="$tpid" '
	/"pid":/ { gsub(/[^0-9]/, ""); cur = $0 }
	cur == p && /"instructions":/ { gsub(/[^0-9]/, ""); ins = $0 }
	END { print ins + 0 }')
diag "throttled: chain's sample periods $tper of $tins instructions; $nrec THROTTLE perf record(s), $times time(s); record said ${said:-nothing}"
if [ "${tins:-0}" -gt 0 ] && awk -v s="${tper:-0}" -v c="$tins" 'BEGIN { exit !(s < c * 0.8) }' &&
   [ "$times" -gt 0 ] && [ "$nrec" -gt 0 ] && [ "${said:-0}" = "$times" ]; then
	ok "perf's throttling is in the recording: $times time(s) in $nrec THROTTLE record(s), said by record; the periods $tper of $tins"
else
	not_ok "perf's throttling is in the recording (periods under 80 % of the count, THROTTLE perf records, record's summary: periods ${tper:-?} of ${tins:-?}, $nrec record(s) of $times time(s), record said ${said:-nothing})"
fi

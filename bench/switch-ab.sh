#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/switch-ab.sh - A/B of module builds on the context-switch path, in
# one boot, for a VM with deterministic time (tests/vm/run --icount 0:
# guest time counts instructions, so differences of a few instructions
# per switch are visible).  Guest side; run as
#
#   tests/vm/run --smp 1 --icount 0 --no-module [--bind DIR] \
#       [--env ROUNDS=5] [--env "CFGS=idle sl ps cc sys other perf"] \
#       [--env WL=pp|fork|thr] -- bench/switch-ab.sh A.ko B.ko ...
#
# Per round, each module in turn is loaded, every configuration runs the
# workload (WL: pp = bench/pingpong pinned to CPU 0, 8 windows; fork /
# thr = bench/churn -f / -t 512, 6 repetitions), and the module is
# removed.  One line per round, module and configuration:
#   R ROUND MODULE-DIR CFG MEDIAN : WINDOW-VALUES...
# (MODULE-DIR: the second path component of the .ko, e.g. .vmbuild/NAME/..)
# Configurations: idle (no session), sl (pmuctx stat: switchless), ps
# (--per-switch), cc (cpu-clock,context-switches,cpu-migrations,
# page-faults: counter-backed), cc1 (cpu-clock alone), sys (-a
# --per-task), rec (pmuctx record -n --switch-events: a SWITCH record per
# switch through the ring writer), other (a --per-switch session on
# another process: the probe runs, the workload is not watched), perf
# (perf stat, 4 default events).  On a hardware PMU (the arm64 tier,
# bench/arm64-pmu.sh, docs/PERFORMANCE.md section 18): hw / hwni (pmuctx
# stat -e cycles,instructions, inherited / --no-inherit), perfhw /
# perfhwni (perf stat -e cycles,instructions, the same two), smp /
# perfsmp (overflow sampling on cycles at 1 kHz without callchains:
# pmuctx record --sample-event cycles -F 1000 / perf record -e cycles
# -F 1000).  With more than one vCPU the static keys are pinned first
# (tests/progs/pin_keys, docs/TESTING.md); with one, TCG's text-poke race
# cannot happen and the layout is production's.  bench/notes/15-switch-path.md.
TOP=$(pwd); CLI=$TOP/tools/pmuctx; PP=$TOP/bench/pingpong
ROUNDS=${ROUNDS:-3}; CFGS=${CFGS:-idle ps cc other}
[ "$(nproc)" -gt 1 ] && "$TOP/tests/progs/pin_keys" >/dev/null
"$PP" -l 2000 >/dev/null
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for r in $(seq "$ROUNDS"); do
	for m in "$@"; do
		insmod "$m" || exit 1
		for _ in $(seq 50); do [ -e /dev/pmuctx ] && break; sleep 0.1; done
		for cfg in $CFGS; do
			op=
			case $cfg in
			idle) w= ;;
			sl) w="$CLI stat -o /tmp/o --" ;;
			ps) w="$CLI stat --per-switch -o /tmp/o --" ;;
			cc) w="$CLI stat -e cpu-clock,context-switches,cpu-migrations,page-faults -o /tmp/o --" ;;
			cc1) w="$CLI stat -e cpu-clock -o /tmp/o --" ;;
			sys) w="$CLI stat -a --per-task -o /tmp/o --" ;;
			rec) w="$CLI record -q -n --switch-events -o /tmp/rec.data --" ;;
			other) "$CLI" stat --per-switch -o /dev/null -- sleep 3600 &
			       op=$!; sleep 1; w= ;;
			perf) w="perf stat -e task-clock,context-switches,cpu-migrations,page-faults -o /tmp/o --" ;;
			hw) w="$CLI stat -e cycles,instructions -o /tmp/o --" ;;
			hwni) w="$CLI stat --no-inherit -e cycles,instructions -o /tmp/o --" ;;
			perfhw) w="perf stat -e cycles,instructions -o /tmp/o --" ;;
			perfhwni) w="perf stat --no-inherit -e cycles,instructions -o /tmp/o --" ;;
			smp) w="$CLI record -q -F 1000 --sample-event cycles -o /tmp/rec.data --" ;;
			perfsmp) w="perf record -q -F 1000 -e cycles -o /tmp/perf.data --" ;;
			*) echo "switch-ab: unknown configuration $cfg" >&2; exit 2 ;;
			esac
			case ${WL:-pp} in
			pp) cmd="$PP -c 0 -l 2000 -r 8 -w 2000" ;;
			fork) cmd="$TOP/bench/churn -f 512 -r 6" ;;
			thr) cmd="$TOP/bench/churn -t 512 -r 6" ;;
			esac
			# shellcheck disable=SC2086
			v=$($w $cmd | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^ns_per_(switch|task)=/) {split($i, a, "="); printf "%s ", a[2]}}')
			[ -n "$op" ] && { kill "$op"; wait "$op" 2>/dev/null; }
			echo "R $r $(echo "$m" | cut -d/ -f2) $cfg $(echo "$v" | med) : $v"
		done
		rmmod pmuctx
	done
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/idle-timers.sh - local timer interrupts per second on each CPU
# while a 10 kHz sampler watches a process that sleeps: no session, 1 and
# 64 pmuctx hrtimer sessions, and perf record -F 10000 on the same pid
# (sampling issue item 1; docs/PERFORMANCE.md).  In the VM, module loaded:
#   tests/vm/run --mem 4096 -- bench/idle-timers.sh
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$TOP" || exit 1
tests/progs/pin_keys >/dev/null || echo "pin_keys failed: the run may hang"
for n in 0 1 64; do
	tests/sample/t_sample idle-rate "$n"
done
sleep 600 &
p=$!
loc() { awk '$1 == "LOC:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf "%s ", $i; print "" }' /proc/interrupts; }
if command -v perf >/dev/null; then
	perf record -q -F 10000 -e cpu-clock -p "$p" -o /tmp/idle-perf.data 2>/dev/null &
	rec=$!
	sleep 1
	a=$(loc); sleep 2; b=$(loc)
	kill -INT "$rec"; wait "$rec" 2>/dev/null
	set -- $a; read -r -a bb <<<"$b"
	out="IDLE perf-record-F10000"; i=0
	for x in "$@"; do out="$out cpu$i=$(( (bb[i] - x) / 2 ))"; i=$((i + 1)); done
	echo "$out"
else
	echo "IDLE perf: not installed"
fi
kill "$p"
echo DONE

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/churn-table.sh - run in the VM: tests/vm/run --mem 4096 -- bench/churn-table.sh
# (bench/notes/7-churn-table.md).
# Is pmuctx's thread-churn cost the rhashtable resizing?  T=4096 threads
# created and joined: unmonitored, under pmuctx stat with the store empty
# before (grows and shrinks through every size), and under pmuctx stat
# while another session holds 10000 entries (the table is already large:
# at most one resize), plus perf stat.  Interleaved rounds, one boot.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
CLI=$TOP/tools/pmuctx
CH=$TOP/bench/churn
churn() { "$@" "$CH" -t 4096 -r 3 2>/dev/null | sed -n 's/.*ns_per_task=\([0-9.]*\).*/\1/p' | tail -n 2 | tr '\n' ' '; }
"$CH" -W 2048 >/dev/null 2>&1
for r in 1 2 3 4; do
	echo "round $r none: $(churn)"
	echo "round $r pmuctx-empty: $(churn "$CLI" stat -o /dev/null --)"
	"$CLI" stat -o /dev/null -- "$CH" -H 10000 -s 300 > /tmp/hold.out 2>&1 &
	h=$!
	for i in $(seq 600); do grep -q ready /tmp/hold.out && break; sleep 0.2; done
	echo "round $r pmuctx-big-table: $(churn "$CLI" stat -o /dev/null --) (holder: $(grep -c ready /tmp/hold.out) ready, tracked $("$CLI" info --json | tr ',' '\n' | grep tasks_tracked | tr -d '\"{} '))"
	kill -TERM $(pgrep -f "churn -H") 2>/dev/null; wait $h 2>/dev/null
	echo "round $r perf: $(churn perf stat -o /dev/null -e task-clock,context-switches,cpu-migrations,page-faults --)"
done
echo CHURNEXP-DONE

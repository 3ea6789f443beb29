#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/probe-ab.sh - time pmuctx's sched_switch probe, several module
# builds in one boot (bench/notes/8-probe-time.md).
#
# usage (host): tests/vm/run --no-module --mem 4096 --icount 0 --bind DIR -- \
#                   bench/probe-ab.sh DIR/a.ko DIR/b.ko ...
# With --icount 0 (QEMU -icount shift=0,sleep=off) the guest's clocks
# count instructions: the ns below are guest instructions and do not
# depend on the host's load (without it, host time).  `make bench`
# measures the same timer for the current debug build (bench/guest.sh,
# case cs, "probe-internal time"; docs/PERFORMANCE.md section 1b).
# Each module must be a debug build (make module-debug, PMUCTX_DEBUG=1),
# whose module/probebench.c sums local_clock() time from the probe's entry
# to its exit per CPU and prints
# "probe time: n=CALLS hit=CALLS_WITH_ENTRIES ns=TOTAL" at rmmod.  For every
# round, module and workload: insmod, run the workload under pmuctx stat,
# rmmod, print one R line.  PROBE_AB_ROUNDS (5) and PROBE_AB_WORK
# ("pp sys fork") select the rounds and workloads.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$TOP" || exit 1
tests/progs/pin_keys >/dev/null || echo "pin_keys failed: the run may hang"
# The host backs guest RAM on first touch: touch it once.
bench/churn -W $(( $(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1024 - 400 )) >/dev/null 2>&1 || true
mn() { awk -F'ns_per_(switch|task)=' '/ns_per_/ {split($2,a," "); v=a[1]+0; if (m==""||v<m) m=v} END {print m}'; }
for round in $(seq "${PROBE_AB_ROUNDS:-5}"); do
	for ko in "$@"; do
		for w in ${PROBE_AB_WORK:-pp sys fork}; do
			insmod "$ko" || { echo "insmod $ko failed"; exit 1; }
			case $w in
			pp) r=$(tools/pmuctx stat -o /dev/null -- bench/pingpong -c 0 -l 2000 -r 10 -w 2000 2>&1 | mn) ;;
			sys) r=$(tools/pmuctx stat -a --per-task -o /dev/null -- bench/pingpong -c 0 -l 2000 -r 10 -w 2000 2>&1 | mn) ;;
			fork) r=$(tools/pmuctx stat -o /dev/null -- bench/churn -f 512 -r 3 2>&1 | tail -2 | mn) ;;
			esac
			rmmod pmuctx || { echo "rmmod failed"; exit 1; }
			echo "R mod=$(basename "$ko" .ko) w=$w round=$round bench=$r $(dmesg | grep 'pmuctx: probe time: ' | tail -1 | sed 's/.*probe time: //')"
		done
	done
done
echo DONE

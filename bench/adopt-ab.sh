#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/adopt-ab.sh - start and end of a system-wide session over N
# threads, several module builds in one boot (issue 13: the create walk
# must not make adoption or teardown slower than adoption at switch-in).
#
# usage (host): tests/vm/run --no-module --mem 4096 --bind DIR -- \
#                   bench/adopt-ab.sh DIR/a.ko DIR/b.ko ...
# For every round and module: insmod, bench/adopt -n N -r REPS, rmmod;
# one R line per repetition.  ADOPT_AB_ROUNDS (5), ADOPT_AB_N ("200 1000")
# ADOPT_AB_REPS (3) and ADOPT_AB_PERIOD (100000 us between a thread's wakeups;
# 5 ms with 2000 threads saturates a TCG guest) select them; bench/analysis.py-style summaries are
# left to the reader (bench/notes/10-adopt.md has the numbers).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$TOP" || exit 1
tests/progs/pin_keys >/dev/null || echo "pin_keys failed: the run may hang"
# The host backs guest RAM on first touch: touch it once.
bench/churn -W $(( $(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1024 - 400 )) >/dev/null 2>&1 || true
for round in $(seq "${ADOPT_AB_ROUNDS:-5}"); do
	for ko in "$@"; do
		for n in ${ADOPT_AB_N:-200 1000}; do
			insmod "$ko" || { echo "insmod $ko failed"; exit 1; }
			bench/adopt -n "$n" -r "${ADOPT_AB_REPS:-3}" -p "${ADOPT_AB_PERIOD:-100000}" |
				sed "s/^adopt /R mod=$(basename "$ko" .ko) round=$round /"
			rmmod pmuctx || { echo "rmmod failed"; exit 1; }
		done
	done
done
echo DONE

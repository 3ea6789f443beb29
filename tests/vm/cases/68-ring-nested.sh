#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Nested ring writers under load (tests/ring/t_nested): on one CPU, two
# threads ping-ponging (SWITCH records from sched_switch), a thread writing
# checksummed, numbered USER records with write(2), a thread creating
# threads (FORK/EXIT records) and the sampling hrtimer at a high rate
# (SAMPLE records from hardirq context, nesting inside the others), all
# into that CPU's buffer.  Normal mode with a reader keeping up (mmap +
# RING_CONSUME): at least 10^6 records (2 x 10^5 on a debug kernel), none
# corrupted, USER records intact and in order, lost = written - read
# exactly.  Then a short normal run read with read(2), and overwrite mode
# with snapshots taken while the writers go on: every window parses into
# complete records from data_tail to data_head.  About 70 s on the Debian
# kernel under TCG (the 10^6 run: 35-50 s), 100 s on the debug kernel.
#
# PMUCTX_NESTED_RECORDS / PMUCTX_NESTED_FREQ override the record target
# of the main run and the sampling frequency.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=$PMUCTX_TOP/tests/ring/t_nested
need_exec "$T" || exit 1
mod_load 2>/dev/null || true
rc=0

case $(uname -r) in
*debug*) records=200000 small=20000 ;;
*) records=1000000 small=100000 ;;
esac
records=${PMUCTX_NESTED_RECORDS:-$records}
freq=${PMUCTX_NESTED_FREQ:-20000}
diag "kernel $(uname -r): $records records in the main run, sampling at $freq Hz"

# sample_freq above the default max_sample_freq (10000): raise the cap
P=/sys/module/$MODNAME/parameters/max_sample_freq
old_max=$(cat "$P")
[ "$freq" -le "$old_max" ] || echo "$freq" >"$P"

start=$(date +%s)
"$T" normal -n "$records" -F "$freq" -t 240 || rc=1
diag "normal mode, mmap + RING_CONSUME: $(($(date +%s) - start)) s"
start=$(date +%s)
"$T" normal -r -n "$small" -F "$freq" -p 64 -t 120 || rc=1
diag "normal mode, read(2): $(($(date +%s) - start)) s"
start=$(date +%s)
"$T" overwrite -n "$((small * 2))" -F "$freq" -p 16 -t 120 || rc=1
diag "overwrite mode, snapshots: $(($(date +%s) - start)) s"

echo "$old_max" >"$P"
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# The per-task store, counting and inheritance, through raw ioctls
# (tests/store/t_store): fork trees against rusage, parent exiting first,
# a session closed while its children run, 1000 short-lived threads, two
# sessions on one workload, system-wide per-task attribution of a pinned
# and a migrating task, the selftest save area (788 bytes) following
# tasks over >= 10000 migrations, cgroup sessions (tasks that leave, join
# and fork there), counting across one offline/online cycle of cpu1, and
# a cgroup session closed while its join worker runs (cgclose), RESET
# while tasks switch and fold (reset-race).
# Each test checks the store is empty afterwards.  The release module runs
# all but four; the selftest save area (migrate), the counters held off
# after the cycle (hotplug-gap, the hook selftest_revive_delay_ms), the
# join worker held past release's start (cgclose, selftest_join_delay_ms
# and the counter selftest_dead_cached) and the totals' read-modify-write
# windows held open (reset-race, selftest_total_delay_us) need the debug
# build (t_store --debug).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=tests/store/t_store
need_exec "$T" || exit 1
mod_load 2>/dev/null || true
rc=0
"$T" --release || rc=1
use_debug_module
"$T" --debug || rc=1
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 1200
#
# Allocation-failure injection (tests/faults/pmuctx-faults): for open,
# every ioctl, session creation for each target (first session included),
# mmap, read/write/poll, close, fork/clone and exec of a monitored task,
# the n-th slab allocation of the call fails (fail-nth + failslab), for
# every n the call reaches.  Each failure must be a clean error (or be
# absorbed), leave the store exactly as before, and leak nothing (the
# harness scans kmemleak at the end).  Then the per-CPU pools run dry:
# with pool_size=1 and max_tasks=64 every atomic allocation fails while
# monitored tasks fork and clone; tasks are counted as dropped.
# Needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS (the debug
# kernel); elsewhere the case is skipped.  Runs on the debug build of the
# module: its sessions use the SELFTEST backend (save areas in every entry).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=tests/faults/pmuctx-faults
need_exec "$T" || exit 1
if [ ! -e /proc/self/fail-nth ] || [ ! -d /sys/kernel/debug/failslab ]; then
	echo "1..0 # SKIP no fault injection in this kernel"
	exit 0
fi
use_debug_module

rc=0
"$T" || rc=1

# The pools running dry: reload with one pre-allocated entry per CPU.
if mod_unload && insmod "$MODULE" pool_size=1 max_tasks=64; then
	ok "faults: module reloaded with pool_size=1 max_tasks=64"
	"$T" pool-storm || rc=1
else
	not_ok "faults: module reloaded with pool_size=1 max_tasks=64"
	rc=1
fi
echo 0 > /sys/kernel/debug/failslab/probability
mod_unload
insmod "$MODULE"
exit "$rc"

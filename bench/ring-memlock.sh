#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ring-memlock.sh - ring_bench gives back the locked memory it
# charges (debug builds; module/ringbench.c).  Guest side, one boot:
#
#   tests/vm/run --smp 1 --no-module -- bench/ring-memlock.sh A.ko [B.ko ...]
#
# For each module (a debug build): six ring_bench runs (64-byte records,
# normal mode, 64 pages) as root without CAP_IPC_LOCK under a 1 MiB
# RLIMIT_MEMLOCK; each run charges both of its rings (about 520 KiB with
# one CPU) to root's locked_vm and must give all of it back.  Prints
# "RESULT MODULE: N of 6 runs".  A charge that is not given back stays
# with root's user_struct after rmmod: run a fixed module before one
# that leaks, or each in its own boot.  ef4c984 leaked the bare ring's
# data pages (its teardown read the size after pmuctx_ring_destroy()
# zeroed it): 2 of 6 runs; d8832b8: 6 of 6.
for m in "$@"; do
	insmod "$m" || exit 1
	for _ in $(seq 50); do [ -e /dev/pmuctx ] && break; sleep 0.1; done
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ok=0
	for i in 1 2 3 4 5 6; do
		if setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock -- \
			prlimit --memlock=1048576:1048576 \
			sh -c 'echo "64 1000 normal 64" > /sys/kernel/debug/pmuctx/ring_bench' \
			2>/tmp/ring-memlock.err; then
			ok=$((ok + 1))
		else
			echo "$m: run $i failed: $(cat /tmp/ring-memlock.err)"
		fi
	done
	echo "RESULT $m: $ok of 6 runs"
	rmmod pmuctx
done

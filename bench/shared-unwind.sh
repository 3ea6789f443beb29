#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/shared-unwind.sh - deferred user stack walks per kernel entry with
# 1, 2, 4 and 8 deferred sampling sessions (1 kHz each, kernel and user
# stacks) on one task that spends its time in 8 MiB read(2)s of /dev/zero
# (sampling issue item 4; docs/PERFORMANCE.md).  Each line: samples,
# USER_CALLCHAIN records, walks (distinct cookies: one per unwind) and the
# records' bytes, all sessions together.  In the VM, module loaded:
#   tests/vm/run --mem 4096 -- bench/shared-unwind.sh
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$TOP" || exit 1
tests/progs/pin_keys >/dev/null || echo "pin_keys failed: the run may hang"
for n in 1 2 4 8; do
	for rep in 1 2 3; do
		tests/sample/t_sample shared-bench "$n"
	done
done
echo DONE

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 1800
#
# tests/fuzz/pmuctx-fuzz: random and mutated ioctls, mmaps, read/write/poll,
# fd passing, forks/execs/exits of monitored tasks, fds closed by another
# thread, in 4 processes (one of them unprivileged: uid 65534 in the
# device's group, perf_event_paranoid 2).  Expected errors are not
# failures; broken invariants are (see the program's header), and so is
# anything in the kernel log.  At the end the store must be empty.
#
# Operations: 100000 on a debug kernel (fault injection present), 20000
# otherwise, to keep the regular suite short; PMUCTX_FUZZ_OPS overrides.
# The seed is random (printed in the result); PMUCTX_FUZZ_SEED pins it.
# Replay: tests/vm/run -- tests/fuzz/pmuctx-fuzz --replay SEED --ops N --procs 4
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

F=tests/fuzz/pmuctx-fuzz
need_exec "$F" || exit 1
mod_load 2>/dev/null || true

if [ -e /proc/self/fail-nth ] || uname -r | grep -q debug; then
	ops=${PMUCTX_FUZZ_OPS:-100000}
else
	ops=${PMUCTX_FUZZ_OPS:-20000}
fi
procs=${PMUCTX_FUZZ_PROCS:-4}
seed=${PMUCTX_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

chgrp 4242 "$DEV"
chmod 0660 "$DEV"
old=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$old" > /proc/sys/kernel/perf_event_paranoid' EXIT
echo 2 > /proc/sys/kernel/perf_event_paranoid

log=$CASE_TMP/fuzz.log
rc=0
"$F" --seed "$seed" --ops "$ops" --procs "$procs" --unpriv 1 --group 4242 \
	--timeout 1700 >"$log" 2>&1 || rc=$?
summary=$(grep '^pmuctx-fuzz: [0-9]* operations' "$log" | tail -n 1)
grep '^# ' "$log" || true
nfail=$(grep -c '^FAIL:' "$log" || true)
if [ "$rc" -eq 0 ] && [ "$nfail" -eq 0 ] && [ -n "$summary" ]; then
	ok "fuzz: ${summary#pmuctx-fuzz: }"
else
	not_ok "fuzz: $procs processes, $ops operations, seed $seed: exit $rc, $nfail failures"
	grep '^FAIL:' "$log" | head -n 30 | sed 's/^/# /'
	[ -n "$summary" ] || tail -n 20 "$log" | sed 's/^/# /'
	diag "replay: tests/vm/run -- $F --replay $seed --ops $ops --procs $procs --unpriv 1 --group 4242"
fi

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
# Operations: 15000 on a debug kernel (fault injection present; 100000
# until 2026-11-30, then 80000, 50000 and 25000, trimmed to keep CI's
# whole run under 80 minutes, docs/TESTING.md "CI time"; every run a new
# seed, and the corpus and the model check first), 20000 otherwise, to
# keep the regular suite short;
# PMUCTX_FUZZ_OPS overrides.
# First the directed model check (--model-check, root and unprivileged),
# then every seed of tests/fuzz/corpus/seeds (seeds that once failed),
# then a random seed (printed in the result); PMUCTX_FUZZ_SEED pins it.
# Replay: tests/vm/run -- tests/fuzz/pmuctx-fuzz --replay SEED --ops N --procs 4
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

F=tests/fuzz/pmuctx-fuzz
need_exec "$F" || exit 1
mod_load 2>/dev/null || true

if debug_kernel; then
	ops=${PMUCTX_FUZZ_OPS:-15000}
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

# fuzz ID ARGS...: one run of the fuzzer as a TAP line.
fuzz() {
	_id=$1
	shift
	log=$CASE_TMP/fuzz.log
	rc=0
	"$F" "$@" --group 4242 --timeout 1700 >"$log" 2>&1 || rc=$?
	summary=$(grep '^pmuctx-fuzz: [0-9]* operations' "$log" | tail -n 1)
	grep '^# ' "$log" || true
	nfail=$(grep -c '^FAIL:' "$log" || true)
	if [ "$rc" -eq 0 ] && [ "$nfail" -eq 0 ] && [ -n "$summary" ]; then
		ok "fuzz $_id: ${summary#pmuctx-fuzz: }"
	else
		not_ok "fuzz $_id: $*: exit $rc, $nfail failures"
		grep '^FAIL:' "$log" | head -n 30 | sed 's/^/# /'
		[ -n "$summary" ] || tail -n 20 "$log" | sed 's/^/# /'
		diag "replay: tests/vm/run -- $F $* --group 4242"
	fi
}

# 1. The model against the kernel, directed: what a created session has
# (ring or not) for every attr size, as root and as the unprivileged user.
for who in root unpriv; do
	args=
	[ "$who" = root ] || args="--unpriv 1 --group 4242"
	# shellcheck disable=SC2086 # args is a word list
	if out=$("$F" --model-check $args 2>&1); then
		ok "fuzz model check ($who): $(printf '%s\n' "$out" | tail -n 1)"
	else
		not_ok "fuzz model check ($who)"
		diag_out "$(printf '%s\n' "$out" | grep '^FAIL' | head -n 20)"
	fi
done

# 2. Every seed that once failed (tests/fuzz/corpus/seeds), before the
# random one.
corpus=tests/fuzz/corpus/seeds
n=0
while read -r cseed cops cprocs cunpriv cstream _; do
	case "$cseed" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	fuzz "corpus $cseed" --replay "$cseed" --ops "$cops" --procs "$cprocs" \
		--unpriv "$cunpriv" --stream "$cstream"
done <"$corpus"
[ "$n" -gt 0 ] || not_ok "fuzz corpus: $corpus has no seed"

# 3. A random seed (printed; PMUCTX_FUZZ_SEED pins it).  A failure prints
# its replay line: add it to the corpus with what it found.
fuzz "seed $seed" --seed "$seed" --ops "$ops" --procs "$procs" --unpriv 1

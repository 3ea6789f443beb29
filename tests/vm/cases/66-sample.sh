#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Sampling and deferred user callchains, kernel side (tests/sample): the
# chain main -> f1 -> f2 -> f3 in a syscall loop stitches back to exactly
# that user chain with the syscall entry in the kernel part, deferred user
# stacks are shared by several samples and carry no period, stitching
# works across CPUs when the task migrates before returning to user
# space, a task killed in a long syscall leaves its cookie unresolved, and
# an unprivileged session never sees a kernel address (kptr_restrict 1)
# nor samples above kernel.perf_event_max_sample_rate.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=tests/sample/t_sample
need_exec "$T" || exit 1
need_exec tests/sample/chain || exit 1
mod_load 2>/dev/null || true
rc=0
"$T" || rc=1
# the global sample budget and its module parameters (sampling item 1)
"$T" budget || rc=1
# sample_cpu_percent bounds the deferred work (dumps) too (issue 29 item 8)
"$T" budget-deferred || rc=1
# one user stack walk per kernel entry for all sessions (sampling item 4)
"$T" shared || rc=1

# Unprivileged: own child allowed, kernel-mode samples with their kernel
# addresses hidden.  That needs paranoid 1 (at 2 an exclude_kernel session
# gets no kernel-mode sample at all: 73-security kmode) and kptr_restrict 1
# (at 0 and paranoid 1 kallsyms_show_value() shows them to everyone).
GID=4242
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
old=$(cat /proc/sys/kernel/perf_event_paranoid)
oldk=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 > /proc/sys/kernel/perf_event_paranoid
echo 1 > /proc/sys/kernel/kptr_restrict
mkdir -p /tmp/pmuctx-sample
cp tests/sample/t_sample tests/sample/chain /tmp/pmuctx-sample/
chmod 0755 /tmp/pmuctx-sample /tmp/pmuctx-sample/*
as_user 65534 65534 "$GID" /tmp/pmuctx-sample/t_sample unpriv || rc=1
# the budget is shared per user: uid 65534's 16 sessions against root's
# one (issue 29 item 8); root forks the user's side, group $GID
"$T" budget-user || rc=1
# the same while the task changes CPU every 15 ms
"$T" budget-user-migrate || rc=1
# kernel.perf_event_max_sample_rate holds for them too (sampling item 1)
oldr=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo 1000 > /proc/sys/kernel/perf_event_max_sample_rate
as_user 65534 65534 "$GID" /tmp/pmuctx-sample/t_sample maxrate || rc=1
echo "$oldr" > /proc/sys/kernel/perf_event_max_sample_rate
echo "$old" > /proc/sys/kernel/perf_event_paranoid
echo "$oldk" > /proc/sys/kernel/kptr_restrict
# a stalled deferred work (debug hook selftest_work_stall_ms) costs the
# other sessions on its CPU nothing (issue 29 item 8)
use_debug_module
"$T" budget-stall || rc=1
exit "$rc"

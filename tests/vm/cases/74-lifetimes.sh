#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Lifetimes: close() of a session waits on nothing user space controls
# (tests/sample/t_release, run as root):
#  - blocked: a watched child sampled in the kernel (deferred user
#    callchain pending) then asleep in that same system call; the
#    recorder's close() returns (it used to wait in D state until the
#    child returned to user space); the module's pending_works names the
#    child while its work holds the module, before and after the close(),
#    and no longer once it is gone (issue 29 item 8);
#  - lifo: the last session fd closed by a watched child in the system
#    call in which it was sampled; the fput's task_work runs before the
#    deferred unwind (LIFO), and release must not wait for it (it used to:
#    a deadlock, an unkillable task).
#  - exitrace: threads exit while their session is closed, 200 rounds; on
#    the debug kernel KASAN watches release freeing per-CPU session data
#    that an exit probe which took an entry out of the store just before
#    the unhash still folds into (lifetimes item 2: a grace period after
#    the unhash).
#  - rmmod: the module is removed while the deferred-unwind task_work that
#    dropped the last module reference still runs module code (widened by
#    the selftest_task_work_tail_ms hook): removal must wait for it with
#    RCU Tasks (lifetimes item 3).  The window is forced, not waited for:
#    the work is queued in a poll() the child then sleeps in, the session
#    is closed, the child woken, and rmmod is made when the module's
#    refcount is 0 while the child is not back in user space (the work's
#    tail).  A missed window is tried again, up to 4 times, then reported
#    as a SKIP with its reason (issue 32 item 6).
#    The hook is the debug build's: this one runs on it, the others on
#    the release module.
# Each case is bounded (20 s) and reports a hang as "not ok".
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=tests/sample/t_release
need_exec "$T" || exit 1
mod_load 2>/dev/null || true
rc=0
"$T" || rc=1
use_debug_module
# removes the module (the hook's value goes with it), then load it again
"$T" rmmod || rc=1
mod_load
exit "$rc"

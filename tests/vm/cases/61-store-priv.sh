#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Privilege model of counting sessions, as an unprivileged user (uid 65534
# in the device's group): another user's pid and system-wide are refused;
# the user's own child is allowed at perf_event_paranoid 2 and refused at 3
# (Debian's default); a user's sessions are capped (max_sessions_per_user,
# EMFILE); a setuid-root program exec'd by a monitored task is not counted
# and the session says so.  Store memory (pools, kept entries) is charged
# to the creator's memory cgroup, and a session that cannot use pools has
# none.  The SELFTEST backend is refused to the user: EOPNOTSUPP by the
# release module, which has none, EACCES by the debug build.  Last, on the
# debug build, the setuid exec racing SESSION_CREATE (the hook
# selftest_attach_delay_ms).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=tests/store/t_store
GID=4242
NOBODY=65534
need_exec "$T" || exit 1
need_exec tests/store/suidburn || exit 1
mod_load 2>/dev/null || true
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
t=$(user_exec "$T")
old=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$old" > /proc/sys/kernel/perf_event_paranoid' EXIT

echo 2 > /proc/sys/kernel/perf_event_paranoid
rc=0
as_user "$NOBODY" "$NOBODY" "$GID" "$t" unpriv || rc=1
# The default events include page-faults, a per-CPU perf kernel counter.
if [ -x "$CLI" ]; then
	check as_user "$NOBODY" "$NOBODY" "$GID" "$(user_exec "$CLI")" stat -x, -- true -- \
		"unprivileged pmuctx stat with the default events (page-faults too) at paranoid 2"
fi

echo 3 > /proc/sys/kernel/perf_event_paranoid
as_user "$NOBODY" "$NOBODY" "$GID" "$t" paranoid3 || rc=1

# The per-user session cap (root is not limited).
echo 2 > /proc/sys/kernel/perf_event_paranoid
cap=$(cat /sys/module/pmuctx/parameters/max_sessions_per_user)
echo 5 > /sys/module/pmuctx/parameters/max_sessions_per_user
as_user "$NOBODY" "$NOBODY" "$GID" "$t" sesscap || rc=1
echo "$cap" > /sys/module/pmuctx/parameters/max_sessions_per_user

# A setuid-root helper on a filesystem that honours setuid (tmpfs /tmp).
echo 2 > /proc/sys/kernel/perf_event_paranoid
mkdir -p /tmp/pmuctx-suid
chmod 0755 /tmp/pmuctx-suid
cp tests/store/suidburn /tmp/pmuctx-suid/suidburn
chown 0:0 /tmp/pmuctx-suid/suidburn
chmod 4755 /tmp/pmuctx-suid/suidburn
as_user "$NOBODY" "$NOBODY" "$GID" "$t" setuid /tmp/pmuctx-suid/suidburn || rc=1
# The same exec under a root (CAP_PERFMON) session: stopped too, as perf.
"$T" setuid-root /tmp/pmuctx-suid/suidburn || rc=1
# Credentials are per thread: a process with a root thread (run as root,
# the attacker is uid 65534 inside).
"$T" threads-uid || rc=1
# One user cannot take the whole store (max_tasks 1000, 400 per user).
pm=/sys/module/pmuctx/parameters
mt=$(cat "$pm/max_tasks")
echo 1000 > "$pm/max_tasks"
mtu=$(cat "$pm/max_tasks_per_user" 2>/dev/null || echo)
[ -z "$mtu" ] || echo 400 > "$pm/max_tasks_per_user"
"$T" usershare || rc=1
echo "$mt" > "$pm/max_tasks"
[ -z "$mtu" ] || echo "$mtu" > "$pm/max_tasks_per_user"
# store memory is the session creator's: charged to its memory cgroup
"$T" memcg || rc=1
# no SELFTEST backend in the release module
"$T" selftest-perm || rc=1

# The debug build from here on: the device node is new, its group again.
use_debug_module
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
echo 2 > /proc/sys/kernel/perf_event_paranoid
# the SELFTEST backend's kernel save areas: CAP_PERFMON only
"$T" selftest-perm || rc=1
# The setuid exec racing SESSION_CREATE: the module's test hook sleeps
# 300 ms between the permission check and hashing; the exec lands in
# between.
p=/sys/module/pmuctx/parameters/selftest_attach_delay_ms
echo 300 > "$p"
as_user "$NOBODY" "$NOBODY" "$GID" "$t" setuid-race /tmp/pmuctx-suid/suidburn || rc=1
echo 0 > "$p"
exit "$rc"

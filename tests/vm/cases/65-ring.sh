#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# Ring buffers.  tests/ring/t_ring (kernel side, through libpmuctx and raw
# system calls): overwrite mode with 50 x the buffer of numbered USER
# records on one CPU and on every CPU at once (the newest contiguous run
# ending at the last record, complete records, at least half the buffer
# kept); normal mode with a stalled reader (lost = written - read exactly,
# a LOST record once space returns, wakeup_bytes and poll); SNAPSHOT /
# RESUME (records written while frozen are lost, not written); the
# task-clock > 5 ms trigger (POLLIN for a task busy 20 ms between
# switches, none for one sleeping 1 ms in a loop); bad mmaps, attributes,
# ioctls, reads and writes; RLIMIT_MEMLOCK; munmap and close while writers
# run; nothing left behind.  Then the CLI: pmuctx record (normal and
# --overwrite), pmuctx snapshot while it records, pmuctx report in every
# format, --trigger, the exit status, and the errors a user meets
# (max_ring_pages, ulimit -l, -c, a truncated file).  Issue 16 item 6:
# a wrapped system-wide flight recorder says per CPU what its window
# holds (span, the kernel's overwritten count), names every task that was
# there before, gives one loss total in every format; a trigger window
# names the task and slice that fired it.  The CLI's recordings here are
# of records alone: -n (--no-samples), since pmuctx record samples by
# default (issue 30 item 2), as perf record does.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

T=$PMUCTX_TOP/tests/ring/t_ring
GID=4242
NOBODY=65534
need_exec "$T" || exit 1
need_exec "$CLI" || exit 1
mod_load 2>/dev/null || true
W=${CASE_TMP:-/tmp}/ring
rm -rf "$W"
mkdir -p "$W"
chmod 0777 "$W"
rc=0

"$T" || rc=1

# ---- pmuctx record, normal mode -------------------------------------------

check "$CLI" record -n --switch-events -o "$W/n.pmu" -- \
	"$T" work --busy 2 --sleep 10 --loops 40 -- \
	"record (normal mode) of a workload"
last_ok || diag_out "$CHECK_OUT"
check "$CLI" report -i "$W/n.pmu" -- "report of the stream"
rep=$CHECK_OUT
case $rep in
*"# window 0 (stream)"*) ok "report: one stream window" ;;
*) not_ok "report: one stream window"; diag_out "$rep" ;;
esac
case $rep in
*"0 lost"*) ok "report: nothing lost" ;;
*) not_ok "report: nothing lost"; diag_out "$(printf '%s\n' "$rep" | grep '^#')" ;;
esac
check "$CLI" report -i "$W/n.pmu" --format perf-script -- "perf-script"
# 40 x (2 ms busy, 10 ms sleep): 40 switches to sleep (under TCG on a
# loaded host a sleep can end before the task switches out: >= 30)
n=$(printf '%s\n' "$CHECK_OUT" | grep -c ' pmuctx:sched_switch: prev_comm=t_ring prev_pid=[0-9]* prev_state=[A-Z+]* ==> next_comm=' || true)
if [ "$n" -ge 30 ]; then
	ok "perf-script: $n sched_switch lines of the workload in perf's shape"
else
	not_ok "perf-script: sched_switch lines of the workload ($n, want >= 30)"
	diag_out "$CHECK_OUT"
fi
n=$(printf '%s\n' "$CHECK_OUT" | grep -c 'sched_process_exec: filename=.*t_ring' || true)
[ "$n" -ge 1 ] && ok "perf-script: the exec of the workload" ||
	not_ok "perf-script: the exec of the workload"
check "$CLI" report -i "$W/n.pmu" --format json -- "json"
if printf '%s' "$CHECK_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["complete"] and d["exit_status"] == 0 and len(d["windows"]) == 1 and d["tasks"]' 2>"$W/py.err"; then
	ok "json: valid, complete, exit status 0, tasks"
else
	not_ok "json: valid, complete, exit status 0, tasks"
	diag_out "$(cat "$W/py.err")"
fi
expect_fail "$CLI" record -n -o "$W/x.pmu" -- sh -c 'exit 7' -- "record -n -- sh -c 'exit 7'"
[ "$CHECK_RC" = 7 ] && ok "record exits with the command's status (7)" ||
	not_ok "record exits with the command's status (got $CHECK_RC, want 7)"

# ---- --overwrite, snapshot while recording ------------------------------------

"$CLI" record -n --overwrite --switch-events -o "$W/o.pmu" -- \
	"$T" work --busy 2 --sleep 1 --loops 0 --pidfile "$W/pid" \
	2>"$W/rec.err" &
rec=$!
if wait_for 30 test -s "$W/pid"; then
	wpid=$(cat "$W/pid")
	ok "the flight recorder runs (recorder $rec, workload $wpid)"
else
	wpid=
	not_ok "the flight recorder runs"
fi
sleep 1
before=$("$T" now)
check "$CLI" snapshot --pid "$rec" -- "pmuctx snapshot --pid RECORDER"
case $CHECK_OUT in
*"wrote window 0"*) ok "snapshot: the recorder wrote window 0" ;;
*) not_ok "snapshot: the recorder wrote window 0"; diag_out "$CHECK_OUT" ;;
esac
check "$CLI" report -i "$W/o.pmu" -- "report while the recorder goes on"
case $CHECK_OUT in
*"# window 0 (request from pid"*"still going on"*|*"still going on"*"# window 0 (request from pid"*)
	ok "report: window 0 (request), the recording still going on" ;;
*) not_ok "report: window 0 (request), the recording still going on"
   diag_out "$(printf '%s\n' "$CHECK_OUT" | grep '^#')" ;;
esac
check "$CLI" report -i "$W/o.pmu" --format perf-script -- "perf-script of the snapshot"
# The newest line that has a time: check's output merges stderr, and a
# "records were lost" note there can split the last line in two.
lastw=$(printf '%s\n' "$CHECK_OUT" | grep "prev_pid=$wpid " |
	sed -n 's/.*\] *\([0-9]*\.[0-9]*\): .*/\1/p' | tail -n 1)
if [ -n "$lastw" ] && awk -v a="$lastw" -v b="$before" 'BEGIN { exit !(a + 0.5 >= b) }'; then
	ok "snapshot: the newest switch of the workload ($lastw) is from just before the request ($before)"
else
	not_ok "snapshot: the newest switch of the workload (${lastw:-none}) is from just before the request ($before)"
	diag_out "$(printf '%s\n' "$CHECK_OUT" | tail -n 5)"
fi
kill -USR2 "$rec" 2>/dev/null || true
sleep 1
[ -n "$wpid" ] && kill "$wpid" 2>/dev/null || true
st=0
wait "$rec" || st=$?
[ "$st" = 143 ] && ok "the recorder ends with its command (killed: 143)" ||
	not_ok "the recorder ends with its command (status $st, want 143)"
diag_out "$(cat "$W/rec.err")"
check "$CLI" report -i "$W/o.pmu" --summary -- "report of the finished recording"
case $CHECK_OUT in
*"# window 1 (signal from pid"*"# window 2 (exit)"*) ok "report: windows request, signal, exit" ;;
*) not_ok "report: windows request, signal, exit"; diag_out "$CHECK_OUT" ;;
esac
case $CHECK_OUT in
*"command exit status 143"*) ok "report: the command's exit status" ;;
*) not_ok "report: the command's exit status" ;;
esac
sz=$(stat -c %s "$W/o.pmu")
head -c $((sz - 24)) "$W/o.pmu" >"$W/cut.pmu"
expect_fail "$CLI" report -i "$W/cut.pmu" -- "report of a truncated file fails"
case $CHECK_OUT in
*truncated*) ok "... saying it is truncated" ;;
*) not_ok "... saying it is truncated"; diag_out "$CHECK_OUT" ;;
esac

# ---- what a wrapped window covers (issue 16 item 6) -------------------------------
# -a into 8 KiB per CPU: the buffers wrap many times over.  The threads
# there before recording (read from /proc just before) must all be named.

for d in /proc/[0-9]*/task/[0-9]*; do
	echo "${d##*/}"
done >"$W/pre.tids"
check "$CLI" record -q -n -a --overwrite --switch-events --buffer-size 8K \
	-o "$W/fa.pmu" -- "$T" work --busy 1 --sleep 1 --loops 1500 -- \
	"record -a --overwrite --buffer-size 8K (a wrapped flight recorder)"
check "$CLI" report -i "$W/fa.pmu" --format json -- "json of the wrapped recording"
printf '%s' "$CHECK_OUT" >"$W/fa.json"
if python3 - "$W/fa.json" "$W/pre.tids" >"$W/py.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pre = set(int(x) for x in open(sys.argv[2]).read().split())
w = d["windows"][-1]
assert w["reason"] == "exit", w["reason"]
wrapped = [c for c in w["cpus"] if c["overwritten"] > 0]
assert wrapped, "no CPU with records overwritten: %r" % w["cpus"]
for c in wrapped:
    # a span (not a time before the start: the kernel's COMM records of
    # SESSION_CREATE come before the recorder's start time)
    assert c["records"] and c["first_ns"] <= c["last_ns"], c
kernel = [r for r in w["records"] if not r.get("recorder")]
assert sum(c["records"] for c in w["cpus"]) == len(kernel), "per-CPU counts"
assert w["overwritten"] == sum(c["overwritten"] for c in w["cpus"])
print("wrapped CPUs: " + ", ".join("cpu%d %d..%d ns, %d overwritten" %
      (c["cpu"], c["first_ns"], c["last_ns"], c["overwritten"])
      for c in wrapped))
seen = [t for t in d["tasks"] if t["tid"] in pre]
unnamed = [t["tid"] for t in seen if not t["comm"]]
print("%d of %d tasks there before are unnamed %r" % (len(unnamed), len(seen), unnamed))
assert seen and not unnamed
lost = sum(x["lost"] for x in d["windows"] if x["complete"])
assert d["lost_total"] == lost, (d["lost_total"], lost)
print("lost_total %d" % lost)
PY
then
	ok "wrapped window: per-CPU spans and overwritten counts, every earlier task named"
	diag_out "$(cat "$W/py.out")"
else
	not_ok "wrapped window: per-CPU spans and overwritten counts, every earlier task named"
	diag_out "$(cat "$W/py.out")"
fi
lost=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lost_total"])' "$W/fa.json" 2>/dev/null || echo x)
check "$CLI" report -i "$W/fa.pmu" --summary -- "text report of the wrapped recording"
txt=$CHECK_OUT
"$CLI" report -i "$W/fa.pmu" --format perf-script >/dev/null 2>"$W/ps.err" || true
case $txt in
*"# windows:  "*", $lost lost"*) ok "header: $lost lost, as JSON's lost_total" ;;
*) not_ok "header: $lost lost, as JSON's lost_total"; diag_out "$(printf '%s\n' "$txt" | grep '^#' | head -n 20)" ;;
esac
if [ "$lost" = 0 ]; then
	grep -q 'were lost' "$W/ps.err" &&
		not_ok "perf-script: nothing lost, nothing said" ||
		ok "perf-script: nothing lost, nothing said"
else
	grep -q "^pmuctx report: $lost record(s) were lost" "$W/ps.err" &&
	case $txt in *"# $lost record(s) were lost"*) true ;; *) false ;; esac &&
		ok "summary and perf-script: the same $lost lost" ||
		{ not_ok "summary and perf-script: the same $lost lost"; diag_out "$(cat "$W/ps.err")"; }
fi
case $txt in
*"#   cpu"*" overwritten, "*" lost"*) ok "text: per-CPU lines with span, overwritten, lost" ;;
*) not_ok "text: per-CPU lines with span, overwritten, lost"; diag_out "$(printf '%s\n' "$txt" | grep '^#' | head -n 20)" ;;
esac

# ---- --trigger ----------------------------------------------------------------
# -p: attached to a running workload, so the slice of its exec (which can
# run over 5 ms under TCG) is not part of the session.

# trig NAME BUSY SLEEP: record -p of "t_ring work" for 2 s with the trigger
trig() {
	rm -f "$W/pid"
	"$T" work --busy "$2" --sleep "$3" --loops 0 --pidfile "$W/pid" &
	_w=$!
	wait_for 30 test -s "$W/pid" || true
	check "$CLI" record -q -n -p "$_w" --duration "${4:-2}" --switch-events \
		--trigger 'task-clock>5ms' -o "$W/$1.pmu" -- \
		"record -p (busy $2 ms, sleep $3 ms) --trigger 'task-clock>5ms' --duration ${4:-2}"
	kill "$_w" 2>/dev/null || true
	wait "$_w" 2>/dev/null || true
	check "$CLI" report -i "$W/$1.pmu" --summary -- "report"
}
trig t1 20 10
case $CHECK_OUT in
*"(trigger)"*) ok "a busy 20 ms slice fires the trigger: a trigger window" ;;
*) not_ok "a busy 20 ms slice fires the trigger: a trigger window"
   diag_out "$(printf '%s\n' "$CHECK_OUT" | grep '^#')" ;;
esac
case $CHECK_OUT in
*"#   fired by t_ring $_w/"*" on cpu"*": slice "*" s, task-clock="*" > 5.000 ms"*)
	ok "the trigger window names the task ($_w) and the slice that fired it" ;;
*) not_ok "the trigger window names the task ($_w) and the slice that fired it"
   diag_out "$(printf '%s\n' "$CHECK_OUT" | grep '^#')" ;;
esac
check "$CLI" report -i "$W/t1.pmu" --format json -- "json of the trigger recording"
if printf '%s' "$CHECK_OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = [w for w in d["windows"] if w["reason"] == "trigger"][0]
assert any(r["type"] == "switch" and r["delta"]["task-clock"] > 5000000
           for r in w["records"]), "no slice over 5 ms in the window"
' 2>"$W/py.err"; then
	ok "the trigger window holds the slice over 5 ms"
else
	not_ok "the trigger window holds the slice over 5 ms"
	diag_out "$(cat "$W/py.err")"
fi
# 1 ms sleeps: no trigger.  Under TCG on a loaded host a stalled vCPU can
# make a short slice really last over 5 ms (and then the trigger is right
# to fire): the trigger must fire exactly when a slice went over, and up
# to 8 one-second attempts look for a run without such a slice.
for attempt in 1 2 3 4 5 6 7 8; do
	trig t2 0 1 1
	over=$("$CLI" report -i "$W/t2.pmu" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(max([r["delta"]["task-clock"] for w in d["windows"] for r in w["records"]
           if r["type"] == "switch"] + [0]))')
	case $CHECK_OUT in
	*"(trigger)"*) fired=1 ;;
	*) fired=0 ;;
	esac
	if [ "$over" -gt 5000000 ]; then
		[ "$fired" = 1 ] && ok "attempt $attempt: a slice of $over ns (host stall) fired the trigger" ||
			not_ok "attempt $attempt: a slice of $over ns did not fire the trigger"
		continue
	fi
	[ "$fired" = 0 ] && ok "1 ms sleeps (longest slice $over ns) do not fire the trigger" ||
		{ not_ok "1 ms sleeps (longest slice $over ns) do not fire the trigger"
		  diag_out "$(printf '%s\n' "$CHECK_OUT" | grep '^#')"; }
	break
done
# Each attempt checked that the trigger fires exactly when a slice went
# over; a host that stalls every attempt leaves only the quiet case
# unshown: a check that could not run, not a failure (issue 32).
[ "$over" -le 5000000 ] ||
	skip "1 ms sleeps do not fire the trigger" "the host stalled the vCPU over 5 ms in each of 8 attempts"

# ---- errors -------------------------------------------------------------------

expect_fail "$CLI" record -c 99 -o "$W/x.pmu" -- true -- "record -c (sampling every N events) is refused"
[ "$CHECK_RC" = 2 ] && case $CHECK_OUT in *"use -F"*) true ;; *) false ;; esac &&
	ok "... as a usage error pointing to -F" ||
	not_ok "... as a usage error pointing to -F"
expect_fail "$CLI" record -n --buffer-size 1G -o "$W/x.pmu" -- true -- "a 1 GiB buffer is refused"
case $CHECK_OUT in
*"max_ring_pages is "*"/sys/module/pmuctx/parameters/max_ring_pages"*) ok "... naming max_ring_pages, its value and where it is" ;;
*) not_ok "... naming max_ring_pages, its value and where it is"; diag_out "$CHECK_OUT" ;;
esac

# (page-faults, a per-CPU perf event, needs more than paranoid 2 allows
# an unprivileged user: -e task-clock,cs)
old_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
old_group=$(stat -c %g "$DEV")
old_mode=$(stat -c %a "$DEV")
echo 2 >/proc/sys/kernel/perf_event_paranoid
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
cli=$(user_exec "$CLI")
U=/tmp/pmuctx-ring-user
mkdir -p "$U"
chmod 1777 "$U"
expect_fail as_user "$NOBODY" "$NOBODY" "$GID" sh -c \
	"ulimit -l 64 && exec '$cli' record -n -e task-clock,cs --buffer-size 1M -o '$U/u.pmu' -- true" -- \
	"unprivileged, ulimit -l 64: a 1 MiB buffer is refused"
case $CHECK_OUT in
*"RLIMIT_MEMLOCK (ulimit -l) is 64 KiB"*"CAP_IPC_LOCK"*) ok "... the message gives the limit, ulimit -l and CAP_IPC_LOCK" ;;
*) not_ok "... the message gives the limit, ulimit -l and CAP_IPC_LOCK"; diag_out "$CHECK_OUT" ;;
esac
check as_user "$NOBODY" "$NOBODY" "$GID" sh -c \
	"ulimit -l 64 && exec '$cli' record -q -n -e task-clock,cs --buffer-size 4K -o '$U/u.pmu' -- true" -- \
	"unprivileged, ulimit -l 64: a 4 KiB buffer works"
echo "$old_paranoid" >/proc/sys/kernel/perf_event_paranoid
chgrp "$old_group" "$DEV"
chmod "$old_mode" "$DEV"

exit "$rc"

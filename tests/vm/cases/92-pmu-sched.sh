#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# Hardware counters under scheduling, on a real (emulated) PMU: the arm64
# tier's guest (qemu-system-aarch64 -M virt -cpu max, a PMUv3) under
# -icount (PMUCTX_VM_ICOUNT: QEMU counts instructions only then); skipped,
# saying so, elsewhere.  Each worker of tests/progs/hwself counts its own
# user-mode instructions with perf_event_open() (a counter on itself,
# opened first thing) and prints them; pmuctx's per-task count of that
# worker must be the same plus at most HANDFUL (what the worker ran
# before its counter opened and after it read it: 0.1 %, at least 50000):
#
#  - ping-pong, system-wide: two workers pinned to CPU 0 take turns
#    through pipes, A running 3 times B's loop each turn, 40 turns each:
#    `pmuctx stat -a --per-task -e instructions:u` gives each its own
#    count (a context switch at every turn: a module that charged one
#    task's slice to the other, or lost slices, is off by whole turns),
#    and A's count is 3 times B's within 1 %;
#  - migration, system-wide: one worker moves between CPU 0 and CPU 1 200
#    times (sched_setaffinity), the loop on each: one exact total across
#    the per-CPU counters it went through, and pmuctx's cpu-migrations of
#    it at least 200;
#  - hotplug: a worker watched by `pmuctx stat -e instructions:u` runs its
#    loops on CPU 1, then on CPU 0 while CPU 1 goes offline and comes
#    back once, then on CPU 1 again a second after (pmuctx revives its
#    counters on a CPU that comes back from a work item, hotplug.c; what
#    runs there before has no counter, which READ reports as a share
#    below 100 %: t_store hotplug-gap): the total is still exact, with
#    loops run on CPU 1 after it came back (without the revival, those
#    are lost), and the store is empty after (pmuctx info).
#
# QEMU's PMUv3 under -icount counts the machine's instructions, not the
# vCPU's (docs/TESTING.md, "The arm64 tier"): a task parked at EL0 while
# the other vCPU runs counts that vCPU's work.  Both counters see the same
# events, so one run still agrees; no distractor runs here.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

HWS=tests/progs/hwself
HANDFUL=${PMUCTX_PMU_HANDFUL:-50000}
need_exec "$CLI" || exit 1
need_exec "$HWS" || exit 1
need_hw_pmu
need_icount
W=$(mktemp -d /tmp/pmu-sched.XXXXXX)
trap 'echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null || true; rm -rf "$W"' EXIT
diag "$(uname -m) $(uname -r), icount: $PMUCTX_VM_ICOUNT"

handful() { awk -v a="$1" -v h="$HANDFUL" 'BEGIN { l = a / 1000; printf "%.0f", (l > h ? l : h) }'; }
excess() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }
# self FILE ROLE: "TID COUNT" of the worker of ROLE in hwself's output
self() { awk -v r="$2" '$1 == "self" && $3 == r && $4 == "instructions" { print $2, $5; exit }' "$1"; }
# task_value CSV TID EVENT: the per-task value of task TID (COMM-TID)
task_value() {
	awk -F, -v t="$2" -v e="$3" '$1 ~ ("-" t "$") && $4 == e { print $2; exit }' "$1"
}
# exact NAME CSV SELF-FILE ROLE: pmuctx's per-task instructions:u of the
# worker ROLE is its own count plus at most a handful
exact() {
	_st=$(self "$3" "$4")
	_tid=${_st% *} _ref=${_st#* }
	_got=$(task_value "$2" "$_tid" instructions:u)
	if [ -z "$_st" ] || [ -z "$_got" ]; then
		not_ok "$1: worker $4 has its own count and a per-task line (self '${_st}', pmuctx '${_got}')"
		diag_out "$(cat "$3"; grep -- "-${_tid:-none}," "$2" 2>/dev/null)"
		return
	fi
	_d=$(excess "$_got" "$_ref") _lim=$(handful "$_ref")
	if [ "$_d" -ge 0 ] && [ "$_d" -le "$_lim" ]; then
		ok "$1: worker $4 (tid $_tid): pmuctx's instructions:u are its own count plus at most $_lim ($_got, $_ref: $_d more)"
	else
		not_ok "$1: worker $4 (tid $_tid): pmuctx's instructions:u are its own count plus at most $_lim ($_got, $_ref: $_d more)"
	fi
}

# ---- ping-pong on one CPU, system-wide -------------------------------------
check "$CLI" stat -a --per-task -x, -e instructions:u,context-switches \
	-o "$W/pp.csv" -- sh -c "$HWS pingpong 3000000 1000000 40 >$W/pp.self" -- \
	"ping-pong: pmuctx stat -a --per-task -e instructions:u -- hwself pingpong"
last_ok || diag_out "$CHECK_OUT"
diag "ping-pong: $(tr '\n' ' ' <"$W/pp.self")"
exact "ping-pong" "$W/pp.csv" "$W/pp.self" a
exact "ping-pong" "$W/pp.csv" "$W/pp.self" b
a=$(self "$W/pp.self" a) b=$(self "$W/pp.self" b)
ga=$(task_value "$W/pp.csv" "${a% *}" instructions:u)
gb=$(task_value "$W/pp.csv" "${b% *}" instructions:u)
csa=$(task_value "$W/pp.csv" "${a% *}" context-switches)
if [ -n "$ga" ] && [ -n "$gb" ] &&
   awk -v a="$ga" -v b="$gb" 'BEGIN { r = a / b; exit !(r > 2.97 && r < 3.03) }'; then
	ok "ping-pong: A's count is 3 times B's within 1% ($ga, $gb)"
else
	not_ok "ping-pong: A's count is 3 times B's within 1% (${ga:-?}, ${gb:-?})"
fi
if [ -n "$csa" ] && [ "$csa" -ge 40 ]; then
	ok "ping-pong: A switched out at every turn ($csa context switches, 40 turns)"
else
	not_ok "ping-pong: A switched out at every turn (${csa:-?} context switches, 40 turns)"
fi

# ---- migration between the CPUs, system-wide -------------------------------
check "$CLI" stat -a --per-task -x, -e instructions:u,cpu-migrations \
	-o "$W/mig.csv" -- sh -c "$HWS migrate 200000 200 >$W/mig.self" -- \
	"migration: pmuctx stat -a --per-task -- hwself migrate (200 hops)"
last_ok || diag_out "$CHECK_OUT"
diag "migration: $(tr '\n' ' ' <"$W/mig.self")"
exact "migration" "$W/mig.csv" "$W/mig.self" migrate
m=$(self "$W/mig.self" migrate)
mig=$(task_value "$W/mig.csv" "${m% *}" cpu-migrations)
if [ -n "$mig" ] && [ "$mig" -ge 199 ]; then
	ok "migration: the worker moved at every hop ($mig cpu-migrations, 200 hops)"
else
	not_ok "migration: the worker moved at every hop (${mig:-?} cpu-migrations, 200 hops)"
fi

# ---- CPU hotplug under a hardware counter ----------------------------------
online=/sys/devices/system/cpu/cpu1/online
if [ ! -w "$online" ]; then
	skip "hotplug: counting across cpu1 offline/online" "cpu1 cannot be taken offline here"
else
	rm -f "$W/back"
	: >"$W/cpu1"
	"$CLI" stat -x, -e instructions:u -o "$W/hot.csv" -- \
		"$HWS" hot 300000 2000 "$W" >"$W/hot.self" 2>"$W/hot.err" &
	hp=$!
	# the worker first runs on cpu1 for a while, then cpu1 goes once
	sleep 0.3
	rm -f "$W/cpu1"
	sleep 0.05
	diag "hotplug: cpu1 offline"
	echo 0 >"$online"
	sleep 0.2
	diag "hotplug: cpu1 online"
	echo 1 >"$online"
	sleep 1
	: >"$W/back"
	: >"$W/cpu1"
	if wait "$hp"; then
		ok "hotplug: pmuctx stat -e instructions:u -- hwself hot, cpu1 offline and online once"
	else
		not_ok "hotplug: pmuctx stat -e instructions:u -- hwself hot, cpu1 offline and online once"
		diag_out "$(cat "$W/hot.err")"
	fi
	after=$(awk '$1 == "after" { print $2 }' "$W/hot.self")
	h=$(self "$W/hot.self" hot)
	got=$(stat_field "$W/hot.csv" instructions:u)
	diag "hotplug: $(tr '\n' ' ' <"$W/hot.self"), pmuctx $got"
	if [ -z "$after" ] || [ "$after" -eq 0 ]; then
		skip "hotplug: loops on cpu1 after it came back counted" \
			"the worker ran no loop on cpu1 after it came back (after '${after}')"
	elif [ -z "$h" ] || [ -z "$got" ]; then
		not_ok "hotplug: both counted (self '${h}', pmuctx '${got}')"
	else
		d=$(excess "$got" "${h#* }") lim=$(handful "${h#* }")
		if [ "$d" -ge 0 ] && [ "$d" -le "$lim" ]; then
			ok "hotplug: the total is the worker's own plus at most $lim, $after loops on cpu1 after it came back ($got, ${h#* }: $d more)"
		else
			not_ok "hotplug: the total is the worker's own plus at most $lim, $after loops on cpu1 after it came back ($got, ${h#* }: $d more)"
		fi
	fi
fi
sleep 1.5	# the deferred unhook (a second)
out=$("$CLI" info 2>&1)
created=$(printf '%s\n' "$out" | awk '/entries created:/ { print $3 }')
freed=$(printf '%s\n' "$out" | awk '/entries freed:/ { print $3 }')
sessions=$(printf '%s\n' "$out" | awk '/^  sessions:/ { print $2 }')
if [ -n "$created" ] && [ "$created" = "$freed" ] && [ "${sessions:-x}" = 0 ]; then
	ok "store empty after (entries created $created, freed $freed, sessions 0)"
else
	not_ok "store empty after (entries created ${created:-?}, freed ${freed:-?}, sessions ${sessions:-?})"
	diag_out "$out"
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# pmuctx stat end to end.  The fork tree (a parent, 8 children, 64
# grandchildren, each burning CPU and sleeping) is measured by pmuctx stat
# running *inside* perf stat, so both see the same run: task-clock and
# context-switches agree within 10 % (perf also counts the pmuctx process
# itself, a few ms and a few switches), and task-clock agrees with the
# workload's own getrusage(SELF)+getrusage(CHILDREN) within 10 %.  Then:
# exit status is the command's, -x and --json are well formed, two
# concurrent runs are each right, system-wide --per-task lists tasks, and
# a hardware event fails with a message naming it.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

BURN=tests/progs/burn
need_exec "$CLI" || exit 1
need_exec "$BURN" || exit 1
command -v perf >/dev/null || { not_ok "perf is installed (linux-perf)"; exit 1; }
mod_load 2>/dev/null || true
W=/tmp/pmuctx-stat
mkdir -p "$W"

# within A B PCT: |A-B| <= PCT% of max(A,B)
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = a > b ? a : b
		exit !(m > 0 && d <= m * p / 100) }'
}
# field FILE EVENT: value column of a -x, line for EVENT
field() { awk -F, -v e="$2" '$3 == e { print $1; exit }' "$1"; }

# One attempt: pmuctx stat inside perf stat on the fork tree.  Sets p_tc
# (perf, ns), p_cs, m_tc (pmuctx, ns), m_cs, ru (rusage ns), csw (rusage
# context switches), tasks.
measure() {
	perf stat -x, -e task-clock,context-switches -o "$W/perf.csv" -- \
		"$CLI" stat -x, -e task-clock,context-switches -o "$W/pmu.csv" -- \
		"$BURN" --fork-tree 2,8 --ms 15 --sleep-ms 5 2>"$W/burn.err"
	p_tc=$(awk -v v="$(field "$W/perf.csv" task-clock)" 'BEGIN { printf "%.0f", v * 1000000 }')
	p_cs=$(field "$W/perf.csv" context-switches)
	m_tc=$(field "$W/pmu.csv" task-clock)
	m_cs=$(field "$W/pmu.csv" context-switches)
	ru=$(sed -n 's/^rusage_ns=//p' "$W/burn.err")
	csw=$(sed -n 's/^rusage_csw=//p' "$W/burn.err")
	tasks=$(sed -n 's/^tasks=//p' "$W/burn.err")
	diag "perf: task-clock $p_tc ns, cs $p_cs; pmuctx: $m_tc ns, cs $m_cs; rusage: $ru ns, cs $csw; $tasks tasks"
}

# The workload's own rusage is the exact reference (the scheduler counts
# context switches at the same point as the sched_switch tracepoint).
measure
check within "$m_tc" "$ru" 10 -- "fork tree: task-clock within 10% of the workload's rusage"
check within "$m_cs" "$csw" 10 -- "fork tree: context-switches within 10% of the workload's rusage"
# perf also counts the pmuctx process around the workload, and under TCG
# its own figures stray from rusage now and then: up to 3 attempts, every
# one logged.
for attempt in 1 2 3; do
	if within "$m_tc" "$p_tc" 10 && within "$m_cs" "$p_cs" 10; then
		break
	fi
	diag "attempt $attempt: perf and pmuctx differ by more than 10%; perf vs rusage: task-clock $p_tc/$ru, cs $p_cs/$csw"
	[ "$attempt" = 3 ] || measure
done
# closer A B REF: A is at least as close to REF as B is.
closer() {
	awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN {
		da = a - r; if (da < 0) da = -da; db = b - r; if (db < 0) db = -db
		exit !(da <= db) }'
}
# perf's count ends at perf_event_exit_task(), before exit_mm() and the
# final switch-out; where exit paths block (debug kernels) perf misses
# switches the scheduler counts.  Then pmuctx must be the closer of the two
# to the scheduler's own nvcsw + nivcsw.
agree_with_perf() {
	within "$1" "$2" 10 && return 0
	if closer "$1" "$2" "$3"; then
		diag "$4: pmuctx $1 is closer than perf $2 to the workload's own $3"
		return 0
	fi
	return 1
}
check agree_with_perf "$m_tc" "$p_tc" "$ru" task-clock -- \
	"fork tree: task-clock within 10% of perf stat's (attempt $attempt)"
check agree_with_perf "$m_cs" "$p_cs" "$csw" context-switches -- \
	"fork tree: context-switches within 10% of perf stat's (attempt $attempt)"
check test "$tasks" = 73 -- "fork tree has 73 tasks"

# -x format: VALUE,UNIT,EVENT with integers, task-clock in ns; '# '
# lines are notes (e.g. context switches above the rusage, issue 30 item 5).
check awk -F, '/^# / { next } NF < 3 || $1 !~ /^[0-9]+$/ { bad = 1 }
	$3 == "task-clock" && $2 != "ns" { bad = 1 } END { exit bad }' \
	"$W/pmu.csv" -- "-x lines are VALUE,UNIT,EVENT with integer values"

# Exit status is the command's; the counts go to stderr, not stdout.
rc=0
out=$("$CLI" stat -- sh -c 'echo hello; exit 7' 2>"$W/err7") || rc=$?
check test "$rc" = 7 -- "exit status of the command is passed through (7)"
check test "$out" = hello -- "the command's stdout is untouched"
check grep -q task-clock "$W/err7" -- "counts are printed on stderr"
rc=0
"$CLI" stat -- sh -c 'kill -TERM $$' 2>/dev/null || rc=$?
check test "$rc" = 143 -- "a command killed by SIGTERM gives 128+15"

# --json with --per-task parses and lists every task of the tree.
"$CLI" stat --json --per-task -o "$W/s.json" -- "$BURN" --fork-tree 1,3 --ms 10 2>/dev/null
check python3 - "$W/s.json" <<'PY' -- "--json --per-task is valid JSON with 4 tasks and 4 events"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["events"]) == 4, d["events"]
assert len(d["tasks"]) == 4, d["tasks"]
assert d["tasks_seen"] == 4 and d["tasks_exited"] == 4
tc = [e["value"] for e in d["events"] if e["event"] == "task-clock"][0]
assert tc == sum(t["values"]["task-clock"] for t in d["tasks"])
PY

# Two concurrent runs, each against its own workload's rusage.  What
# would show one run's time counted in the other's is judged exactly, by
# task: each run lists its own tree (5 and 7 tasks, none dropped), the
# two pid sets apart, every parent in its own tree, the per-task values
# adding up, and every task at least the 60 ms of CPU time burn counted
# for it (CLOCK_THREAD_CPUTIME_ID, the same sum_exec_runtime, all of it
# after the exec or fork).  The totals are held to the wait4() rusage
# less the launch (launch_ns, read at the exec stop), the reference with
# the same blind spots as the count; burn's own getrusage() missed its
# exit and held its launch, and a host stall in one of those windows put
# a run 16 % under and the other 10 % over once (a 6.12-cloud run under
# two other VMs), each task's own count right.  3 attempts for the
# totals, logged; the per-task checks fail at once.
conc_ok=0
for attempt in 1 2 3; do
	"$CLI" stat --json --per-task -e task-clock -o "$W/a.json" -- "$BURN" --fork-tree 1,4 --ms 60 2>/dev/null &
	pa=$!
	"$CLI" stat --json --per-task -e task-clock -o "$W/b.json" -- "$BURN" --fork-tree 2,2 --ms 60 2>/dev/null &
	pb=$!
	wait "$pa" || true
	wait "$pb" || true
	st=0
	res=$(python3 - "$W/a.json" "$W/b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
out, tasks_bad, total_bad = [], [], False
pids = []
for name, d, want in (("a", a, 5), ("b", b, 7)):
    tc = [e["value"] for e in d["events"] if e["event"] == "task-clock"][0]
    ref = d["user_ns"] + d["sys_ns"] - d.get("launch_ns", 0)
    ts = d["tasks"]
    mine = {t["pid"] for t in ts}
    pids.append(mine)
    short = [t["pid"] for t in ts if t["values"]["task-clock"] < 60000000]
    orphans = [t["pid"] for t in ts if t["ppid"] not in mine]
    out.append("%s: task-clock %d ns, rusage less launch %d ns (%.4f), %d tasks, %d dropped"
               % (name, tc, ref, tc / ref, d["tasks_seen"], d["tasks_dropped"]))
    if d["tasks_seen"] != want or d["tasks_dropped"] or len(ts) != want:
        tasks_bad.append("%s: %d tasks seen, %d listed, %d dropped (want %d)"
                         % (name, d["tasks_seen"], len(ts), d["tasks_dropped"], want))
    if sum(t["values"]["task-clock"] for t in ts) != tc:
        tasks_bad.append("%s: the tasks' values do not add up to the total" % name)
    if short:
        tasks_bad.append("%s: tasks under the 60 ms they burned: %s" % (name, short))
    if len(orphans) != 1:
        tasks_bad.append("%s: not one tree (tasks whose parent is not in it: %s)" % (name, orphans))
    if abs(tc - ref) > 0.02 * ref:
        total_bad = True
if pids[0] & pids[1]:
    tasks_bad.append("a task in both runs: %s" % sorted(pids[0] & pids[1]))
print("; ".join(out + tasks_bad))
sys.exit(3 if tasks_bad else 1 if total_bad else 0)
PY
) || st=$?
	diag "concurrent runs, attempt $attempt: $res"
	case $st in
	0) conc_ok=1; break ;;
	3) break ;;
	esac
done
if [ "$st" = 3 ]; then
	not_ok "concurrent runs: each counts its own tree, every task whole, none of the other's"
else
	ok "concurrent runs: each counts its own tree, every task whole, none of the other's"
fi
if [ "$conc_ok" = 1 ]; then
	ok "concurrent runs: each task-clock within 2% of its command's rusage less the launch (attempt $attempt)"
else
	not_ok "concurrent runs: each task-clock within 2% of its command's rusage less the launch (3 attempts)"
fi

# System-wide, per task: a burner started once counting is on shows up
# as one task with its own CPU time.
"$CLI" stat -a --per-task --json -o "$W/sw.json" -- "$BURN" --ms 300 2>"$W/sw.err"
check python3 - "$W/sw.json" "$(sed -n 's/^rusage_ns=//p' "$W/sw.err")" <<'PY' -- "-a --per-task attributes the burner's CPU time to it"
import json, sys
d = json.load(open(sys.argv[1]))
ru = int(sys.argv[2])
mine = [t for t in d["tasks"] if t["comm"] == "burn"]
assert len(mine) == 1, mine
tc = mine[0]["values"]["task-clock"]
assert abs(tc - ru) <= 0.1 * ru, (tc, ru)
assert len(d["tasks"]) > 3, len(d["tasks"])
PY

# Complete totals (issue 17 item 1): a finished workload's task-clock and
# context switches match the command's own rusage from wait4 (every
# descendant it waited for) within 1 %, including each task's exit after
# the sched_process_exit tracepoint (closing files, notifying the parent)
# and its final switch-out.  Before: retired at that tracepoint, 2-7 %
# short on short-lived processes.  Three shapes: a fork+exec loop, a
# fork/exit loop, and a parallel build.  task-clock is the scheduler's
# own run time (se.sum_exec_runtime deltas), the source of rusage; as
# local_clock() between the switch tracepoints it was 1-2 % above rusage
# on the debug kernel and 4-11 % below on 6.12-rt with a busy host.
#
# Each shape runs twice: switchless (the default; the events read from the
# kernel's per-task counters, no sched_switch probe) and --per-switch
# (counted at every context switch): both must match (issue 17 item 1,
# "both ways give the same totals").
#
# The reference is not exact on a busy host (issue 32 item 6: make -j2
# failed on 6.12-rt in a make check on a loaded machine).  wait4()'s
# rusage of a child is taken when its parent reaps it, which can be before
# the child ends its exit (do_exit() after exit_notify(): the rest of its
# tail and its final switch-out), and pmuctx counts up to that final
# switch-out: that makes pmuctx higher.  The command's own start before
# pmuctx stat attaches to it is in its rusage and not in pmuctx's count:
# that makes pmuctx lower.  Both are small on a quiet host and grow when
# the host deschedules a vCPU there (the guest's clock runs on: the task is
# charged).  A 6.12-rt run under two host CPU hogs had the fork/exit tree
# at 0.991 of its rusage (--per-switch).  Hence:
#  - an attempt more than 1 % off is repeated, up to 3 in all; one within
#    1 % passes.  A count that is wrong by construction (the uncounted exit
#    tails of issue 17: 2-7 % short) is off in every attempt;
#  - above by more than the reap race can explain (task-clock over 1.5x,
#    or context switches over the rusage's plus 3 per task: counted twice,
#    say) is not ok at once;
#  - 3 attempts all above within that: the rusage cannot judge on this
#    host now (the children ran after their reap): a SKIP with the
#    figures, not a pass; below (or both ways) in all 3: not ok.
tc_pct=1
complete() {
	complete_as "$@"
	complete_as --per-switch "$@"
}
complete_as() {
	how=
	if [ "$1" = --per-switch ]; then
		how=--per-switch
		shift
	fi
	name="$1${how:+ ($how)}"
	shift
	desc="$name: task-clock within $tc_pct% and context-switches within 1% of the command's rusage"
	codes=
	for attempt in 1 2 3; do
		# shellcheck disable=SC2086 # $how: one word or none
		"$CLI" stat --json $how -e task-clock,context-switches -o "$W/c.json" -- "$@" >/dev/null 2>&1
		st=0
		res=$(python3 - "$W/c.json" "$tc_pct" <<'PY2'
import json, sys
d = json.load(open(sys.argv[1]))
tc_pct = float(sys.argv[2])
v = {e["event"]: e["value"] for e in d["events"]}
# counted from the exec (issue 30 item 4): less what ran before it
ru = d["user_ns"] + d["sys_ns"] - d.get("launch_ns", 0)
csw = d["nvcsw"] + d["nivcsw"] - d.get("launch_csw", 0)
tc, cs, tasks = v["task-clock"], v["context-switches"], d["tasks_seen"]
print("task-clock %d ns, rusage %d ns (%.4f); context-switches %d, rusage %d (%.4f); %d tasks, %d dropped"
      % (tc, ru, tc / ru, cs, csw, cs / csw, tasks, d["tasks_dropped"]))
lo = tc < ru - tc_pct / 100 * ru or cs < csw - 0.01 * csw
hi = tc > ru + tc_pct / 100 * ru or cs > csw + 0.01 * csw
if not lo and not hi:
    sys.exit(0)
if tc > 1.5 * ru or cs > csw + 3 * tasks:
    print("above the rusage by more than the children's runs after their reap can explain")
    sys.exit(3)
sys.exit(1 if lo else 2)
PY2
) || st=$?
		diag "$name, attempt $attempt: $res"
		codes="$codes$st"
		case $st in 0|3) break ;; esac
	done
	case $st:$codes in
	0:*) ok "$desc (attempt $attempt)" ;;
	*:222) skip "$desc" "above the rusage in 3 attempts, by less than the reap race can explain: wait4() reaped children before their exit ended (a busy host); the rusage cannot judge now" ;;
	*) not_ok "$desc" ;;
	esac
}
complete "fork+exec loop" sh -c 'i=0; while [ $i -lt 150 ]; do /bin/true; i=$((i+1)); done'
complete "fork/exit tree" "$BURN" --fork-tree 2,12 --ms 1
# The launcher is not counted (issue 30 item 4): counting starts at the
# command's exec, and --json says what its rusage holds from before (the
# fork, the launcher, the exec, the stop there: at least one switch).
"$CLI" stat --json -e task-clock,context-switches -o "$W/launch.json" -- /bin/true >/dev/null 2>&1 || true
check python3 - "$W/launch.json" <<'PY' -- "launcher: stat counts /bin/true from its exec (launch_ns, launch_csw in --json; task-clock within the rusage less them)"
import json, sys
d = json.load(open(sys.argv[1]))
v = {e["event"]: e["value"] for e in d["events"]}
print("task-clock %d ns, rusage %d ns, launch_ns %s, launch_csw %s" % (
    v["task-clock"], d["user_ns"] + d["sys_ns"], d.get("launch_ns"),
    d.get("launch_csw")))
assert d.get("launch_ns", 0) > 0 and d.get("launch_csw", 0) >= 1, d
ru = d["user_ns"] + d["sys_ns"] - d["launch_ns"]
assert v["task-clock"] <= ru * 1.02 + 1000000, (v["task-clock"], ru)
PY
last_ok || diag_out "$CHECK_OUT"
# ---- -r and -I with the module (issue 30 item 6; the formats are in
# tests/unit/test_cli.c) -------------------------------------------------------
# -r 3: three runs, each counted; the last run's exit status; a command that
# burns 200, 400 or 600 ms by run (a file counts the runs).  The reference
# is each run's own CPU time, which the shell's `times` gives at its end
# (the shell's and its children's, wc's and the burner's: all but sh's
# exec, in clock ticks): task-clock's mean is theirs and its standard
# error is theirs.  Fixed bounds failed on a busy host (2026-11-29,
# 6.1-cloud beside two VMs: each run's start-up 850 ms, a mean of 1252 ms
# against at most 1000).  pmuctx counts from the exec (launch_ns), and a
# process's CPU time goes on across exec: the times at the end hold the
# launcher's part before the exec too (50 ms a run under load: the CI
# emulation of 785e9dc, 6.1, 536.7 against pmuctx's 485.7), those at the
# end less those at the shell's start leave out its start-up after the
# exec (the emulation of 20294a9, 6.12: 433.3 against 474.2).  So
# pmuctx's mean lies between the two.
rc=0
rm -f "$W/runs" "$W/times" "$W/times0"
"$CLI" stat -r 3 --json -e task-clock,context-switches -o "$W/r3.json" -- \
	sh -c "times >> '$W/times0'; echo x >> '$W/runs'; n=\$(wc -l < '$W/runs'); '$BURN' --ms \$((n * 200)) 2>/dev/null; times >> '$W/times'; exit 5" || rc=$?
check test "$rc" = 5 -- "-r 3: the exit status is the last run's (5)"
check python3 - "$W/r3.json" "$W/runs" "$W/times" "$W/times0" <<'PY' -- "-r 3: three runs counted; task-clock's mean and standard error those of the runs' own CPU times"
import json, math, re, sys
d = json.load(open(sys.argv[1]))
runs = len(open(sys.argv[2]).read().split())
# `times`: two lines a run (the shell's user and system time, then its
# children's), each "XmY.Zs XmY.Zs"; at the end, less at the start
def tm(path):
    t = [int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", open(path).read())]
    return [sum(t[i:i + 4]) * 1e9 for i in range(0, len(t), 4)]
end, start = tm(sys.argv[3]), tm(sys.argv[4])
lo = [e - s for e, s in zip(end, start)] if len(end) == len(start) else end
per = end
tc = {e["event"]: e for e in d["events"]}["task-clock"]
se = tc["value"] * tc["stddev_pct"] / 100
mean = sum(per) / len(per) if per else 0
sd = math.sqrt(sum((x - mean) ** 2 for x in per) / (len(per) - 1)) if len(per) > 1 else 0
se_ref = sd / math.sqrt(len(per)) if per else 0
print("runs %s (%d started), task-clock %.1f ms +- %.2f %% (%.1f ms); the runs' own: %s ms, mean %.1f, standard error %.1f ms" % (
    d.get("runs"), runs, tc["value"] / 1e6, tc["stddev_pct"], se / 1e6,
    " ".join("%.1f" % (x / 1e6) for x in per), mean / 1e6, se_ref / 1e6))
assert d["runs"] == 3 and runs == 3 and len(per) == 3, (d.get("runs"), runs, len(per))
mean_lo = sum(lo) / len(lo)
sd_lo = math.sqrt(sum((x - mean_lo) ** 2 for x in lo) / (len(lo) - 1))
se_lo = sd_lo / math.sqrt(len(lo))
print("from the shell's start: %s ms, mean %.1f, standard error %.1f ms" % (
    " ".join("%.1f" % (x / 1e6) for x in lo), mean_lo / 1e6, se_lo / 1e6))
# clock ticks: each run's eight times are 10 ms apart at worst
tol = lambda m: max(0.05 * m, 40e6)
assert mean_lo - tol(mean_lo) <= tc["value"] <= mean + tol(mean), (tc["value"], mean_lo, mean)
assert min(abs(se - se_ref), abs(se - se_lo)) <= max(0.25 * min(se_ref, se_lo), 25e6), (se, se_lo, se_ref)
PY
last_ok || diag_out "$CHECK_OUT"
# -I 100 while a command burns 600 ms: an object per 100 ms interval (the
# time it was read: 0.1 s apart or more), adding up to the burn.
check sh -c "'$CLI' stat -I 100 --json -e task-clock -o '$W/i.json' -- '$BURN' --ms 600 2>/dev/null" -- "-I 100 --json -- burn 600 ms"
check python3 - "$W/i.json" <<'PY' -- "-I 100: an object per 100 ms interval, their task-clock about the burn's"
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t = [l["interval"] for l in iv]
s = sum(l["events"][0]["value"] for l in iv)
print("%d intervals, %s..%s s, %.1f ms" % (len(iv), t[0], t[-1], s / 1e6))
assert len(iv) >= 3, len(iv)
# the time each was read: at its slot k x 100 ms of an absolute schedule
# (as perf stat -I), a loaded host reads late, never early; a late one
# does not delay the next (the CI emulation of cefcb01: 0.5528 then
# 0.6007); the last is the command's exit
assert all(x >= 0.1 * (k + 1) - 0.001 for k, x in enumerate(t[:-1])), t
assert 600e6 <= s <= 2000e6, s
PY
last_ok || diag_out "$CHECK_OUT"

mkdir -p "$W/build"
for i in 1 2 3 4; do
	printf 'int f%s(int x) { return x * %s; }\n' "$i" "$i" > "$W/build/f$i.c"
done
printf 'int f1(int); int f2(int); int f3(int); int f4(int);\nint main(void) { return f1(1) + f2(2) + f3(3) + f4(4) - 30; }\n' > "$W/build/main.c"
printf 'p: main.o f1.o f2.o f3.o f4.o\n\tcc -o $@ $^\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\n' > "$W/build/Makefile"
# (the arm64 guest has neither make nor a compiler: busybox's applets)
if command -v make >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	complete "make -j2" make -B -s -j2 -C "$W/build"
else
	skip "make -j2" "no make or cc in this guest (the arm64 tier's userland is busybox)"
fi

# Entry memory: with the 4 default events an entry is 192 bytes (128-byte
# header, total and children arrays; switchless, so no snapshot slot even
# for page-faults) from a slab cache of that size, not kmalloc-256 (issue
# 17 item 4; before: 224 bytes, a snapshot slot for every event and caches
# in steps of 32; then 200, a slot for page-faults).  With --per-switch
# page-faults is a perf counter again and has its slot: 200 bytes.  Read
# from inside the monitored command, so the session (its tasks and its
# per-CPU pools) exists; so does the probe state: no sched_switch probe
# for a default stat, one with --per-switch.
mem_check() {
	how=$1 size=$2 probe=$3
	# shellcheck disable=SC2086 # $how: one word or none
	"$CLI" stat $how -o /dev/null -- sh -c "\"$CLI\" info --json > $W/mem.json; ls /sys/kernel/slab > $W/slabs" 2>/dev/null || true
	diag_out "memory${how:+ $how}" cat "$W/mem.json"
	check python3 - "$W/mem.json" "$size" "$probe" <<'PY' -- "entries with 4 events${how:+ $how} are $size bytes each (store_bytes = $size x (tasks + pool)), sched_switch probe: $probe"
import json, sys
d = json.load(open(sys.argv[1]))
size, probe = int(sys.argv[2]), sys.argv[3] == "yes"
s = d.get("store", d)
n = s["tasks_tracked"] + s["pool_entries"]
assert s["tasks_tracked"] >= 1 and s["store_bytes"] == size * n, (s, n)
assert "switchless" in d["features"], d["features"]
assert s["switch_probe_registered"] == probe, s
PY
	check grep -qx "pmuctx_entry_$size" "$W/slabs" -- "entries${how:+ ($how)} come from the pmuctx_entry_$size slab cache"
}
# a --per-switch session above keeps sched_switch hooked for a second
# after it (issue 29 item 8)
wait_for 3 sh -c "\"$CLI\" info | grep -q 'probes: *not registered'" || true
mem_check "" 192 no
mem_check --per-switch 200 yes
# the probes go a second after the last session (issue 29 item 8)
check wait_for 3 sh -c "\"$CLI\" info | grep -q 'probes: *not registered'" -- "pmuctx info: no probes within 3 s once the sessions are gone"

# A hardware event the PMU cannot count fails cleanly, naming the event:
# any of them on x86-64 TCG (no cpu PMU), branch-misses on the arm64
# tier (QEMU's PMUv3 has cycles and, under -icount, instructions only).
hw_ev=instructions hw_how="without a PMU"
if has_hw_pmu; then
	hw_ev=branch-misses hw_how="the PMU does not count"
fi
rc=0
"$CLI" stat -e "$hw_ev" -- true 2>"$W/hw.err" || rc=$?
diag_out "hw" cat "$W/hw.err"
check test "$rc" = 1 -- "a hardware event $hw_how ($hw_ev): exit status 1"
check grep -q "$hw_ev" "$W/hw.err" -- "the message names the event"

# Nothing left behind.
check sh -c "\"$CLI\" info --json | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d.get(\"store\", d); sys.exit(0 if s[\"tasks_tracked\"] == 0 and s[\"store_bytes\"] == 0 else 1)'" -- "store empty afterwards"

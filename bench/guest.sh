#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest.sh - the guest side of `make bench` (bench/run boots the VM
# and runs this as root, cwd = top of the tree).  Every case runs in this
# one boot, configurations interleaved round by round (ABAB...), and every
# measurement is written as one line to $PMUCTX_VM_OUT/raw.txt:
#
#   E key=value ...                          environment
#   R case=C bench=B cfg=K param=P round=N rep=I value=V unit=U [k=v ...]
#   I case=C cfg=K param=P round=N k=v ...   side information (pmuctx info,
#                                            meminfo, counts; case cs:
#                                            cs_counted=, and probe_n=
#                                            probe_hit= probe_ns= from the
#                                            debug build's probe timer)
#   F case=C ... msg=...                     a run that failed
#
# bench/report.py turns raw.txt into bench/results.json and
# docs/PERFORMANCE.md.  Environment (set by bench/run):
#   PMUCTX_BENCH_QUICK=1     few rounds, small sizes (smoke test of the suite)
#   PMUCTX_BENCH_CASES="cs churn scale mem ring"   cases to run
#   PMUCTX_BENCH_ICOUNT=SHIFT|off   the guest's clock: QEMU -icount
#                            shift=SHIFT (guest time counts instructions:
#                            deterministic, so more rounds and fewer
#                            windows) or off (host time, bench/run
#                            --wallclock); default off
#   PMUCTX_BENCH_ROUNDS=N    rounds of the context-switch case (default 10
#                            under icount, 5 in wallclock mode; quick: 3, 2)
#   PMUCTX_BENCH_PROBE_ROUNDS=N   rounds of the probe-internal timing (case
#                            cs, debug module only; default 3, quick 2)
#   PMUCTX_BENCH_MEM_N=N     threads of the memory case
#   PMUCTX_BENCH_PIN_KEYS=0  do not pin the static keys (see below)
# and by tests/vm/run: PMUCTX_MODULE (the release module, measured),
# PMUCTX_MODULE_DEBUG (the debug build, --module-debug: the in-kernel ring
# benchmark and the probe-internal timer only), PMUCTX_VM_OUT.
set -u

TOP=$(pwd)
CLI=$TOP/tools/pmuctx
PP=$TOP/bench/pingpong
CHURN=$TOP/bench/churn
RING=$TOP/bench/ring
BT_SCRIPT=$TOP/bench/sched_oncpu.bt
MODULE=${PMUCTX_MODULE:-$TOP/module/pmuctx.ko}
# The debug build (bench/run --module-debug): only for the ring writer's
# in-kernel microbenchmark (ring_bench, case ring) and the time spent
# inside the sched_switch probe (module/probebench.c, case cs); every
# other measurement of the product is of the release module.
MODULE_DEBUG=${PMUCTX_MODULE_DEBUG:-}
OUT=${PMUCTX_VM_OUT:-/tmp/bench-out}
mkdir -p "$OUT"
RAW=$OUT/raw.txt
: >"$RAW"
T=/tmp/bench
mkdir -p "$T"

QUICK=${PMUCTX_BENCH_QUICK:-0}
CASES=${PMUCTX_BENCH_CASES:-cs churn scale mem ring}
ICOUNT=${PMUCTX_BENCH_ICOUNT:-off}
EVENTS=task-clock,context-switches,cpu-migrations,page-faults
# the counter-backed set: cpu-clock is a perf software counter, which
# pmuctx reads at every switch of a monitored task
EVENTS_CC=cpu-clock,context-switches,cpu-migrations,page-faults

if [ "$QUICK" = 1 ]; then
	CS_ROUNDS=${PMUCTX_BENCH_ROUNDS:-2}
	PP_LOOPS=1000 PP_WINDOWS=10 PIPE_LOOPS=1000 PIPE_RUNS=2
	PROBE_ROUNDS=${PMUCTX_BENCH_PROBE_ROUNDS:-2}
	CHURN_ROUNDS=2 CHURN_T="64 512" CHURN_P="64 256"
	SCALE_ROUNDS=2 SCALE_N="10 1000 5000"
	MEM_ROUNDS=2 MEM_N=2000
	RING_N=5000 RING_ROUNDS=2
else
	CS_ROUNDS=${PMUCTX_BENCH_ROUNDS:-5}
	PP_LOOPS=2000 PP_WINDOWS=20 PIPE_LOOPS=2000 PIPE_RUNS=2
	PROBE_ROUNDS=${PMUCTX_BENCH_PROBE_ROUNDS:-3}
	CHURN_ROUNDS=5 CHURN_T="64 512 4096" CHURN_P="64 512 2048"
	SCALE_ROUNDS=5 SCALE_N="10 1000 10000 50000"
	# 50000: the slab's noise per task is a fifth of 10000's, whose 95 %
	# interval (+/- 90 B, make bench of 2026-11-28) could not decide the
	# 256 B target (bench/notes/9-memory.md)
	MEM_ROUNDS=5 MEM_N=50000
	RING_N=20000 RING_ROUNDS=5
fi
if [ "$ICOUNT" != off ]; then
	# Guest time counts instructions (QEMU -icount): a window's value no
	# longer depends on the host, so the report takes the median of a
	# few windows per round and the rounds are cheap: more of them (the
	# confidence intervals narrow with the rounds, not the windows).
	if [ "$QUICK" = 1 ]; then
		CS_ROUNDS=${PMUCTX_BENCH_ROUNDS:-3}
		PP_WINDOWS=5 PIPE_RUNS=3
	else
		CS_ROUNDS=${PMUCTX_BENCH_ROUNDS:-6}
		PP_WINDOWS=8 PIPE_RUNS=3
	fi
fi
# The memory case's population (bench/notes/9-memory.md: 50000 divides the
# slab noise per task by 5)
MEM_N=${PMUCTX_BENCH_MEM_N:-$MEM_N}
BP_ARGS="-b 4 -p 1 -t 64"	# perf bench breakpoint thread

say() { echo "bench: $*" >&2; }
raw() { echo "$*" >>"$RAW"; }
now() { date +%s.%N; }
# reps OUT PREFIX KEY UNIT FIELDS FFIELDS: for each line of OUT that
# starts with PREFIX (rep 1, 2, ...), "R FIELDS rep=N value=V unit=UNIT"
# with V from its KEY=V; "F FFIELDS msg=..." (the start of $T/err) if
# there is no such line.
reps() {
	local out=$1 prefix=$2 key=$3 unit=$4 fields=$5 ffields=$6 line v n=0
	while read -r line; do
		n=$((n + 1))
		v=$(echo "$line" | sed -n "s/.*$key=\([0-9.]*\).*/\1/p")
		[ -n "$v" ] && raw "R $fields rep=$n value=$v unit=$unit"
	done <<<"$(echo "$out" | grep "^$prefix")"
	[ "$n" -gt 0 ] || raw "F $ffields msg=$(head -c 200 "$T/err" | tr ' \n' '__')"
}

# ---- module state ---------------------------------------------------------
mod_loaded() { grep -q '^pmuctx ' /proc/modules; }
ensure_loaded() {
	mod_loaded && return 0
	insmod "$MODULE" || { say "insmod failed"; return 1; }
	# wait for the device node
	for _ in $(seq 50); do [ -e /dev/pmuctx ] && return 0; sleep 0.1; done
}
ensure_unloaded() {
	mod_loaded || return 0
	rmmod pmuctx || { say "rmmod failed"; return 1; }
}

# info_fields PREFIX: pmuctx info --json as "k=v" words (numbers only)
info_fields() {
	local p=${1:-}
	"$CLI" info --json 2>/dev/null | tr -d '{}"' | tr ',' '\n' |
		grep -E '^(tasks_tracked|store_bytes|sessions|probes_registered|entry_bytes|pool_entries|entries_created|entries_freed|dropped|alloc_failures):([0-9]+|true|false)$' |
		sed "s/:/=/; s/^/$p/" | tr '\n' ' '
}

# ---- running a command under a configuration --------------------------------
# wrap CFG: print the monitoring prefix of configuration CFG.
wrap() {
	case $1 in
	unloaded|idle|none|bpftrace|pmuctx_other|pmuctx_other_ps) ;;
	pmuctx) echo "$CLI stat -o $T/stat.out --" ;;
	pmuctx_ps) echo "$CLI stat --per-switch -o $T/stat.out --" ;;
	pmuctx_cc) echo "$CLI stat -e $EVENTS_CC -o $T/stat.out --" ;;
	pmuctx_sys) echo "$CLI stat -a --per-task -o $T/stat.out --" ;;
	pmuctx_sys_total) echo "$CLI stat -a -o $T/stat.out --" ;;
	perf) echo "perf stat -e $EVENTS -o $T/stat.out --" ;;
	perf_cc) echo "perf stat -e $EVENTS_CC -o $T/stat.out --" ;;
	perf_sys) echo "perf stat -a -e $EVENTS -o $T/stat.out --" ;;
	pmuctx_noinherit) echo "$CLI stat --no-inherit -o $T/stat.out --" ;;
	perf_noinherit) echo "perf stat --no-inherit -e $EVENTS -o $T/stat.out --" ;;
	*) say "unknown cfg $1"; return 1 ;;
	esac
}

# prepare CFG / finish CFG: module state, background tracers and sessions
BT_PID='' OTHER_PID=''
prepare() {
	case $1 in
	unloaded) ensure_unloaded ;;
	*) ensure_loaded ;;
	esac || return 1
	if [ "$1" = pmuctx_other ] || [ "$1" = pmuctx_other_ps ]; then
		# a session on another process: the benchmark is not monitored
		# (pmuctx_other_ps: a --per-switch session, whose sched_switch
		# probe runs at every switch of every task)
		if [ "$1" = pmuctx_other ]; then
			"$CLI" stat -o /dev/null -- sleep 3600 &
		else
			"$CLI" stat --per-switch -o /dev/null -- sleep 3600 &
		fi
		OTHER_PID=$!
		for _ in $(seq 100); do
			[ "$("$CLI" info --json | sed -n 's/.*"sessions": *\([0-9]*\).*/\1/p')" = 1 ] && break
			sleep 0.1
		done
	fi
	if [ "$1" = bpftrace ]; then
		: >"$T/bt.out"
		bpftrace "$BT_SCRIPT" >"$T/bt.out" 2>&1 &
		BT_PID=$!
		for _ in $(seq 1200); do
			grep -q '^Attaching' "$T/bt.out" && break
			kill -0 "$BT_PID" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -q '^Attaching' "$T/bt.out"; then
			say "bpftrace did not attach: $(head -c 500 "$T/bt.out")"
			kill -TERM "$BT_PID" 2>/dev/null; wait "$BT_PID" 2>/dev/null
			BT_PID=
			return 1
		fi
		sleep 1
	fi
	return 0
}
BT_TASKS=
finish() {
	BT_TASKS=
	if [ -n "$OTHER_PID" ]; then
		kill -TERM "$OTHER_PID" 2>/dev/null	# forwarded to sleep
		wait "$OTHER_PID" 2>/dev/null
		OTHER_PID=
	fi
	if [ -n "$BT_PID" ]; then
		kill -TERM "$BT_PID" 2>/dev/null
		wait "$BT_PID" 2>/dev/null
		BT_PID=
		# tasks in the map: proof the script did its job
		BT_TASKS=$(grep -c '^@oncpu' "$T/bt.out")
	fi
}

# rotate N WORDS...: the words, starting at the N-th (mod count)
rotate() {
	local n=$1; shift
	local a=("$@") i k
	k=${#a[@]}
	for ((i = 0; i < k; i++)); do echo "${a[(i + n) % k]}"; done
}

# ---- environment ------------------------------------------------------------
env_record() {
	raw "E kernel=$(uname -r) date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nr_cpus=$(nproc)"
	raw "E kernel_version=$(tr ' ' '_' </proc/version)"
	raw "E cpu_model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' | tr ' ' '_')"
	raw "E mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	raw "E perf_version=$(perf version 2>/dev/null | awk '{print $3}')"
	raw "E bpftrace_version=$(bpftrace --version 2>/dev/null | awk '{print $2}')"
	raw "E icount=$ICOUNT"
	raw "E quick=$QUICK cases=$(echo "$CASES" | tr ' ' ',') cs_rounds=$CS_ROUNDS probe_rounds=$PROBE_ROUNDS cs_cfgs=$(IFS=,; echo "${CS_CFGS[*]}") pp_loops=$PP_LOOPS pp_windows=$PP_WINDOWS pipe_loops=$PIPE_LOOPS pipe_runs=$PIPE_RUNS"
	raw "E churn_rounds=$CHURN_ROUNDS churn_t=${CHURN_T// /,} churn_p=${CHURN_P// /,} scale_rounds=$SCALE_ROUNDS scale_n=${SCALE_N// /,} mem_rounds=$MEM_ROUNDS mem_n=$MEM_N ring_n=$RING_N ring_rounds=$RING_ROUNDS"
	raw "E module_version=$(cat /sys/module/pmuctx/version 2>/dev/null)"
	raw "E $(info_fields info_)"
	raw "E features=$("$CLI" info --json | sed -n 's/.*"features": *\[\([^]]*\)\].*/\1/p' | tr -d '" ' )"
}

# ============================================================================
# Case 1: context-switch cost.  Per round, every configuration runs the
# futex ping-pong (bench/pingpong, PP_WINDOWS short measurement windows)
# and `perf bench sched pipe` (PIPE_RUNS runs), both pinned to CPU 0 so
# that every hand-over is a plain switch between the two tasks (no IPI,
# no idle).  The *_noinherit configurations monitor only the ping-pong's
# main thread: every switch is then between a monitored and an
# unmonitored task, which defeats perf's fast path for clone-equivalent
# contexts.  pmuctx_other: a default (switchless) pmuctx session counts
# another process (sleep) while the benchmark runs unmonitored;
# pmuctx_other_ps: the same with a --per-switch session, whose probe
# runs at every switch of every task: the tax every task pays while such
# a session exists.  pmuctx_ps: `pmuctx stat --per-switch` (the default
# events, accounted in the sched_switch probe); pmuctx_cc / perf_cc: a
# counter-backed set (cpu-clock, a perf software counter that pmuctx
# reads at each switch of a monitored task).
CS_CFGS=(unloaded idle pmuctx pmuctx_ps pmuctx_cc pmuctx_sys perf perf_cc
	perf_sys bpftrace pmuctx_noinherit perf_noinherit pmuctx_other
	pmuctx_other_ps pmuctx_sys_total)
# configurations whose time inside the sched_switch probe is measured on
# the debug build after the rounds (pmuctx: switchless, no probe calls)
PROBE_CFGS=(pmuctx pmuctx_ps pmuctx_cc pmuctx_sys pmuctx_other_ps)
case_cs() {
	local cfgs=() r cfg w out ctx0 ctx1 n v
	for cfg in "${CS_CFGS[@]}"; do
		if [ "$cfg" = bpftrace ] && ! command -v bpftrace >/dev/null; then
			raw "F case=cs cfg=bpftrace msg=bpftrace_not_installed"
			continue
		fi
		cfgs+=("$cfg")
	done
	say "case cs: ${#cfgs[@]} configurations x $CS_ROUNDS rounds"
	# the layout this case ran in (bench/run gives it a 1-vCPU boot
	# without pinned keys under icount; the other cases' E lines follow)
	raw "E cs_nr_cpus=$(nproc) cs_pinned_keys=$PIN_KEYS"
	for ((r = 1; r <= CS_ROUNDS; r++)); do
		for cfg in $(rotate $((r - 1)) "${cfgs[@]}"); do
			if ! prepare "$cfg"; then
				raw "F case=cs cfg=$cfg round=$r msg=prepare_failed"
				continue
			fi
			w=$(wrap "$cfg")
			[ "$cfg" = idle ] && raw "I case=cs cfg=idle round=$r $(info_fields)"
			# shellcheck disable=SC2086
			out=$($w "$PP" -c 0 -l "$PP_LOOPS" -r "$PP_WINDOWS" -w "$PP_LOOPS" 2>"$T/err")
			reps "$out" pingpong ns_per_switch ns_per_switch \
				"case=cs bench=pingpong cfg=$cfg param=0 round=$r" \
				"case=cs bench=pingpong cfg=$cfg round=$r"
			case $cfg in
			pmuctx|pmuctx_ps|pmuctx_cc|perf|perf_cc)
				raw "I case=cs bench=pingpong cfg=$cfg round=$r cs_counted=$(grep -m1 'context-switches' "$T/stat.out" | awk '{print $1}' | tr -d ,)" ;;
			esac

			# --no-inherit: only the ping-pong's main thread is
			# monitored (its partner is not); pipe has no such form
			case $cfg in *_noinherit) finish "$cfg"; continue ;; esac
			ctx0=$(awk '/^ctxt/ {print $2}' /proc/stat)
			# shellcheck disable=SC2086
			out=$($w sh -c "for i in \$(seq $PIPE_RUNS); do taskset -c 0 perf bench sched pipe -l $PIPE_LOOPS; done" 2>"$T/err")
			ctx1=$(awk '/^ctxt/ {print $2}' /proc/stat)
			n=0
			for v in $(echo "$out" | awk '/usecs\/op/ {print $1}'); do
				n=$((n + 1))
				# 2 switches per round trip on one CPU
				raw "R case=cs bench=pipe cfg=$cfg param=0 round=$r rep=$n value=$(awk -v u="$v" 'BEGIN {printf "%.1f", u * 1000 / 2}') unit=ns_per_switch switches_per_op=$(awk -v a="$ctx0" -v b="$ctx1" -v l="$((PIPE_LOOPS * PIPE_RUNS))" 'BEGIN {printf "%.3f", (b - a) / l}')"
			done
			[ "$n" -gt 0 ] || raw "F case=cs bench=pipe cfg=$cfg round=$r msg=$(head -c 200 "$T/err" | tr ' \n' '__')"
			finish "$cfg"
			[ -n "$BT_TASKS" ] && raw "I case=cs cfg=bpftrace round=$r map_tasks=$BT_TASKS"
			say "cs round $r $cfg done"
		done
	done
	ensure_loaded
	cs_probe_time
}

# probe_time_line: the last "pmuctx: probe time: n= hit= ns=" line of the
# kernel log as "probe_n=N probe_hit=H probe_ns=T" (module/probebench.c
# prints it at rmmod)
probe_time_line() {
	dmesg | grep 'pmuctx: probe time: ' | tail -n 1 |
		sed 's/.*probe time: *//; s/\([a-z]*\)=/probe_\1=/g'
}
# median of the ns_per_switch=V values in the text on stdin
median_pp() {
	sed -n 's/.*ns_per_switch=\([0-9.]*\).*/\1/p' | sort -g |
		awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# Time inside the sched_switch probe, per configuration: the debug build
# (module/probebench.c) sums local_clock() from the probe's entry to its
# exit on each CPU and prints the totals at rmmod.  For each round and
# configuration of PROBE_CFGS: release module out, debug module in, the
# ping-pong under that configuration, rmmod, read the kernel log; the
# release module goes back in at the end.  Under icount (shift 0) the
# probe's ns are guest instructions.  bench/probe-ab.sh does the same for
# several builds.
cs_probe_time() {
	local r cfg w out before after
	if [ -z "$MODULE_DEBUG" ] || [ ! -f "$MODULE_DEBUG" ]; then
		raw "I case=cs probe_time=unavailable reason=no_debug_module"
		return 0
	fi
	say "case cs: probe-internal time, $PROBE_ROUNDS rounds (debug module)"
	for ((r = 1; r <= PROBE_ROUNDS; r++)); do
		for cfg in $(rotate $((r - 1)) "${PROBE_CFGS[@]}"); do
			ensure_unloaded || break
			if ! insmod "$MODULE_DEBUG"; then
				raw "F case=cs bench=probe cfg=$cfg round=$r msg=insmod_debug_failed"
				break
			fi
			for _ in $(seq 50); do [ -e /dev/pmuctx ] && break; sleep 0.1; done
			if ! prepare "$cfg"; then
				raw "F case=cs bench=probe cfg=$cfg round=$r msg=prepare_failed"
				continue
			fi
			w=$(wrap "$cfg")
			# shellcheck disable=SC2086
			out=$($w "$PP" -c 0 -l "$PP_LOOPS" -r "$PP_WINDOWS" -w "$PP_LOOPS" 2>"$T/err")
			finish "$cfg"
			before=$(dmesg | grep -c 'pmuctx: probe time: ')
			ensure_unloaded || break
			after=$(dmesg | grep -c 'pmuctx: probe time: ')
			if [ "$after" -gt "$before" ]; then
				raw "I case=cs bench=pingpong cfg=$cfg round=$r $(probe_time_line) pp_ns_per_switch=$(echo "$out" | median_pp)"
			else
				raw "F case=cs bench=probe cfg=$cfg round=$r msg=no_probe_time_line_at_rmmod"
			fi
			say "cs probe time round $r $cfg done"
		done
	done
	ensure_unloaded
	ensure_loaded
}

# ============================================================================
# Case 2: task churn with inheritance: T threads created and joined, P
# processes forked and reaped, under no monitor, pmuctx stat, perf stat.
# Each run does 2 repetitions; the first warms up (glibc stack cache, page
# tables) and the report uses the second.  Plus perf's own reference,
# `perf bench breakpoint thread`, under the same three.
case_churn() {
	local cfgs=(none pmuctx perf) r cfg w t out v b flag sizes
	ensure_loaded
	say "case churn: threads $CHURN_T, procs $CHURN_P, $CHURN_ROUNDS rounds"
	for ((r = 1; r <= CHURN_ROUNDS; r++)); do
		for cfg in $(rotate $((r - 1)) "${cfgs[@]}"); do
			w=$(wrap "$cfg")
			# threads (-t N) and processes (-f N), one size after the other
			for b in threads procs; do
				if [ "$b" = threads ]; then
					flag=-t sizes=$CHURN_T
				else
					flag=-f sizes=$CHURN_P
				fi
				for t in $sizes; do
					# shellcheck disable=SC2086
					out=$($w "$CHURN" "$flag" "$t" -r 2 2>"$T/err")
					reps "$out" churn ns_per_task ns_per_task \
						"case=churn bench=$b cfg=$cfg param=$t round=$r" \
						"case=churn bench=$b cfg=$cfg param=$t round=$r"
				done
			done
			# shellcheck disable=SC2086
			out=$($w perf bench breakpoint thread $BP_ARGS 2>"$T/err")
			v=$(echo "$out" | awk '/usecs\/op/ && !/cpu/ {print $1; exit}')
			if [ -n "$v" ]; then
				raw "R case=churn bench=breakpoint cfg=$cfg param=64 round=$r rep=1 value=$v unit=us_per_op"
			else
				raw "F case=churn bench=breakpoint cfg=$cfg round=$r msg=$(echo "$out" | head -c 200 | tr ' \n' '__')"
			fi
			say "churn round $r $cfg done"
		done
	done
}

# ============================================================================
# Case 3: lookup scale.  A ping-pong pair while N other threads of the same
# process sleep (store entries under pmuctx stat, inherited).  pmuctx info
# is recorded once the N threads exist.  Under `pmuctx stat --per-switch`
# (pmuctx_ps): a default session is switchless, its context switches
# look nothing up; the per-switch probe looks the incoming task up in the
# store at every switch, which is what N should not slow down.
case_scale() {
	local cfgs=(none pmuctx_ps) r cfg w n out
	ensure_loaded
	say "case scale: N = $SCALE_N, $SCALE_ROUNDS rounds"
	for ((r = 1; r <= SCALE_ROUNDS; r++)); do
		for n in $SCALE_N; do
			for cfg in $(rotate $((r - 1)) "${cfgs[@]}"); do
				w=$(wrap "$cfg")
				rm -f "$T/info.json"
				# shellcheck disable=SC2086
				out=$($w "$PP" -c 0 -l "$PP_LOOPS" -r "$PP_WINDOWS" -i "$n" \
					-x "$CLI info --json > $T/info.json" 2>"$T/err")
				reps "$out" pingpong ns_per_switch ns_per_switch \
					"case=scale bench=pingpong cfg=$cfg param=$n round=$r" \
					"case=scale cfg=$cfg param=$n round=$r"
				if [ -s "$T/info.json" ]; then
					raw "I case=scale cfg=$cfg param=$n round=$r $(tr -d '{}"' <"$T/info.json" | tr ',' '\n' | grep -E '^(tasks_tracked|store_bytes|entry_bytes|pool_entries):' | sed 's/:/=/' | tr '\n' ' ')"
				fi
				say "scale round $r N=$n $cfg done"
			done
		done
	done
}

# ============================================================================
# Case 4: kernel memory per monitored task: MEM_N sleeping threads under no
# monitor, pmuctx stat (4 default events) and perf stat (the same 4
# events, inherited).  /proc/meminfo is read before the monitor starts and
# while the threads exist, both times after shrinking every slab cache.
shrink_slabs() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f" 2>/dev/null; done
	sleep 0.5
}
meminfo_fields() {
	awk -v p="$1" '/^(MemFree|MemAvailable|Slab|SUnreclaim|SReclaimable|KernelStack|PageTables|VmallocUsed|Percpu):/ {
		sub(":", "", $1); printf "%s%s=%s ", p, $1, $2 }' /proc/meminfo
}
case_mem() {
	local cfgs=(none pmuctx perf) r cfg w m0 m1 info pid
	ensure_loaded
	say "case mem: $MEM_N threads, $MEM_ROUNDS rounds"
	for ((r = 1; r <= MEM_ROUNDS; r++)); do
		for cfg in $(rotate $((r - 1)) "${cfgs[@]}"); do
			w=$(wrap "$cfg")
			shrink_slabs
			m0=$(meminfo_fields m0_)
			: >"$T/hold.out"
			# shellcheck disable=SC2086
			$w "$CHURN" -H "$MEM_N" -s 600 >"$T/hold.out" 2>"$T/err" &
			local bg=$!
			for _ in $(seq 3000); do
				grep -q '^ready' "$T/hold.out" && break
				kill -0 "$bg" 2>/dev/null || break
				sleep 0.1
			done
			if ! grep -q '^ready' "$T/hold.out"; then
				raw "F case=mem cfg=$cfg round=$r msg=hold_not_ready"
				kill -TERM "$bg" 2>/dev/null; wait "$bg"
				continue
			fi
			sleep 1
			shrink_slabs
			m1=$(meminfo_fields m1_)
			info=$(info_fields)
			pid=$(sed -n 's/^ready.* pid=\([0-9]*\).*/\1/p' "$T/hold.out")
			kill -TERM "$pid"
			wait "$bg"
			raw "I case=mem cfg=$cfg param=$MEM_N round=$r $m0 $m1 $info"
			say "mem round $r $cfg done"
		done
	done
}

# ============================================================================
# Case 5: ring buffer.  Only when the module has the ring (feature "ring")
# and bench/ring is built.
case_ring() {
	ensure_loaded
	if [ ! -x "$RING" ]; then
		raw "I case=ring status=not_measured reason=bench/ring_not_built"
		return 0
	fi
	say "case ring: $RING_N records per measurement, $RING_ROUNDS rounds"
	# user space on the release module, the kernel part (-k) on the
	# debug build, the only one with /sys/kernel/debug/pmuctx/ring_bench
	"$RING" -n "$RING_N" -R "$RING_ROUNDS" -K 0 >"$T/ring.out" 2>"$T/err" ||
		raw "F case=ring msg=$(head -c 200 "$T/err" | tr ' \n' '__')"
	grep -E '^[RIF] ' "$T/ring.out" >>"$RAW"
	if [ -z "$MODULE_DEBUG" ] || [ ! -f "$MODULE_DEBUG" ]; then
		raw "I case=ring kernel_bench=unavailable reason=no_debug_module"
		return 0
	fi
	ensure_unloaded || return 1
	insmod "$MODULE_DEBUG" || { say "insmod $MODULE_DEBUG failed"; return 1; }
	"$RING" -R "$RING_ROUNDS" -k >"$T/ring.out" 2>"$T/err" ||
		raw "F case=ring msg=$(head -c 200 "$T/err" | tr ' \n' '__')"
	grep -E '^[RIF] ' "$T/ring.out" >>"$RAW"
	ensure_unloaded && ensure_loaded
}

# ============================================================================
t_start=$(now)
# Room for 50 000 threads; hard limits out of the way.
sysctl -qw kernel.pid_max=4194304 kernel.threads-max=1000000 \
	vm.max_map_count=4000000 2>/dev/null
ulimit -n 65536 2>/dev/null
ensure_loaded || exit 1
# QEMU TCG can hang the guest for good when a tool attaching to or leaving
# sched_switch (pmuctx, perf, bpftrace) live-patches __schedule while the
# other vCPU runs it (docs/TESTING.md, "Static keys are pinned"); a
# `make bench` hung that way in the bpftrace configuration.  So the keys
# are pinned for the whole boot, in every configuration alike, unless
# PMUCTX_BENCH_PIN_KEYS=0 (the production layout: first probe = direct
# static call, no probe = patched out).
PIN_KEYS=${PMUCTX_BENCH_PIN_KEYS:-1}
if [ "$PIN_KEYS" = 1 ]; then
	"$TOP/tests/progs/pin_keys" >/dev/null || say "pin_keys failed: the run may hang"
fi
env_record
raw "E pinned_keys=$PIN_KEYS"
# The host backs guest RAM on first touch: touch most of it once so that no
# measurement pays for that.  Then warm the binaries and tools.
say "warming up"
"$CHURN" -W $(( $(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1024 - 400 ))
"$PP" -l 2000 >/dev/null
taskset -c 0 perf bench sched pipe -l 500 >/dev/null 2>&1
"$CLI" stat -o /dev/null -- true
perf stat -o /dev/null -- true
raw "E warmup_s=$(awk -v a="$t_start" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')"

for c in $CASES; do
	t0=$(now)
	"case_$c"
	raw "E case_${c}_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')"
done
ensure_loaded
raw "E total_guest_s=$(awk -v a="$t_start" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')"
raw "E $(info_fields info_end_)"
say "done"

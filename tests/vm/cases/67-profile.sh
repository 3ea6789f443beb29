#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# Profiles from the CLI: pmuctx record -g (deferred user callchains, and
# --call-graph fp: immediate ones) of tests/sample/chain (main -> f1 ->
# f2 -> f3 reading /dev/zero, moving between CPU 0 and 1), then pmuctx
# report:
#   --format folded   lines "comm;frames count", one starting with chain
#                     and holding main;f1;f2;f3 with kernel frames after
#                     f3; every line parses as a folded stack;
#   --format pprof    read by a real pprof reader (go tool pprof -top):
#                     the top function of chain is f3 or a kernel
#                     function under it;
#   --format text     children/self table with f3, main and [k] frames;
#   --format perf-script  each sample with its stitched callchain, frames
#                     as perf script prints them (f3 f2 f1 main in order);
#   --stitch-stats    stitched samples, user records shared by more than
#                     one sample;
#   weights           by period (ns) by default, as perf; --weight samples
#                     counts samples.
# Also: an unprivileged recording (kernel addresses hidden) has no kernel
# frames, the MAPS sections are in the file, and samples in a PLT stub
# (tests/sample/pltloop) are named strlen@plt as perf names them.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

CHAIN=$PMUCTX_TOP/tests/sample/chain
need_exec "$CLI" || exit 1
need_exec "$CHAIN" || exit 1
mod_load 2>/dev/null || true
W=${CASE_TMP:-/tmp}/profile
rm -rf "$W"
mkdir -p "$W"
chmod 0777 "$W"
export HOME=$W GOCACHE=$W/gocache GOFLAGS=-mod=mod

# folded_ok FILE: every line is "frames count" with non-empty frames
# (the '#' header aside: what the counts are)
folded_ok() {
	awk '
	/^#/ { next }
	{
		n = split($0, a, " ")
		cnt = a[n]
		if (cnt !~ /^[0-9]+$/ || n < 2) { bad++; next }
		stack = substr($0, 1, length($0) - length(cnt) - 1)
		k = split(stack, f, ";")
		for (i = 1; i <= k; i++) if (f[i] == "") { bad++; next }
		lines++
	}
	END { exit !(lines > 0 && !bad) }' "$1"
}

# ---- a short command: the module's MMAP records name it ------------------------
# A process gone before the recorder reads its /proc/PID/maps (every 200 ms)
# used to get only [unknown] user frames (issue 14 item 4): 50 ms of CPU,
# both unwinders; the MAPS sections come from the MMAP records.
short_case() {	# NAME RECORD-OPTIONS...
	sc_name=$1
	shift
	check "$CLI" record "$@" -F 999 -o "$W/short-$sc_name.pmu" -- \
		sh -c "echo go | '$CHAIN' -50 0 >/dev/null" -- \
		"short command ($sc_name): pmuctx record $* -- chain -50"
	last_ok || diag_out "$CHECK_OUT"
	check "$CLI" report -i "$W/short-$sc_name.pmu" --format folded \
		--weight samples -- \
		"short command ($sc_name): report --format folded"
	printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/short-$sc_name.folded"
	# named: every user frame in a known map, "[unknown] (FILE+0xOFF)"
	# at worst (ld.so's start-up counts: a 50 ms program spends a good
	# part of its life there under TCG); a frame of no map, the defect,
	# is "[unknown]" alone or "[unknown] ([unknown]+0xADDR)".  (On arm64
	# the frame records go on into libc's static functions, which have
	# no symbol: "[unknown] (libc.so.6+0x27744)" below main.)
	sc_all=$(weight "$W/short-$sc_name.folded" '^chain;')
	sc_named=$(grep -vE '\[unknown\]($|;| [0-9]| \(\[)' "$W/short-$sc_name.folded" |
		awk '/^chain;/ { s += $NF } END { printf "%.0f\n", s }')
	sc_full=$(weight "$W/short-$sc_name.folded" '^chain;.*main;f1;f2;f3')
	if [ "$sc_full" -ge 3 ] && [ $((sc_named * 100)) -ge $((sc_all * 90)) ]; then
		ok "short command ($sc_name): $sc_named of $sc_all samples have named user frames, $sc_full main;f1;f2;f3"
	else
		not_ok "short command ($sc_name): >= 90% of the samples with named user frames, >= 3 main;f1;f2;f3 ($sc_named of $sc_all named, $sc_full main;f1;f2;f3)"
		diag_out "$(sort -t' ' -k2 -n -r "$W/short-$sc_name.folded" | head -n 8)"
	fi
}
# ---- deferred user callchains (-g) -------------------------------------------

check "$CLI" record -g -F 999 -o "$W/defer.pmu" -- \
	sh -c "echo go | '$CHAIN' -700 1 >/dev/null" -- \
	"pmuctx record -g -- chain (deferred user callchains, migrating)"
last_ok || diag_out "$CHECK_OUT"
check "$CLI" report -i "$W/defer.pmu" --format folded --weight samples -- \
	"pmuctx report --format folded --weight samples"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/defer.folded"
if folded_ok "$W/defer.folded"; then
	ok "folded: every line is 'frames count' with non-empty frames ($(wc -l < "$W/defer.folded") lines)"
else
	not_ok "folded: every line is 'frames count' with non-empty frames"
	diag_out "$(head -n 20 "$W/defer.folded")"
fi
if grep -q '^chain;.*main;f1;f2;f3' "$W/defer.folded"; then
	ok "folded: lines start with the comm (chain) and hold main;f1;f2;f3"
else
	not_ok "folded: lines start with the comm (chain) and hold main;f1;f2;f3"
	diag_out "$(sort -t' ' -k2 -n -r "$W/defer.folded" | head -n 10)"
fi
# Samples in the exit and exec paths have no user stack by design (NOUSER
# in lib.sh): on a slow kernel (KASAN) they are a good part of the run.
all=$(weight_user "$W/defer.folded" '^chain;')
nouser=$(weight_nouser "$W/defer.folded" '^chain;')
full=$(weight "$W/defer.folded" '^chain;.*main;f1;f2;f3')
if [ "$all" -gt 0 ] && [ $((full * 100)) -ge $((all * 80)) ]; then
	ok "folded: $full of $all chain samples have the whole user chain main;f1;f2;f3 ($nouser more in exec/exit, ld.so aside)"
else
	not_ok "folded: >= 80% of chain samples have main;f1;f2;f3 ($full of $all; $nouser more in exec/exit)"
	diag_out "$(grep -v 'main;f1;f2;f3' "$W/defer.folded" | sort -t' ' -k2 -n -r | head -n 10)"
fi
if grep -qE "^chain;.*main;f1;f2;f3;[^ ]*($SYSCALL_ENTRY_RE)" "$W/defer.folded"; then
	ok "folded: kernel frames (the syscall entry) come after f3, at the end"
else
	not_ok "folded: kernel frames (the syscall entry) come after f3, at the end"
fi

check "$CLI" report -i "$W/defer.pmu" --stitch-stats -- "pmuctx report --stitch-stats"
stats=$CHECK_OUT
diag_out "$stats"
num() { printf '%s\n' "$stats" | sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" | head -n 1; }
stitched=$(num stitched) shared=$(num 'shared by >1 sample') deferred=$(num deferred)
# the exec and exit paths' samples stay unresolved by design (all comms)
nouser=$(weight_nouser "$W/defer.folded")
if [ "${stitched:-0}" -gt 0 ] &&
   [ $((stitched * 100)) -ge $(((deferred - nouser) * 90)) ]; then
	ok "stitch stats: $stitched of $deferred deferred samples stitched ($nouser in exec/exit)"
else
	not_ok "stitch stats: >= 90% of deferred samples outside exec/exit stitched ($stitched of $deferred, $nouser in exec/exit)"
fi
if [ "${shared:-0}" -gt 0 ]; then
	ok "stitch stats: $shared user records shared by more than one sample"
else
	not_ok "stitch stats: user records shared by more than one sample ($shared)"
fi

# ---- perf-script: samples with their stitched callchains -------------------------
check "$CLI" report -i "$W/defer.pmu" --format perf-script -- \
	"pmuctx report --format perf-script"
printf '%s\n' "$CHECK_OUT" > "$W/defer.script"
# Each sample of chain: a header "... cpu-clock: ", its frames (kernel
# innermost first, then f3, f2, f1, main), a blank line.  Count the samples
# whose block holds f3+0x.. (path) followed by f2, f1 and main, in order.
if awk '
	/ cpu-clock: $/ { inblk = ($1 == "chain"); n = 0; hdr++; next }
	/^\t/ && inblk { fr[++n] = $2; next }
	/^$/ && inblk {
		s = ""
		for (i = 1; i <= n; i++) { sub(/\+0x[0-9a-f]+$/, "", fr[i]); s = s " " fr[i] }
		inblk = 0
		# exec and exit have no user stack by design (NOUSER, lib.sh)
		if (s ~ / (do_group_exit|do_exit|__x64_sys_exit_group|__x64_sys_execve|do_execveat_common|bprm_execve)( |$)/) { ex++; next }
		# and the ld.so start-up is rightly without main (LOADER)
		if (s ~ / _dl_[a-z_]*( |$)/) { ex++; next }
		if (s ~ / f3 f2 f1 main/) good++
		chain++
	}
	END {
		printf "%d chain samples, %d with f3 f2 f1 main, %d in exec/exit or ld.so\n", chain, good, ex > "/dev/stderr"
		exit !(chain > 0 && good * 100 >= chain * 80)
	}' "$W/defer.script" 2>"$W/script.stat"; then
	ok "perf-script: samples with their stitched callchains ($(cat "$W/script.stat"))"
else
	not_ok "perf-script: >= 80% of chain samples show f3, f2, f1, main in their callchain ($(cat "$W/script.stat"))"
	diag_out "$(grep -A12 ' cpu-clock:' "$W/defer.script" | head -n 40)"
fi
if grep -qE '^	 *[0-9a-f]+ f3\+0x[0-9a-f]+ \(/' "$W/defer.script"; then
	ok "perf-script: frames as perf prints them (address, symbol+offset, (file))"
else
	not_ok "perf-script: frames as perf prints them (address, symbol+offset, (file))"
	diag_out "$(grep -A12 ' cpu-clock:' "$W/defer.script" | head -n 20)"
fi

# ---- perf-script as perf script prints it (issue 16 item 3) --------------------------
# perf record -g and pmuctx record -g of the same programs in this VM,
# printed by perf script and by pmuctx report --format perf-script, and
# both parsed with stackcollapse-perf.pl's regular expressions (collapse.pl
# below; FlameGraph's header and frame patterns): no line unrecognized,
# every header in perf's documented shape and followed by its frames and a
# blank line, one event name for all samples (stackcollapse-perf.pl keeps
# the samples of the first event name it meets only), the same stacks
# (main;f1;f2;f3)
# and the same thread names (threads: worker-1, worker-2, named with
# pthread_setname_np()).
THREADS=$PMUCTX_TOP/tests/sample/threads
cat > "$W/collapse.pl" <<'PL'
# perf script output -> folded stacks, with stackcollapse-perf.pl's
# regular expressions (FlameGraph); every other line is counted as
# unrecognized.  Also: every header must have perf's documented shape.
use strict; use warnings;
my (@stack, $pname, %c, %ev);
my ($unrec, $hdrs, $strict, $stacks) = (0, 0, 0, 0);
while (<>) {
	next if /^#/;
	chomp;
	if (/^$/) {
		if (@stack) { $c{join(";", (defined $pname ? $pname : ""), @stack)}++; $stacks++; }
		undef @stack; undef $pname; next;
	}
	if (/^(\S+\s*?\S*?)\s+(\d+)\s/ || /^(\S+\s*?\S*?)\s+(\d+)\/(\d+)/) {
		($pname = $1) =~ tr/ /_/;
		$hdrs++;
		$strict++ if /^\S.*?\s+(\d+)(?:\/(\d+))?\s+(?:\[\d+\]\s+)?[\d.]+:\s+(\d+)?\s*\S+:\s*$/;
		$ev{$2}++ if /:\s*(\d+)*\s+(\S+):\s*$/;
	} elsif (/^\s*(\w+)\s*(.+) \((\S*)\)/) {
		my $func = $2;
		next if $func =~ /^\(/;
		$func =~ s/;/:/g; $func =~ tr/<>//d; $func =~ s/\(.*//;
		unshift @stack, $func;
	} else {
		$unrec++;
		print STDERR "unrecognized: $_\n" if $unrec <= 3;
	}
}
print "$_ $c{$_}\n" for sort keys %c;
my $evs = join(",", sort keys %ev);
print STDERR "headers $hdrs, perf-shaped $strict, stacks $stacks, unrecognized $unrec, events $evs\n";
exit(($unrec == 0 && $stacks > 0 && $strict == $hdrs && $stacks == $hdrs &&
      keys %ev == 1) ? 0 : 1);
PL
# collapse NAME TXT: parse TXT into TXT.folded; ok/not_ok NAME
collapse() {
	if perl "$W/collapse.pl" "$2" > "$2.folded" 2> "$2.stat"; then
		ok "$1 parses with stackcollapse-perf.pl's regexes ($(tail -n 1 "$2.stat"))"
	else
		not_ok "$1 parses with stackcollapse-perf.pl's regexes ($(tail -n 1 "$2.stat"))"
		diag_out "$(head -n 4 "$2.stat"; head -n 12 "$2")"
	fi
}
# has TXT.folded PATTERN WHAT
has_stack() {
	if grep -qE "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		diag_out "$(sort -t' ' -k2 -n -r "$1" | cut -c1-200 | head -n 6)"
	fi
}
need_exec "$THREADS" || true
if command -v perf >/dev/null 2>&1 && command -v perl >/dev/null 2>&1; then
	check perf record -q -g -e cpu-clock -F 999 -o "$W/chain.perf" -- \
		sh -c "echo go | '$CHAIN' -300 0 >/dev/null" -- \
		"perf record -g -e cpu-clock -- chain"
	perf script -i "$W/chain.perf" > "$W/chain.perf.txt" 2>/dev/null || true
	collapse "perf script of chain" "$W/chain.perf.txt"
	# standard output as a pipe gets it (not through $(...), which would
	# cut the blank line after the last sample)
	"$CLI" report -i "$W/defer.pmu" --format perf-script > "$W/defer.out" 2>/dev/null || true
	collapse "pmuctx report --format perf-script of chain" "$W/defer.out"
	F3='^chain;.*main[^;]*;f1[^;]*;f2[^;]*;f3'
	has_stack "$W/chain.perf.txt.folded" "$F3" "perf script: chain's stacks hold main;f1;f2;f3"
	has_stack "$W/defer.out.folded" "$F3" "pmuctx perf-script: chain's stacks hold main;f1;f2;f3, as perf's"

	check perf record -q -g -e cpu-clock -F 999 -o "$W/thr.perf" -- \
		"$THREADS" 300 -- "perf record -g -e cpu-clock -- threads"
	perf script -i "$W/thr.perf" > "$W/thr.perf.txt" 2>/dev/null || true
	check "$CLI" record -g -F 999 -o "$W/thr.pmu" -- "$THREADS" 300 -- \
		"pmuctx record -g -- threads"
	check "$CLI" report -i "$W/thr.pmu" --format perf-script -- \
		"pmuctx report --format perf-script of threads"
	"$CLI" report -i "$W/thr.pmu" --format perf-script > "$W/thr.script" 2>/dev/null || true
	collapse "perf script of threads" "$W/thr.perf.txt"
	collapse "pmuctx report --format perf-script of threads" "$W/thr.script"
	for t in worker-1 worker-2; do
		has_stack "$W/thr.perf.txt.folded" "^$t;" "perf script: $t's samples under its name"
		has_stack "$W/thr.script.folded" "^$t;.*(spin|work)" "pmuctx perf-script: $t's samples under its name, in spin or work, as perf's"
	done
	if grep -qE '^:[0-9]' "$W/thr.script.folded"; then
		not_ok "pmuctx perf-script: no thread named :TID"
		diag_out "$(grep -E '^:[0-9]' "$W/thr.script.folded" | cut -c1-120 | head -n 4)"
	else
		ok "pmuctx perf-script: no thread named :TID"
	fi
else
	not_ok "perf and perl are needed for the perf-script comparison (linux-perf, perl)"
fi

# ---- no observer effect (issue 16 item 1) ----------------------------------------
# A multi-threaded sort (4 threads on 2 CPUs) recorded by pmuctx record -g
# (deferred user callchains) and by perf record -g in this VM, both at
# 999 Hz; tests/vm/profile-stats.py compares them: the share of kernel-mode
# samples and of exit_to_user_mode* self samples like perf's, no sample
# taken inside pmuctx's own code (the deferred unwind's task_work), no two
# samples of a thread on a CPU closer than half a period.  Before: samples
# in the unwind's task_work, and hundreds of pairs under half a period
# (the timer kept its grid after a late tick, and a thread switched in
# while an exited thread's timer was armed took that timer).
if command -v perf >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	python3 -c '
import random, sys
r = random.Random(1)
with open(sys.argv[1], "w") as f:
    for i in range(600000):
        f.write("%08d %s\n" % (r.randrange(10**8), "x" * r.randrange(40)))
' "$W/sort.in"
	SORT="sort --parallel=4 -S 200M -o /dev/null $W/sort.in"
	# shellcheck disable=SC2086
	check "$CLI" record -q -g -F 999 -o "$W/sort.pmu" -- $SORT -- \
		"pmuctx record -g -- sort --parallel=4"
	"$CLI" report -i "$W/sort.pmu" --format perf-script > "$W/sort.pmu.txt" 2>/dev/null || true
	# shellcheck disable=SC2086
	check perf record -q -g --sample-cpu -e cpu-clock -F 999 \
		-o "$W/sort.perf" -- $SORT -- \
		"perf record -g --sample-cpu -- sort --parallel=4"
	perf script -F comm,pid,tid,cpu,time,event,ip,sym,dso \
		-i "$W/sort.perf" > "$W/sort.perf.txt" 2>/dev/null || true
	python3 "$PMUCTX_TOP/tests/vm/profile-stats.py" "$W/sort.pmu.txt" \
		"$W/sort.perf.txt" sort $((1000000000 / 999)) > "$W/sort.stats" 2>&1 || true
	verdicts "observer effect" "$W/sort.stats"
else
	not_ok "perf and python3 are needed for the observer-effect comparison"
fi

# ---- PLT stubs named as perf names them (issue 16 item 5) ----------------------
# pltloop calls strlen() through its lazily bound PLT: samples in the stub
# are strlen@plt in folded and text output (the leaf: a stub makes no
# frame), as perf report names them; perf's own report of the same
# program in this VM is shown beside it, and compared when it names the
# stub.
PLTLOOP=$PMUCTX_TOP/tests/sample/pltloop
if need_exec "$PLTLOOP"; then
	check "$CLI" record -g -F 999 -o "$W/plt.pmu" -- "$PLTLOOP" 1500 -- \
		"pmuctx record -g -- pltloop"
	"$CLI" report -i "$W/plt.pmu" --format folded --weight samples \
		> "$W/plt.folded" 2>&1 || true
	"$CLI" report -i "$W/plt.pmu" > "$W/plt.txt" 2>&1 || true
	if grep -qE '^pltloop;.*strlen@plt [0-9]+$' "$W/plt.folded"; then
		ok "folded: samples in pltloop's PLT stub end in strlen@plt"
	else
		not_ok "folded: samples in pltloop's PLT stub end in strlen@plt"
		diag_out "$(sort -t' ' -k2 -n -r "$W/plt.folded" | head -n 8)"
	fi
	if grep -q '\[\.\] strlen@plt' "$W/plt.txt"; then
		ok "text: [.] strlen@plt"
	else
		not_ok "text: [.] strlen@plt"
		diag_out "$(grep -E '\[\.\]' "$W/plt.txt" | head -n 8)"
	fi
	if command -v perf >/dev/null 2>&1 &&
	   perf record -q -F 999 -e cpu-clock -o "$W/plt.perf" -- \
		"$PLTLOOP" 1500 >/dev/null 2>&1; then
		perf report -i "$W/plt.perf" --stdio --sort sym 2>/dev/null |
			grep -E '^ +[0-9]' > "$W/plt.perf.txt" || true
		diag_out "perf report of pltloop: $(head -n 5 "$W/plt.perf.txt")"
		if grep -q 'strlen@plt' "$W/plt.perf.txt"; then
			if grep -q '\[\.\] strlen@plt' "$W/plt.txt"; then
				ok "perf report names the stub strlen@plt, as pmuctx does"
			else
				not_ok "perf report names the stub strlen@plt, as pmuctx does"
			fi
		fi
	fi
fi

# ---- pprof, read by go tool pprof ------------------------------------------------

check "$CLI" report -i "$W/defer.pmu" --format pprof -o "$W/defer.pb.gz" -- \
	"pmuctx report --format pprof -o FILE"
if command -v go >/dev/null 2>&1; then
	check go tool pprof -top "$W/defer.pb.gz" -- "go tool pprof -top reads it"
	top=$CHECK_OUT
	diag_out "$(printf '%s\n' "$top" | head -n 12)"
	check go tool pprof -top -tagfocus=comm=chain "$W/defer.pb.gz" -- \
		"go tool pprof -top -tagfocus=comm=chain (the chain program)"
	first=$(printf '%s\n' "$CHECK_OUT" | awk '/ flat%/ { getline; print $NF; exit }')
	if [ "$first" = f3 ] || awk -v fn="$first" '
		/^chain;/ && /;f3;/ {
			stack = $0; sub(/ [0-9]+$/, "", stack)
			n = split(stack, f, ";")
			if (f[n] == fn) found = 1
		}
		END { exit !found }' "$W/defer.folded"; then
		ok "pprof: the top function of chain is f3 or a kernel function under it ($first)"
	else
		not_ok "pprof: the top function of chain is f3 or a kernel function under it ($first)"
		diag_out "$CHECK_OUT"
	fi
	check go tool pprof -traces "$W/defer.pb.gz" -- "go tool pprof -traces"
	case $CHECK_OUT in
	*"comm:  chain"*) ok "pprof: samples carry the comm label" ;;
	*) not_ok "pprof: samples carry the comm label" ;;
	esac
elif [ "$(uname -m)" = aarch64 ]; then
	# the host's Go is x86-64; the encoder is the same code on both
	skip "go tool pprof reads it" "no Go toolchain in the arm64 guest (go tool pprof reads pmuctx's pprof output in the x86-64 tier)"
else
	not_ok "go tool pprof is not installed (golang-go: scripts/setup-deps.sh)"
fi

# ---- text, weights ---------------------------------------------------------------

check "$CLI" report -i "$W/defer.pmu" --format text -- "pmuctx report --format text"
out=$CHECK_OUT
if printf '%s\n' "$out" | grep -q 'Children *Self *Command' &&
   printf '%s\n' "$out" | grep -qE '^ +[0-9.]+% +[0-9.]+% +chain +chain +\[\.\] f3$' &&
   printf '%s\n' "$out" | grep -qE '^ +[0-9.]+% +[0-9.]+% +chain +\[kernel\.kallsyms\] +\[k\] '; then
	ok "text: children/self table with chain's f3 and kernel functions"
else
	not_ok "text: children/self table with chain's f3 and kernel functions"
	diag_out "$(printf '%s\n' "$out" | head -n 30)"
fi
# perf weighs samples by period: so does the default (issue 16 item 2)
check "$CLI" report -i "$W/defer.pmu" --format folded -- \
	"pmuctx report --format folded (default weight)"
printf '%s\n' "$CHECK_OUT" > "$W/defer.ns"
ns=$(weight "$W/defer.ns" '^chain;')
# main's Children in the text report: its share of the whole weight (ns of
# CPU time, every command), which must be the folded stacks' (the same
# recording, the same weight) within a point.  How much of it main has
# depends on the host (issue 32 item 6: under 50 % in a make check-debug
# beside two busy VMs): a vCPU the host deschedules runs on in the guest's
# clock, so a sample in the exit or exec path, which has no user stack by
# design (NOUSER in lib.sh), or in ld.so could weigh many periods (the
# default weight caps a sample at its sampling period since issue 30 item
# 3; --weight raw-period does not).  Of the
# weight of chain's samples that can have a user stack, main must have
# most: broken stitching or symbols leave it none.
main_pct=$(printf '%s\n' "$out" | awk '$3 == "chain" && $NF == "main" { sub("%", "", $1); print $1; exit }')
MAINRE='^chain;(.*;)?main(;| [0-9]+$)'
main_ns=$(weight "$W/defer.ns" "$MAINRE")
all_ns=$(awk '$0 !~ /^#/ { s += $NF } END { printf "%.0f\n", s }' "$W/defer.ns")
main_user=$(weight_user "$W/defer.ns" "$MAINRE")
user_ns=$(weight_user "$W/defer.ns" '^chain;')
diag "main: text $main_pct% children; folded: $main_ns of $all_ns ns in all, $main_user of chain's $user_ns ns outside exec/exit and ld.so"
if [ -n "$main_pct" ] && [ "$all_ns" -gt 0 ] &&
   awk -v t="$main_pct" -v m="$main_ns" -v a="$all_ns" 'BEGIN {
	d = t - 100 * m / a; if (d < 0) d = -d; exit !(d <= 1) }'; then
	ok "text: main of chain has $main_pct% children, its share of the folded stacks' weight"
else
	not_ok "text: main of chain has its share of the folded stacks' weight as children ($main_pct%, $main_ns of $all_ns ns)"
	diag_out "$(printf '%s\n' "$out" | head -n 30)"
fi
if [ "$user_ns" -gt 0 ] && [ $((main_user * 2)) -ge "$user_ns" ]; then
	ok "folded: main of chain has most of chain's weight outside exec/exit and ld.so ($main_user of $user_ns ns)"
else
	not_ok "folded: main of chain has most of chain's weight outside exec/exit and ld.so ($main_user of $user_ns ns)"
	diag_out "$(sort -t' ' -k2 -n -r "$W/defer.ns" | head -n 10)"
fi
if [ "$all" -gt 0 ] && [ "$ns" -gt $((all * 100000)) ] &&
   grep -q '^# pmuctx folded stacks, weight: period (ns of CPU time' "$W/defer.ns"; then
	ok "default weight is the period: counts are ns ($ns ns for $all samples), the header says so"
else
	not_ok "default weight is the period: counts are ns ($ns ns for $all samples), the header says so"
	diag_out "$(head -n 3 "$W/defer.ns")"
fi
if printf '%s\n' "$out" | grep -q '^# Weight: period (ns of CPU time'; then
	ok "text: weighed by period by default, the header says so"
else
	not_ok "text: weighed by period by default, the header says so"
fi

# ---- a short command (after the long runs: TCG's first sampling interrupts
# are slow to translate and get throttled)

short_case defer -g
short_case fp -g --call-graph fp
# ---- the launcher is never recorded (issue 30 item 4) -----------------------
# pmuctx record forks a process that execs the command; recording starts at
# the exec (enable_on_exec), so no sample has the launcher's name (pmuctx):
# before, the fork's copy of the CLI and the first half of the exec (the old
# mm torn down) were sampled as "pmuctx", 1-9 % of a profile.  Three runs of
# /bin/true at 10 kHz.
l_true=0
l_launcher=0
for i in 1 2 3; do
	"$CLI" record -q -F 10000 -o "$W/launch.pmu" -- /bin/true >/dev/null 2>&1 || true
	"$CLI" report -i "$W/launch.pmu" --format folded --weight samples > "$W/launch.folded" 2>/dev/null || true
	l_true=$((l_true + $(weight "$W/launch.folded" '^true(;| )')))
	l_launcher=$((l_launcher + $(weight "$W/launch.folded" '^pmuctx(;| )')))
done
if [ "$l_launcher" -eq 0 ] && [ "$l_true" -gt 0 ]; then
	ok "launcher: pmuctx record -F 10000 -- /bin/true, 3 runs: $l_true samples of true, none of the launcher (pmuctx)"
else
	not_ok "launcher: pmuctx record -F 10000 -- /bin/true, 3 runs: no sample of the launcher (pmuctx) ($l_launcher of them, $l_true of true)"
	diag_out "$(cat "$W/launch.folded")"
fi
# ... and the map that named them is the module's (reason "kernel"), with
# the chain binary in it.
"$CLI" report -i "$W/short-defer.pmu" --format json > "$W/short.json" 2>/dev/null || true
if python3 - "$W/short.json" <<'PY'
import json, sys
maps = json.load(open(sys.argv[1])).get("maps") or []
k = [m for m in maps if m["reason"] == "kernel"]
sys.exit(0 if k and any("/chain" in m["text"] for m in k) else 1)
PY
then
	ok "short command: MAPS from the module's MMAP records (reason kernel) name the chain binary"
else
	not_ok "short command: MAPS from the module's MMAP records (reason kernel) name the chain binary"
fi

# ---- immediate user callchains (--call-graph fp) ----------------------------------

check "$CLI" record -g --call-graph fp -F 499 -o "$W/fp.pmu" -- \
	sh -c "echo go | '$CHAIN' -500 0 >/dev/null" -- \
	"pmuctx record --call-graph fp (immediate user callchains)"
check "$CLI" report -i "$W/fp.pmu" --format folded -- "report of the fp recording"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/fp.folded"
if folded_ok "$W/fp.folded" && grep -q '^chain;.*main;f1;f2;f3' "$W/fp.folded"; then
	ok "fp: folded stacks with main;f1;f2;f3"
else
	not_ok "fp: folded stacks with main;f1;f2;f3"
	diag_out "$(head -n 10 "$W/fp.folded")"
fi
check "$CLI" report -i "$W/fp.pmu" --stitch-stats -- "stitch stats of the fp recording"
stats=$CHECK_OUT
imm=$(num 'immediate') deferred=$(num deferred)
if [ "${imm:-0}" -gt 0 ] && [ "${deferred:-1}" = 0 ]; then
	ok "fp: $imm immediate samples, none deferred"
else
	not_ok "fp: immediate samples, none deferred (immediate '$imm', deferred '$deferred')"
fi

# ---- the file: MAPS sections -----------------------------------------------------

check "$CLI" report -i "$W/defer.pmu" --format json -- "report --format json of a sampling recording"
if printf '%s\n' "$CHECK_OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
maps = d.get("maps", [])
ok = any("/chain" in m["text"] for m in maps)
s = d.get("sampling") or {}
sys.exit(0 if ok and s.get("freq") == 999 and s.get("call_graph") == "defer" else 1)'; then
	ok "json: MAPS sections hold chain's memory map; sampling settings recorded"
else
	not_ok "json: MAPS sections hold chain's memory map; sampling settings recorded"
fi

# ---- unprivileged: kernel addresses hidden ----------------------------------------

GID=4242
chgrp "$GID" "$DEV"
chmod 0660 "$DEV"
# chain lives in the kernel (a read loop): its samples need paranoid 1 (at
# 2 an unprivileged session gets no kernel-mode sample at all, 73-security
# kmode), and kptr_restrict 1 hides their kernel addresses from the user.
old=$(cat /proc/sys/kernel/perf_event_paranoid)
oldk=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 > /proc/sys/kernel/perf_event_paranoid
echo 1 > /proc/sys/kernel/kptr_restrict
# ---- the global sample budget (sampling item 1) ------------------------------
# 100 samples/s for the whole machine (50 per CPU) under a 999 Hz
# recording: the summary says how many samples were not taken, and the
# BUDGET records in the file add up to the same number.
P=/sys/module/pmuctx/parameters
oldb=$(cat "$P/sample_budget")
echo 100 > "$P/sample_budget"
check "$CLI" record -F 999 -o "$W/budget.pmu" -- \
	sh -c "echo go | '$CHAIN' -500 0 >/dev/null" -- \
	"pmuctx record -F 999 under a budget of 100 samples/s"
echo "$oldb" > "$P/sample_budget"
said=$(printf '%s\n' "$CHECK_OUT" |
	sed -n 's/^pmuctx record: \([0-9]*\) samples not taken: the global sample budget was spent.*/\1/p')
check "$CLI" report -i "$W/budget.pmu" --format json -- \
	"report --format json of the budget recording"
inrec=$(printf '%s\n' "$CHECK_OUT" |
	grep -o '"kind":"budget","period_ns":[0-9]*,"avg_ns":[0-9]*,"dropped":[0-9]*' |
	awk -F'"dropped":' '{ n += $2 } END { print n + 0 }')
if [ -n "$said" ] && [ "$said" -gt 0 ] && [ "$said" = "$inrec" ]; then
	ok "budget: record's summary and the BUDGET records agree ($said samples not taken)"
else
	not_ok "budget: record's summary and the BUDGET records agree (summary '$said', records $inrec)"
fi

U=/tmp/pmuctx-profile-u
mkdir -p "$U"
cp "$CHAIN" "$U/chain"
chmod 1777 "$U"
chmod 0755 "$U/chain"
cli=$(user_exec "$CLI")
rc=0
# through sh -c ... exec: a process setpriv changed the uid of is not
# dumpable until it execs, and neither is a child it forks; page-faults
# (per-CPU perf event) needs more than paranoid 2 allows: -e task-clock
out=$(as_user 65534 65534 "$GID" sh -c "exec '$cli' record -q -e task-clock \
	-g -F 499 -o '$U/u.pmu' -- sh -c 'echo go | \
	$U/chain -500 0 >/dev/null'" 2>&1) || rc=$?
echo "$old" > /proc/sys/kernel/perf_event_paranoid
echo "$oldk" > /proc/sys/kernel/kptr_restrict
if [ "$rc" = 0 ]; then
	ok "unprivileged pmuctx record -g works (paranoid 1, kptr_restrict 1)"
	"$CLI" report -i "$U/u.pmu" --format folded > "$W/u.folded" 2>&1 || true
	if grep -q '^chain;.*main;f1;f2;f3' "$W/u.folded" &&
	   ! grep -qE "$SYSCALL_ENTRY_RE" "$W/u.folded"; then
		ok "unprivileged: user frames main;f1;f2;f3, no kernel frames"
	else
		not_ok "unprivileged: user frames main;f1;f2;f3, no kernel frames"
		diag_out "$(head -n 10 "$W/u.folded")"
	fi
else
	not_ok "unprivileged pmuctx record -g works (exit $rc)"
	diag_out "$out"
fi
exit 0

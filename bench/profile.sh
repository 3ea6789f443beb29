#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/profile.sh - the cost of sampling with callchains: pmuctx record
# with immediate (--call-graph fp) and deferred (-g, the default) user
# stacks against perf record -g (frame pointers), on the same workload in
# the same VM boot.
#
# usage: bench/profile.sh [--rounds N] [--secs S] [--no-doc]
#        bench/profile.sh --raw FILE      (only rewrite the doc section)
#
# The workload (compiled in the guest, frame pointers on) recurses to a
# depth of 16 or 64 frames, then loops: a short user-space loop and a
# 4 MiB read() of /dev/zero through an inline syscall, for S seconds
# (default 3), and prints how many iterations it did: a deep user stack,
# several samples per system call (the case deferred stacks are for).
# Configurations, interleaved round by round (default 3 rounds):
#   base          the workload alone
#   pmuctx-fp     pmuctx record -F 999 --call-graph fp --max-stack 127
#   pmuctx-defer  pmuctx record -F 999 -g --max-stack 127
#   perf-fp       perf record -e cpu-clock -F 999 -g (perf's default: fp)
# Per run: the workload's iterations per second, the samples and the bytes
# of the file.  Reported (medians): bytes per sample (whole file / samples),
# samples per second sustained, the workload's slowdown against base, and
# the ratio of bytes per sample to perf's.
#
# Results: bench/profile-results.txt (raw lines) and a section of
# docs/PERFORMANCE.md between "<!-- BEGIN bench/profile.sh -->" and
# "<!-- END bench/profile.sh -->" (replaced, or appended if absent).
# bench/report.py rewrites docs/PERFORMANCE.md from scratch: run
# "bench/profile.sh --raw bench/profile-results.txt" after it to put the
# section back.  Inside the VM this script runs itself with --guest.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top"

rounds=3 secs=3 doc=1 raw= guest=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--secs) secs=${2:?}; shift 2 ;;
	--no-doc) doc=0; shift ;;
	--raw) raw=${2:?}; shift 2 ;;
	--guest) guest=1; shift ;;
	-h|--help) sed -n '4,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/profile.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# ---- guest side ----------------------------------------------------------------
if [ "$guest" = 1 ]; then
	OUT=${PMUCTX_VM_OUT:-/tmp/profile-out}
	mkdir -p "$OUT"
	RAW=$OUT/raw.txt
	: >"$RAW"
	T=/tmp/profile-bench
	mkdir -p "$T"
	CLI=$top/tools/pmuctx
	cat >"$T/deep.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char buf[4 << 20];
static volatile long sink;
static int fd;
static double secs;
static long iters;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void work(void)
{
	double t0 = now(), t;
	long i, r;

	do {
		for (i = 0; i < 2000; i++)
			sink += i;
		asm volatile("syscall" : "=a"(r)
			     : "0"((long)SYS_read), "D"((long)fd), "S"(buf),
			       "d"((long)sizeof(buf))
			     : "rcx", "r11", "memory");
		sink += r;
		iters++;
		t = now();
	} while (t - t0 < secs);
	printf("iterations %ld seconds %.6f\n", iters, t - t0);
}

__attribute__((noinline)) static void deep(int n)
{
	if (n > 1)
		deep(n - 1);
	else
		work();
	sink++;
}

int main(int argc, char **argv)
{
	fd = open("/dev/zero", O_RDONLY);
	secs = atof(argv[2]);
	deep(atoi(argv[1]));
	return 0;
}
EOF
	gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o "$T/deep" "$T/deep.c"
	perf=$(command -v perf || true)
	echo "E kernel=$(uname -r) cpus=$(nproc) perf=${perf:-none}" >>"$RAW"
	for round in $(seq 1 "$rounds"); do
		for depth in 16 64; do
			for cfg in base pmuctx-fp pmuctx-defer perf-fp; do
				f=$T/$cfg-$depth.data
				rm -f "$f"
				case $cfg in
				base) out=$("$T/deep" "$depth" "$secs") || true ;;
				pmuctx-fp) out=$("$CLI" record -q -F 999 --call-graph fp \
					--max-stack 127 -o "$f" -- "$T/deep" "$depth" \
					"$secs") || true ;;
				pmuctx-defer) out=$("$CLI" record -q -F 999 -g \
					--max-stack 127 -o "$f" -- "$T/deep" "$depth" \
					"$secs") || true ;;
				perf-fp)
					[ -n "$perf" ] || continue
					out=$("$perf" record -q -e cpu-clock -F 999 -g -o "$f" \
						-- "$T/deep" "$depth" "$secs" 2>/dev/null) || true ;;
				esac
				[ -s "$f" ] || [ "$cfg" = base ] ||
					echo "F cfg=$cfg depth=$depth round=$round msg=no-file" >>"$RAW"
				it=$(printf '%s\n' "$out" | sed -n 's/^iterations \([0-9]*\) seconds \([0-9.]*\)$/\1 \2/p')
				set -- $it
				samples=0 bytes=0 shared=0 records=0
				case $cfg in
				pmuctx-*)
					st=$("$CLI" report -i "$f" --stitch-stats 2>/dev/null) || true
					samples=$(printf '%s\n' "$st" | sed -n 's/^samples: *\([0-9]*\).*/\1/p')
					records=$(printf '%s\n' "$st" | sed -n 's/^user callchain records: *\([0-9]*\).*/\1/p')
					shared=$(printf '%s\n' "$st" | sed -n 's/^ *shared by >1 sample: *\([0-9]*\).*/\1/p')
					bytes=$(stat -c %s "$f" 2>/dev/null || echo 0) ;;
				perf-fp)
					samples=$("$perf" report -i "$f" --stats 2>/dev/null |
						sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1) || true
					bytes=$(stat -c %s "$f" 2>/dev/null || echo 0) ;;
				esac
				echo "R cfg=$cfg depth=$depth round=$round iters=${1:-0} secs=${2:-0} samples=${samples:-0} bytes=$bytes user_records=${records:-0} shared=${shared:-0}" >>"$RAW"
			done
		done
	done
	cat "$RAW"
	exit 0
fi

# ---- host side: run the VM, then the doc section ----------------------------------
results=bench/profile-results.txt
if [ -z "$raw" ]; then
	for f in tools/pmuctx module/pmuctx.ko; do
		[ -e "$f" ] || { echo "bench/profile.sh: $f is missing: run make" >&2; exit 1; }
	done
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-profile-bench.XXXXXX")
	echo "bench/profile.sh: $rounds round(s) of $secs s per configuration, in the VM" >&2
	tests/vm/run --smp 2 --mem 2048 --timeout 3000 --outdir "$outdir" -- \
		bench/profile.sh --guest --rounds "$rounds" --secs "$secs" >/dev/null
	cp "$outdir/results/out/raw.txt" "$results"
	{ echo "E host=$(uname -n) date=$(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1 /proc/loadavg)"; } >>"$results"
	rm -rf "$outdir"
	raw=$results
fi

section=$(python3 - "$raw" <<'EOF'
import statistics as st, sys
runs, env = [], []
for line in open(sys.argv[1]):
    w = line.split()
    if not w:
        continue
    if w[0] == "E":
        env.append(" ".join(w[1:]))
    elif w[0] == "R":
        runs.append(dict(kv.split("=", 1) for kv in w[1:]))
def med(cfg, depth, f):
    v = [f(r) for r in runs if r["cfg"] == cfg and r["depth"] == depth]
    v = [x for x in v if x is not None]
    return st.median(v) if v else None
def rate(r):
    s = float(r["secs"])
    return int(r["iters"]) / s if s > 0 else None
def bps(r):
    n = int(r["samples"])
    return int(r["bytes"]) / n if n else None
def sps(r):
    s = float(r["secs"])
    return int(r["samples"]) / s if s > 0 else None
def spr(r):
    n = int(r["user_records"])
    return int(r["samples"]) / n if n else None
L = []
a = L.append
a("<!-- BEGIN bench/profile.sh -->")
a("## Sampling with callchains: immediate vs deferred user stacks vs perf")
a("")
a("Measured by `bench/profile.sh` (one VM boot, TCG, 2 vCPUs; medians of "
  "the rounds). The workload recurses to a depth of 16 or 64 frames "
  "(frame pointers), then loops on a short user loop and a 4 MiB "
  "`read()` of `/dev/zero`; every recorder samples at 999 Hz with kernel "
  "and user callchains (`--max-stack 127`; perf: `-e cpu-clock -g`, "
  "frame pointers). *Bytes/sample* is the whole file over the samples "
  "(perf.data also holds its headers, mmap events and build ids; a "
  "pmuctx file its memory maps). *Slowdown* is the workload's "
  "iterations per second against the run without a recorder.")
a("")
a("| depth | recorder | bytes/sample | vs perf | samples/s | slowdown | samples per user record |")
a("|---|---|---|---|---|---|---|")
for depth in ("16", "64"):
    base = med("base", depth, rate)
    perf_b = med("perf-fp", depth, bps)
    for cfg, name in (("pmuctx-fp", "pmuctx `--call-graph fp` (immediate)"),
                      ("pmuctx-defer", "pmuctx `-g` (deferred)"),
                      ("perf-fp", "`perf record -g` (fp)")):
        b, s, r, k = med(cfg, depth, bps), med(cfg, depth, sps), \
            med(cfg, depth, rate), med(cfg, depth, spr)
        if b is None and s is None:
            a(f"| {depth} | {name} | - | - | - | - | - |")
            continue
        ratio = f"{b / perf_b:.2f}x" if b and perf_b else "-"
        slow = f"{(base / r - 1) * 100:+.1f}%" if base and r else "-"
        kk = f"{k:.1f}" if k and cfg == "pmuctx-defer" else "-"
        a(f"| {depth} | {name} | {b:.0f} | {ratio} | {s:.0f} | {slow} | {kk} |")
a("")
a("Deferred user stacks write one USER_CALLCHAIN record per kernel entry "
  "that was sampled, shared by every sample taken until the return to "
  "user space, so the bytes per sample fall with the samples per system "
  "call (the last column) and with the user depth; immediate stacks "
  "copy the whole user chain into every sample, like perf. TCG makes "
  "the absolute rates and the slowdowns noisy; the byte counts are "
  "exact.")
a("")
a("Environment: " + "; ".join(env) + ".")
a("<!-- END bench/profile.sh -->")
print("\n".join(L))
EOF
)

if [ "$doc" = 0 ]; then
	printf '%s\n' "$section"
	exit 0
fi
doc_file=docs/PERFORMANCE.md
if [ -f "$doc_file" ] && grep -q '^<!-- BEGIN bench/profile.sh -->' "$doc_file"; then
	python3 - "$doc_file" "$section" <<'EOF'
import re, sys
p, sec = sys.argv[1], sys.argv[2]
s = open(p).read()
s = re.sub(r"<!-- BEGIN bench/profile.sh -->.*?<!-- END bench/profile.sh -->",
           lambda m: sec, s, flags=re.S)
open(p, "w").write(s)
EOF
else
	{
		[ -s "$doc_file" ] && printf '\n'
		printf '%s\n' "$section"
	} >>"$doc_file"
fi
echo "bench/profile.sh: results in $results, section in $doc_file" >&2
printf '%s\n' "$section"

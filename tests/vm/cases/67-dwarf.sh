#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# --call-graph dwarf (issue 16 item 4): user stacks of a program built
# without frame pointers (tests/sample/nofp, -O2 -fomit-frame-pointer,
# main -> a -> b -> c -> d burning CPU in d):
#   - pmuctx record --call-graph dwarf: >= 90% of nofp's samples (the
#     exec and exit paths aside, NOUSER in lib.sh) unwind to
#     main;a;b;c;d in report --format folded; perf-script prints the same
#     chain; --stitch-stats counts the USER_STACK records, all well formed;
#   - the vDSO: nofp with its clock read at every turn (most samples in
#     the vDSO's code or a system call it makes): >= 90% of the samples
#     with a vDSO frame unwind to main;a;b;c;d (record stores the vDSO;
#     report unwinds its frame with its CFI, or steps out of the leaf
#     function of arm64's vDSO, which has none): arm64 only, the x86-64
#     guest's samples had no vDSO frame;
#   - the same program under -g (deferred frame-pointer walks) gets at
#     most half of that: the program really has no frame pointers, and the
#     dwarf assertion above can fail;
#   - t_sample dump (raw ABI): bad dump sizes and flag combinations are
#     refused with EINVAL and leave the fd able to take a session; the
#     USER_STACK records of tests/sample/chain are well formed, each
#     followed on its CPU by the USER_CALLCHAIN of its cookie, their ip
#     is that chain's first frame and their stack copy holds its return
#     address at bp + 8;
#   - bad dump sizes are refused by the CLI (usage error, nothing
#     recorded);
#   - perf record --call-graph dwarf of the same program in this boot, if
#     perf is there: bytes per sample and unwind (perf script / pmuctx
#     report) time per sample of both are printed as diagnostics, never
#     asserted (docs/PERFORMANCE.md, "DWARF user stacks").
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

NOFP=$PMUCTX_TOP/tests/sample/nofp
need_exec "$CLI" || exit 1
need_exec "$NOFP" || exit 1
mod_load 2>/dev/null || true
W=${CASE_TMP:-/tmp}/dwarf
rm -rf "$W"
mkdir -p "$W"
MS=${DWARF_MS:-1500}

# ---- the raw ABI: t_sample dump ---------------------------------------------------
need_exec "$PMUCTX_TOP/tests/sample/t_sample" || exit 1
"$PMUCTX_TOP/tests/sample/t_sample" dump || true

# ---- pmuctx record --call-graph dwarf -----------------------------------------

check "$CLI" record --call-graph dwarf -F 999 -o "$W/dwarf.pmu" -- \
	"$NOFP" "$MS" -- "pmuctx record --call-graph dwarf -- nofp $MS"
last_ok || diag_out "$CHECK_OUT"
rec_out=$CHECK_OUT
t0=$(now_ns)
check "$CLI" report -i "$W/dwarf.pmu" --format folded --weight samples -- \
	"report --format folded of the dwarf recording"
t1=$(now_ns)
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/dwarf.folded"
all=$(weight_user "$W/dwarf.folded" '^nofp;')
full=$(weight "$W/dwarf.folded" '^nofp;.*main;a;b;c;d( |;)')
if [ "$all" -gt 50 ] && [ $((full * 100)) -ge $((all * 90)) ]; then
	ok "dwarf: $full of $all nofp samples unwind to main;a;b;c;d (>= 90%)"
else
	not_ok "dwarf: >= 90% of nofp samples unwind to main;a;b;c;d ($full of $all)"
	diag_out "$(sort -t' ' -k2 -n -r "$W/dwarf.folded" | cut -c1-200 | head -n 8)"
fi

check "$CLI" report -i "$W/dwarf.pmu" --format perf-script -- \
	"report --format perf-script of the dwarf recording"
if printf '%s\n' "$CHECK_OUT" | awk '
	/^\t/ { f[n++] = $2; next }
	/^$/ { for (i = 0; i + 4 < n; i++)
		if (f[i] ~ /^d\+/ && f[i+1] ~ /^c\+/ && f[i+2] ~ /^b\+/ &&
		    f[i+3] ~ /^a\+/ && f[i+4] ~ /^main\+/) { hit++; break }
		n = 0; next }
	END { exit !(hit > 0) }'; then
	ok "perf-script: frames d c b a main in order"
else
	not_ok "perf-script: frames d c b a main in order"
	diag_out "$(printf '%s\n' "$CHECK_OUT" | head -n 12)"
fi

check "$CLI" report -i "$W/dwarf.pmu" --stitch-stats -- \
	"report --stitch-stats of the dwarf recording"
stats=$CHECK_OUT
nrec=$(printf '%s\n' "$stats" | sed -n 's/^user stack records: *\([0-9]*\) .*/\1/p')
nbad=$(printf '%s\n' "$stats" | sed -n 's/^  unwound: .* \([0-9]*\) malformed.*/\1/p')
if [ -n "$nrec" ] && [ "$nrec" -gt 0 ] && [ "${nbad:-1}" = 0 ]; then
	ok "stitch-stats: $nrec USER_STACK records, none malformed"
else
	not_ok "stitch-stats: USER_STACK records, none malformed"
	diag_out "$stats"
fi

# ---- the vDSO: its frame unwinds with its own CFI, recorded ---------------------
# nofp MS 0 reads CLOCK_MONOTONIC at every turn and the CPU time at every
# 64th (a system call the vDSO makes): most samples have the vDSO's code
# as their innermost user frame, which the recorder's copy of the vDSO
# (the VDSO section of the file) unwinds.

# Only where the samples have vDSO frames: the x86-64 guest's had none
# (its 90 % of all is the check above), and the time is CI's.
if [ "$(uname -m)" != aarch64 ]; then
	diag "vDSO: not checked on $(uname -m): the x86-64 guest's samples have no vDSO frame"
else
	check "$CLI" record --call-graph dwarf -F 999 -o "$W/vdso.pmu" -- \
		"$NOFP" "$MS" 0 -- "pmuctx record --call-graph dwarf -- nofp $MS 0 (in the vDSO)"
	last_ok || diag_out "$CHECK_OUT"
	check "$CLI" report -i "$W/vdso.pmu" --format folded --weight samples -- \
		"report --format folded of the vDSO recording"
	printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } > "$W/vdso.folded"
	vall=$(weight_user "$W/vdso.folded" '^nofp;')
	vfull=$(weight "$W/vdso.folded" '^nofp;.*main;a;b;c;d( |;)')
	VDSO_RE='(vdso|__kernel_|__vdso_)'
	vin=$(weight "$W/vdso.folded" "^nofp;.*$VDSO_RE")
	vinfull=$(weight "$W/vdso.folded" "^nofp;.*main;a;b;c;d;.*$VDSO_RE")
	diag "vDSO: $vfull of $vall nofp samples unwind to main;a;b;c;d; $vin have a vDSO frame, $vinfull of them unwound through it"
	[ "$vin" -gt 0 ] || diag "no sample has a vDSO frame here"
	# the samples with a vDSO frame: a fifth of all at least (the
	# workload puts them there), and 90 % of them unwind; the others
	# (system calls the CPU clock makes without the vDSO, ...) are
	# the 90 % check's above
	if [ "$vall" -gt 50 ] && [ $((vin * 5)) -ge "$vall" ] &&
	   [ $((vinfull * 100)) -ge $((vin * 90)) ]; then
		ok "dwarf through the vDSO: $vinfull of the $vin nofp samples with a vDSO frame unwind to main;a;b;c;d (>= 90%; $vall in all)"
	else
		not_ok "dwarf through the vDSO: >= 90% of the nofp samples with a vDSO frame unwind to main;a;b;c;d ($vinfull of $vin), and they are a fifth of all at least ($vall)"
		diag_out "$(sort -t' ' -k2 -n -r "$W/vdso.folded" | cut -c1-240 | head -n 8)"
	fi
fi

# ---- the same program with frame pointers only: far less -----------------------

check "$CLI" record -g -F 999 -o "$W/fp.pmu" -- "$NOFP" "$MS" -- \
	"pmuctx record -g (deferred frame-pointer walks) -- nofp $MS"
"$CLI" report -i "$W/fp.pmu" --format folded --weight samples 2>/dev/null \
	> "$W/fp.folded" || true
fall=$(weight_user "$W/fp.folded" '^nofp;')
ffull=$(weight "$W/fp.folded" '^nofp;.*main;a;b;c;d( |;)')
if [ "$fall" -gt 50 ] && [ $((ffull * 100)) -le $((fall * 45)) ]; then
	ok "frame pointers: only $ffull of $fall nofp samples reach main;a;b;c;d (the program has none)"
else
	not_ok "frame pointers: at most 45% of nofp samples reach main;a;b;c;d ($ffull of $fall)"
fi

# ---- the CLI refuses bad dump sizes -----------------------------------------------

for bad in 0 12 65288 99999999999 x; do
	expect_fail "$CLI" record --call-graph "dwarf,$bad" -o "$W/bad.pmu" -- \
		true -- "--call-graph dwarf,$bad is refused"
done

# ---- perf record --call-graph dwarf, same program, same boot -----------------------

pm_samples=$(printf '%s\n' "$rec_out" |
	sed -n 's/^pmuctx record: \([0-9]*\) samples.*/\1/p' | head -n 1)
pm_bytes=$(stat -c %s "$W/dwarf.pmu")
pm_unw=$(printf '%s\n' "$stats" | sed -n 's/^  unwind time: *\([0-9.]*\) us per record.*/\1/p')
pm_rec=$(printf '%s\n' "$stats" | sed -n 's/^user stack records: .*, \([0-9]*\) per record).*/\1/p')
diag "pmuctx dwarf: $pm_samples samples, $pm_bytes bytes in the file ($((pm_bytes / ${pm_samples:-1})) per sample), USER_STACK $pm_rec bytes per record, unwind $pm_unw us per record, report --format folded $(((t1 - t0) / 1000 / ${pm_samples:-1})) us per sample in all"
if command -v perf >/dev/null 2>&1; then
	if perf record -q --call-graph dwarf -e cpu-clock -F 999 \
		-o "$W/nofp.perf" -- "$NOFP" "$MS" >/dev/null 2>"$W/perf.err"; then
		t0=$(now_ns)
		perf script -i "$W/nofp.perf" > "$W/nofp.perf.txt" 2>/dev/null || true
		t1=$(now_ns)
		pf_samples=$(grep -c 'cpu-clock' "$W/nofp.perf.txt" || true)
		pf_bytes=$(stat -c %s "$W/nofp.perf")
		pf_full=$(awk '
			/^\t/ { f[n++] = $2; next }
			/^$/ { if (n) { s++; for (i = 0; i + 4 < n; i++)
				if (f[i] ~ /^d\+/ && f[i+4] ~ /^main\+/) { hit++; break } }
				n = 0 }
			END { printf "%d of %d", hit, s }' "$W/nofp.perf.txt")
		diag "perf dwarf: $pf_samples samples, $pf_bytes bytes in the file ($((pf_bytes / (pf_samples > 0 ? pf_samples : 1))) per sample), perf script $(((t1 - t0) / 1000 / (pf_samples > 0 ? pf_samples : 1))) us per sample in all, $pf_full samples reach d..main"
		ok "perf record --call-graph dwarf of nofp ran (numbers above)"
	else
		skip "perf record --call-graph dwarf" "perf failed: $(head -c 200 "$W/perf.err")"
	fi
else
	skip "perf record --call-graph dwarf" "no perf in the guest"
fi
exit 0

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# --call-graph dwarf on arm64 (issue 31 item 1): the module's
# PMUCTX_REGS_ARM64 user-register dumps unwound by pmuctx report in the
# arm64 guest.  tests/sample/dwchain (main -> f1 -> f2 -> f3, no frame
# pointers, static, no C library) burns 600 ms of CPU time in f3:
#   - pmuctx record --call-graph dwarf,1024 -F 99 (the hrtimer sampler,
#     no hardware PMU needed): >= 90 % of dwchain's samples (the exec and
#     exit paths aside, NOUSER in lib.sh) unwind to main;f1;f2;f3 in
#     report --format folded; --stitch-stats counts the USER_STACK
#     records, none malformed, and unwinds used for a callchain (instead
#     of the frame-pointer walk);
#   - the same program under -g (deferred frame-pointer walks) reaches
#     main;f1;f2;f3 in at most 45 % of them: it has no frame pointers,
#     and the first check can only pass through the DWARF unwind;
#   - an x86-64 recording of dwchain (tests/unit/fixtures/dwarf-x86_64,
#     made by tests/vm/dwarf-fixture in the x86-64 guest) reported here:
#     >= 90 % of its samples unwind to main;f1;f2;f3 (PMUCTX_REGS_X86_64
#     registers with libdwfl's x86-64 backend on arm64).
# The recording and the binary are left in $PMUCTX_VM_OUT/dwarf-arm64/
# (the results share, tests/vm/check --keep): tests/unit's fixture
# (tests/unit/fixtures/dwarf-arm64/, reported on x86-64 by
# tests/unit/test_unwind_file.c) was made so.  Skipped, saying so, on a
# guest that is not aarch64 (67-dwarf is x86-64's).
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

if [ "$(uname -m)" != aarch64 ]; then
	echo "1..0 # SKIP not an aarch64 guest ($(uname -m)): 67-dwarf is x86-64's --call-graph dwarf test"
	exit 0
fi
DW=$PMUCTX_TOP/tests/sample/dwchain
need_exec "$CLI" || exit 1
need_exec "$DW" || exit 1
mod_load 2>/dev/null || true
W=$(mktemp -d "$CASE_TMP/dwarf-arm64.XXXXXX")
trap 'rm -rf "$W"' EXIT
diag "$(uname -m) $(uname -r)"

# ---- pmuctx record --call-graph dwarf ------------------------------------------

check "$CLI" record -q --call-graph dwarf,1024 -F 99 -o "$W/dwarf.pmu" -- \
	"$DW" 600 -- "pmuctx record --call-graph dwarf,1024 -F 99 -- dwchain 600"
last_ok || diag_out "$CHECK_OUT"
check "$CLI" report -i "$W/dwarf.pmu" --format folded --weight samples -- \
	"report --format folded of the dwarf recording"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/dwarf.folded"
all=$(weight_user "$W/dwarf.folded" '^dwchain;')
full=$(weight "$W/dwarf.folded" '^dwchain;.*main;f1;f2;f3( |;)')
if [ "$all" -ge 20 ] && [ $((full * 100)) -ge $((all * 90)) ]; then
	ok "dwarf: $full of $all dwchain samples unwind to main;f1;f2;f3 (>= 90%)"
else
	not_ok "dwarf: >= 90% of at least 20 dwchain samples unwind to main;f1;f2;f3 ($full of $all)"
	diag_out "$(sort -t' ' -k2 -n -r "$W/dwarf.folded" | cut -c1-200 | head -n 8)"
fi

check "$CLI" report -i "$W/dwarf.pmu" --stitch-stats -- \
	"report --stitch-stats of the dwarf recording"
stats=$CHECK_OUT
nrec=$(printf '%s\n' "$stats" | sed -n 's/^user stack records: *\([0-9]*\) .*/\1/p')
nbad=$(printf '%s\n' "$stats" | sed -n 's/^  unwound: .* \([0-9]*\) malformed.*/\1/p')
nused=$(printf '%s\n' "$stats" | sed -n 's/^  used for a callchain: *\([0-9]*\).*/\1/p')
if [ -n "$nrec" ] && [ "$nrec" -gt 0 ] && [ "${nbad:-1}" = 0 ] &&
   [ "${nused:-0}" -gt 0 ]; then
	ok "stitch-stats: $nrec USER_STACK records, none malformed, $nused unwinds used for a callchain"
else
	not_ok "stitch-stats: USER_STACK records, none malformed, unwinds used for a callchain"
	diag_out "$stats"
fi
diag_out "$(printf '%s\n' "$stats" | sed -n '/^user stack records/,$p')"

# ---- the same program with frame pointers only ---------------------------------

check "$CLI" record -q -g -F 99 -o "$W/fp.pmu" -- "$DW" 600 -- \
	"pmuctx record -g (deferred frame-pointer walks) -- dwchain 600"
"$CLI" report -i "$W/fp.pmu" --format folded --weight samples 2>/dev/null \
	>"$W/fp.folded" || true
fall=$(weight_user "$W/fp.folded" '^dwchain;')
ffull=$(weight "$W/fp.folded" '^dwchain;.*main;f1;f2;f3( |;)')
if [ "$fall" -ge 20 ] && [ $((ffull * 100)) -le $((fall * 45)) ]; then
	ok "frame pointers: only $ffull of $fall dwchain samples reach main;f1;f2;f3 (the program has none)"
else
	not_ok "frame pointers: at most 45% of at least 20 dwchain samples reach main;f1;f2;f3 ($ffull of $fall)"
fi

# ---- an x86-64 recording reported here -----------------------------------------

# tests/unit/fixtures/dwarf-x86_64: tests/vm/dwarf-fixture in the x86-64
# guest, dwchain run from /tmp/pmuctx-dwarf/ (this guest's /tmp is its
# own tmpfs): the binary put back where the recording names it
FX=$PMUCTX_TOP/tests/unit/fixtures/dwarf-x86_64
mkdir -p /tmp/pmuctx-dwarf
cp "$FX/dwchain" /tmp/pmuctx-dwarf/dwchain
check "$CLI" report -i "$FX/dwchain.pmu" --format folded --weight samples -- \
	"report --format folded of an x86-64 dwarf recording"
printf '%s\n' "$CHECK_OUT" | { grep -v '^pmuctx report: ' || true; } >"$W/x86.folded"
xall=$(weight_user "$W/x86.folded" '^dwchain;')
xfull=$(weight "$W/x86.folded" '^dwchain;.*main;f1;f2;f3( |;|$)')
if [ "$xall" -ge 20 ] && [ $((xfull * 100)) -ge $((xall * 90)) ]; then
	ok "x86-64 recording on arm64: $xfull of $xall dwchain samples unwind to main;f1;f2;f3 (>= 90%)"
else
	not_ok "x86-64 recording on arm64: >= 90% of at least 20 dwchain samples unwind to main;f1;f2;f3 ($xfull of $xall)"
	diag_out "$(sort -t' ' -k2 -n -r "$W/x86.folded" | cut -c1-200 | head -n 8)"
fi
rm -rf /tmp/pmuctx-dwarf

# ---- the recording for tests/unit's fixture ------------------------------------

if [ -n "${PMUCTX_VM_OUT:-}" ] && mkdir -p "$PMUCTX_VM_OUT/dwarf-arm64" 2>/dev/null; then
	cp "$W/dwarf.pmu" "$PMUCTX_VM_OUT/dwarf-arm64/dwchain.pmu"
	cp "$DW" "$PMUCTX_VM_OUT/dwarf-arm64/dwchain"
	diag "recording and binary left in the results share, out/dwarf-arm64/ ($(stat -c %s "$W/dwarf.pmu") bytes; recorded as $DW)"
fi
exit 0

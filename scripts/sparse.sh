#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run sparse over every module source file (kbuild C=2: checks all files, not
# only the ones being recompiled) and fail if sparse reports any warning or
# error in our own files (module/, include/).  Warnings sparse prints for the
# kernel's own headers are counted and shown, but do not fail the check: they
# are not ours to fix.
#
# Usage: scripts/sparse.sh            (from `make sparse`, which sets KDIR)
# Environment: KDIR (kernel build tree), MAKE, SPARSE (default: sparse).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
MAKE=${MAKE:-make}
SPARSE=${SPARSE:-sparse}

if ! command -v "$SPARSE" >/dev/null 2>&1; then
	echo "sparse.sh: '$SPARSE' not found (apt-get install sparse, or scripts/setup-deps.sh)" >&2
	exit 1
fi
if [ ! -f "$KDIR/Makefile" ]; then
	echo "sparse.sh: KDIR=$KDIR is not a kernel build tree" >&2
	exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "sparse.sh: $("$SPARSE" --version 2>/dev/null || echo sparse) over module/ against $KDIR"
# The module objects are (re)built as a side effect, with kbuild's normal
# flags; `make all` rebuilds them with W=1 afterwards.  MAKEFLAGS is
# cleared: `make -s sparse` would silence the CHECK lines counted below.
MAKEFLAGS= MFLAGS= $MAKE -j"$(nproc)" -C "$KDIR" M="$top" C=2 CHECK="$SPARSE" modules >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	cat "$log"
	echo "sparse.sh: the sparse build failed (exit $rc)" >&2
	exit 1
fi

# Diagnostic lines look like "<path>:<line>:<col>: warning: ..." with <path>
# absolute (M= builds) or relative to the tree.  Ours: module/ and include/.
diag='^[^ :]+:[0-9]+:[0-9]+: (warning|error):'
ours=$(grep -E "$diag" "$log" | grep -E "^($top/)?(module|include)/" || true)
theirs=$(grep -E "$diag" "$log" | grep -vE "^($top/)?(module|include)/" || true)
# sparse also prints context lines ("   expected ...", "   got ...") after a
# diagnostic: show the whole log when there is anything of ours.

if [ -n "$theirs" ]; then
	echo "sparse.sh: $(printf '%s\n' "$theirs" | wc -l) diagnostic(s) in kernel headers (not ours, not failing):"
	printf '%s\n' "$theirs" | sort -u | sed 's/^/  /'
fi
if [ -n "$ours" ]; then
	cat "$log"
	echo "sparse.sh: $(printf '%s\n' "$ours" | wc -l) sparse diagnostic(s) in pmuctx sources:" >&2
	printf '%s\n' "$ours" | sed 's/^/  /' >&2
	exit 1
fi
echo "sparse.sh: clean ($(grep -cE '^  CHECK ' "$log") file(s) checked)"
exit 0

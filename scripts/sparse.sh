#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run sparse over every module source file (kbuild C=2: checks all files, not
# only the ones being recompiled) and fail if sparse reports any warning or
# error in our own files (module/, include/).  Warnings sparse prints for the
# kernel's own headers are counted and shown, but do not fail the check: they
# are not ours to fix.  Both builds of the module are checked: the release
# one in the tree (module/), then the debug one (PMUCTX_DEBUG=1: selftest.c,
# ringbench.c) in module-debug/ (`make debug-tree`).
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

# sparse_pass NAME DIR [KBUILD ARGS]: 0 when clean
sparse_pass() {
	local name=$1 dir=$2 rc diag ours theirs
	shift 2
	echo "sparse.sh: $("$SPARSE" --version 2>/dev/null || echo sparse) over the $name module against $KDIR"
	MAKEFLAGS='' MFLAGS='' $MAKE -j"$(nproc)" -C "$KDIR" M="$dir" C=2 CHECK="$SPARSE" "$@" modules >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$log"
		echo "sparse.sh: the sparse build of the $name module failed (exit $rc)" >&2
		return 1
	fi

	diag='^[^ :]+:[0-9]+:[0-9]+: (warning|error):'
	ours=$(grep -E "$diag" "$log" | grep -E "^($dir/)?(module|include)/" || true)
	theirs=$(grep -E "$diag" "$log" | grep -vE "^($dir/)?(module|include)/" || true)

	if [ -n "$theirs" ]; then
		echo "sparse.sh: $(printf '%s\n' "$theirs" | wc -l) diagnostic(s) in kernel headers (not ours, not failing):"
		printf '%s\n' "$theirs" | sort -u | sed 's/^/  /'
	fi
	if [ -n "$ours" ]; then
		cat "$log"
		echo "sparse.sh: $(printf '%s\n' "$ours" | wc -l) sparse diagnostic(s) in pmuctx sources ($name):" >&2
		printf '%s\n' "$ours" | sed 's/^/  /' >&2
		return 1
	fi
	echo "sparse.sh: $name clean ($(grep -cE '^  CHECK ' "$log") file(s) checked)"
}

sparse_pass release "$top" PMUCTX_DEBUG=0 || exit 1
$MAKE --no-print-directory -s -C "$top" debug-tree || exit 1
sparse_pass debug "$top/module-debug" PMUCTX_DEBUG=1 || exit 1
exit 0

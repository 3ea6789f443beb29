#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-man`: every manual page in man/ renders without a single
# warning, and the pages cover the interfaces:
#
#  1. groff -ww -z -t -man PAGE prints nothing (all warnings on; -t runs
#     tbl for the pages that have tables);
#  2. man --warnings -l PAGE (what lintian runs) prints nothing;
#  3. the .so alias pages `make -C man install` creates resolve;
#  4. every command in tools/pmuctx.c's command table has pmuctx-CMD.1;
#  5. every function exported by lib/libpmuctx.map has a man3 page or an
#     alias in man/Makefile.
#
# Needs groff-base and man-db (installed when missing, as root).  Exit status 0 only when everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
MAKE=${MAKE:-make}
errors=0
err() { echo "check-man: FAIL: $*" >&2; errors=$((errors + 1)); }

# Missing tools are installed as scripts/setup-deps.sh would (as root).
need=()
command -v groff >/dev/null || need+=(groff-base)
command -v man >/dev/null || need+=(man-db)
if [ "${#need[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "check-man: installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; } || true
fi
for t in groff man; do
	command -v "$t" >/dev/null || { echo "check-man: $t missing (apt-get install groff-base man-db)" >&2; exit 1; }
done

shopt -s nullglob
pages=(man/*.[1-8])
[ "${#pages[@]}" -gt 0 ] || { echo "check-man: no pages in man/" >&2; exit 1; }

for p in "${pages[@]}"; do
	out=$(groff -ww -z -t -man "$p" 2>&1) || err "$p: groff exited $?"
	[ -z "$out" ] || err "$p: groff -ww: $out"
	out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MAN_KEEP_STDERR=1 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null) || err "$p: man -l exited $?"
	[ -z "$out" ] || err "$p: man --warnings: $out"
	# The page names itself in .TH (NAME SECTION).
	th=$(sed -n 's/^\.TH \([^ ]*\) \([0-9]\).*/\1 \2/p' "$p" | head -n 1 | sed 's/\\-/-/g')
	want=$(basename "$p"); want="${want%.*} ${want##*.}"
	[ "${th,,}" = "${want,,}" ] || err "$p: .TH says '$th', expected '$want' (case aside)"
done

# 3. Aliases resolve once installed.
work=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-man.XXXXXX")
trap 'rm -rf "$work"' EXIT
if $MAKE --no-print-directory -s -C man install DESTDIR="$work" PREFIX=/usr >"$work/log" 2>&1; then
	for f in "$work"/usr/share/man/man*/*; do
		if grep -q '^\.so ' "$f"; then
			tgt=$(sed -n 's/^\.so //p' "$f")
			[ -f "$work/usr/share/man/$tgt" ] || err "${f#"$work"/}: .so $tgt does not exist"
		fi
	done
	n=$(find "$work" -type f | wc -l)
	echo "check-man: ${#pages[@]} pages, $n files installed"
else
	cat "$work/log" >&2
	err "make -C man install failed"
fi
installed=$(cd "$work/usr/share/man" 2>/dev/null && ls man*/* | sed 's|.*/||; s|\.[0-9]$||' | sort -u)

# 4. One page per command.
cmds=$(sed -n 's/^[[:space:]]*&cmd_\([a-z_]*\),.*/\1/p' tools/pmuctx.c | tr _ -)
for c in $cmds; do
	[ -f "man/pmuctx-$c.1" ] || err "command '$c' (tools/pmuctx.c) has no man/pmuctx-$c.1"
done

# 5. Every exported function is documented.
funcs=$(sed -n 's/^[[:space:]]*\(pmuctx_[a-z0-9_]*\);.*/\1/p' lib/libpmuctx.map | sort -u)
for f in $funcs; do
	grep -qx "$f" <<<"$installed" || err "lib/libpmuctx.map exports $f but no man3 page or alias documents it"
done
echo "check-man: commands: $(echo $cmds); $(wc -w <<<"$funcs") exported functions"

if [ "$errors" -ne 0 ]; then
	echo "check-man: $errors problem(s)" >&2
	exit 1
fi
echo "check-man: every page renders without warnings; commands and functions are covered"

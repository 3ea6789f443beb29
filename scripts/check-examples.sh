#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-examples`: the C examples (examples/*.c) build with
# -Wall -Wextra -Werror against the INSTALLED header and library, found the
# way a user's program finds them: `make install DESTDIR=$tmp PREFIX=/usr`,
# then pkg-config with PKG_CONFIG_SYSROOT_DIR/PKG_CONFIG_PATH into $tmp.  A
# packaging mistake (a header or the .pc not installed, a wrong path in
# the .pc, a missing symbol) breaks this build.  Also checked:
#
#  - every pmuctx header an example includes comes from $tmp, not from the
#    source tree or an installed copy in /usr/include (a libpmuctx-dev
#    package installed on this machine must not hide a mistake);
#  - raw-ioctl, compat-check and flight-recorder need nothing but libc
#    (no libpmuctx in their NEEDED entries); lib-stat needs libpmuctx and
#    resolves it to the installed copy;
#  - the size limits of the tutorials: raw-ioctl.c < 200 lines,
#    lib-stat.c < 60 lines.
#
# The examples run against the module in the VM: tests/vm/cases/80-examples.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
MAKE=${MAKE:-make}
CC=${CC:-cc}
errors=0
err() { echo "check-examples: FAIL: $*" >&2; errors=$((errors + 1)); }

work=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
dest=$work/root

echo "check-examples: make install DESTDIR=$dest PREFIX=/usr"
if ! $MAKE --no-print-directory install DESTDIR="$dest" PREFIX=/usr >"$work/install.log" 2>&1; then
	cat "$work/install.log" >&2
	echo "check-examples: make install failed" >&2
	exit 1
fi
pc=$(find "$dest" -name libpmuctx.pc | head -n 1)
[ -n "$pc" ] || { echo "check-examples: no libpmuctx.pc installed" >&2; exit 1; }
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=${pc%/*}
cflags=$(pkg-config --cflags libpmuctx)
libdir=$(dirname "$(find "$dest" -name 'libpmuctx.so.*.*' | head -n 1)")
echo "check-examples: pkg-config --cflags libpmuctx: $cflags"

# Build a copy (the tree stays untouched) with the examples' own Makefile.
mkdir "$work/ex"
cp examples/Makefile examples/*.c "$work/ex/"
if ! $MAKE --no-print-directory -C "$work/ex" WERROR=1 CC="$CC" >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	err "the examples do not build with -Wall -Wextra -Werror against the installed library"
fi
cat "$work/build.log"

for src in examples/*.c; do
	name=$(basename "$src" .c)
	bin=$work/ex/$name
	[ -x "$bin" ] || { err "$name was not built"; continue; }
	# Where did the pmuctx headers come from?
	# shellcheck disable=SC2086
	deps=$($CC $cflags -M "$src" 2>/dev/null | tr ' \\' '\n\n' | grep 'pmuctx\.h$' || true)
	[ -n "$deps" ] || err "$name: includes no pmuctx header?"
	while IFS= read -r d; do
		[ -n "$d" ] || continue
		case $(realpath -m "$d") in
		"$dest"/*) ;;
		*) err "$name: $d is not the installed header (under $dest)" ;;
		esac
	done <<<"$deps"
	needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $name in
	lib-stat|profile)
		grep -q 'libpmuctx\.so' <<<"$needed" || err "$name does not link libpmuctx ($needed)"
		# not "ldd | grep -q": grep -q exits at the first match, ldd
		# then dies of SIGPIPE if it had more to write, and pipefail
		# made that a failure (about one run in two)
		resolved=$(LD_LIBRARY_PATH=$libdir ldd "$bin")
		grep -q "libpmuctx\.so.* => $libdir/" <<<"$resolved" ||
			err "$name does not resolve libpmuctx to the installed copy in $libdir"
		;;
	*)
		! grep -q 'libpmuctx' <<<"$needed" || err "$name should use only <linux/pmuctx.h> and libc (NEEDED: $needed)"
		;;
	esac
	echo "check-examples: $name: headers from the install, NEEDED: $needed"
done

n=$(wc -l <examples/raw-ioctl.c)
[ "$n" -lt 200 ] || err "examples/raw-ioctl.c has $n lines (the tutorial stays under 200)"
n=$(wc -l <examples/lib-stat.c)
[ "$n" -lt 60 ] || err "examples/lib-stat.c has $n lines (the library example stays under 60)"

if [ "$errors" -ne 0 ]; then
	echo "check-examples: $errors problem(s)" >&2
	exit 1
fi
echo "check-examples: every example builds with -Werror against the installed header and library"

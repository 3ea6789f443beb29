#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-install`: `make install` into a scratch DESTDIR installs
# exactly the expected files, they work (pkg-config file, headers, library,
# symlinks, no build-tree paths), and `make uninstall` removes every one.
# Done twice: PREFIX=/usr (udev rule in /lib/udev) and the default PREFIX
# (/usr/local, udev rule in /usr/local/lib/udev).
#
# The expected layout, relative to DESTDIR (P = PREFIX without the leading /,
# U = UDEVDIR without the leading /):
#   P/bin/pmuctx                        CLI (tools/)
#   P/include/pmuctx.h                  library header (lib/)
#   P/include/linux/pmuctx.h            UAPI header, identical to include/uapi/
#   P/lib/libpmuctx.so.X.Y.Z            shared library (a file)
#   P/lib/libpmuctx.so.X                SONAME symlink
#   P/lib/libpmuctx.so                  development symlink
#   P/lib/libpmuctx.a                   static library
#   P/lib/pkgconfig/libpmuctx.pc        pkg-config file
#   U/rules.d/60-pmuctx.rules           udev rule
#   P/share/man/manN/PAGE               every page `make -C man list` names
#                                       (man/*.[1-8] and the .so aliases)
#   P/share/bash-completion/completions/pmuctx   bash completion
# Anything else installed is an error: add it here when a sub-makefile
# installs something new on purpose.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
MAKE=${MAKE:-make}
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
errors=0
err() { echo "check-install: FAIL: $*" >&2; errors=$((errors + 1)); }

# expected_regexes P U -> one anchored ERE per expected path
expected_regexes() {
	local p=$1 u=$2
	printf '%s\n' \
		"$p/bin/pmuctx" \
		"$p/include/pmuctx\\.h" \
		"$p/include/linux/pmuctx\\.h" \
		"$p/lib/libpmuctx\\.so\\.[0-9]+\\.[0-9]+\\.[0-9]+" \
		"$p/lib/libpmuctx\\.so\\.[0-9]+" \
		"$p/lib/libpmuctx\\.so" \
		"$p/lib/libpmuctx\\.a" \
		"$p/lib/pkgconfig/libpmuctx\\.pc" \
		"$u/rules\\.d/60-pmuctx\\.rules" \
		"$p/share/bash-completion/completions/pmuctx"
	# man pages: the list man/Makefile installs, dots escaped
	$MAKE --no-print-directory -s -C man list | sed "s|\\.|\\\\.|g; s|^|$p/share/man/|"
}

# run_case NAME PREFIX-or-empty
run_case() {
	local name=$1 prefix=$2 dest=$work/$1 p u re f n list target soname
	local -a mkargs=(DESTDIR="$dest")
	[ -n "$prefix" ] && mkargs+=(PREFIX="$prefix")
	local eff_prefix=${prefix:-/usr/local}
	if [ "$eff_prefix" = /usr ]; then u=lib/udev; else u=${eff_prefix#/}/lib/udev; fi
	p=${eff_prefix#/}

	echo "check-install: [$name] make install ${mkargs[*]}"
	if ! $MAKE --no-print-directory install "${mkargs[@]}" >"$work/$name-install.log" 2>&1; then
		cat "$work/$name-install.log" >&2
		err "[$name] make install failed"
		return
	fi

	list=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
	echo "$list" | sed "s|^|check-install: [$name]   |"

	# Every installed path is expected ...
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		n=0
		while IFS= read -r re; do
			[[ $f =~ ^${re}$ ]] && n=1
		done < <(expected_regexes "$p" "$u")
		[ $n = 1 ] || err "[$name] unexpected file installed: $f"
	done <<<"$list"
	# ... and every expected path is installed exactly once.
	while IFS= read -r re; do
		n=$(grep -cE "^${re}\$" <<<"$list" || true)
		[ "$n" = 1 ] || err "[$name] expected one file matching $re, found $n"
	done < <(expected_regexes "$p" "$u")

	# Types, modes, contents.
	f=$dest/$p/bin/pmuctx
	if [ -f "$f" ]; then
		[ -x "$f" ] || err "[$name] $p/bin/pmuctx is not executable"
		if grep -E 'RPATH|RUNPATH' <<<"$(readelf -d "$f" 2>/dev/null)" | grep -F "$top" >/dev/null; then
			err "[$name] $p/bin/pmuctx has an RPATH/RUNPATH into the build tree"
		fi
	fi
	if [ -f "$dest/$p/include/linux/pmuctx.h" ] &&
	   ! cmp -s include/uapi/linux/pmuctx.h "$dest/$p/include/linux/pmuctx.h"; then
		err "[$name] installed linux/pmuctx.h differs from include/uapi/linux/pmuctx.h"
	fi
	[ -L "$dest/$p/lib/libpmuctx.so" ] || err "[$name] $p/lib/libpmuctx.so is not a symlink"
	for f in "$dest/$p"/lib/libpmuctx.so.*; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		libpmuctx.so.*.*.*) [ -f "$f" ] && [ ! -L "$f" ] || err "[$name] ${f##*/} should be a regular file" ;;
		*) [ -L "$f" ] || err "[$name] ${f##*/} should be a symlink" ;;
		esac
	done
	# Symlinks resolve inside DESTDIR (relative targets).
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		[ -L "$dest/$f" ] || continue
		target=$(readlink "$dest/$f")
		case $target in /*) err "[$name] $f -> $target is absolute" ;; esac
		[ -e "$dest/$f" ] || err "[$name] $f -> $target is dangling"
	done <<<"$list"
	if [ -f "$dest/$p/lib/libpmuctx.so" ]; then
		soname=$(readelf -d "$dest/$p/lib/libpmuctx.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
		[ -n "$soname" ] && [ -e "$dest/$p/lib/$soname" ] ||
			err "[$name] SONAME '$soname' of libpmuctx.so is not installed"
	fi

	# The pkg-config file points at PREFIX, and a program built with it
	# against the installed headers and library links and runs.
	local pcdir=$dest/$p/lib/pkgconfig
	if [ -f "$pcdir/libpmuctx.pc" ]; then
		local pkg=(env PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config)
		local v
		# pkgconf prefixes variables with the sysroot; pkg-config does not.
		v=$("${pkg[@]}" --variable=libdir libpmuctx 2>&1) || err "[$name] pkg-config: $v"
		v=${v#"$dest"}
		[ "$v" = "$eff_prefix/lib" ] || err "[$name] libpmuctx.pc libdir=$v, want $eff_prefix/lib (stale .pc from another PREFIX?)"
		v=$("${pkg[@]}" --variable=includedir libpmuctx 2>&1) || true
		v=${v#"$dest"}
		[ "$v" = "$eff_prefix/include" ] || err "[$name] libpmuctx.pc includedir=$v, want $eff_prefix/include"
		local cflags libs
		if cflags=$("${pkg[@]}" --cflags libpmuctx) && libs=$("${pkg[@]}" --libs libpmuctx); then
			cat >"$work/$name-use.c" <<-'EOF'
			#include <pmuctx.h>
			#include <linux/pmuctx.h>
			int main(void)
			{
				return PMUCTX_ABI_VERSION > 0 ? 0 : 1;
			}
			EOF
			# shellcheck disable=SC2086
			if ! $CC -Wall -Wextra -Werror $cflags -o "$work/$name-use" \
				"$work/$name-use.c" -Wl,--no-as-needed $libs >"$work/$name-cc.log" 2>&1; then
				cat "$work/$name-cc.log" >&2
				err "[$name] a program using the installed header + library (pkg-config) does not build"
			elif ! LD_LIBRARY_PATH=$dest/$p/lib "$work/$name-use"; then
				err "[$name] a program linked with the installed library does not run"
			elif ! grep -q "=> $dest/$p/lib/libpmuctx\.so" <<<"$(LD_LIBRARY_PATH=$dest/$p/lib ldd "$work/$name-use")"; then
				err "[$name] the test program did not use the installed libpmuctx"
			fi
		else
			err "[$name] pkg-config --cflags/--libs libpmuctx failed"
		fi
	fi

	echo "check-install: [$name] make uninstall ${mkargs[*]}"
	if ! $MAKE --no-print-directory uninstall "${mkargs[@]}" >"$work/$name-uninstall.log" 2>&1; then
		cat "$work/$name-uninstall.log" >&2
		err "[$name] make uninstall failed"
	fi
	list=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
	if [ -n "$list" ]; then
		err "[$name] left behind by uninstall: $(echo "$list" | tr '\n' ' ')"
	fi
}

command -v pkg-config >/dev/null 2>&1 || { echo "check-install: pkg-config missing (scripts/setup-deps.sh)" >&2; exit 1; }
command -v readelf >/dev/null 2>&1 || { echo "check-install: readelf missing (binutils)" >&2; exit 1; }

run_case usr /usr
run_case default ""

if [ "$errors" -ne 0 ]; then
	echo "check-install: $errors problem(s)" >&2
	exit 1
fi
echo "check-install: install/uninstall leave exactly the expected files (PREFIX=/usr and default)"

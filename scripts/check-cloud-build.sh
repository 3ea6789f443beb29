#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-cloud-build.sh - build-only tests: the module for every
# installed Debian cloud kernel's headers (W=1 -Werror; make check also
# boots 6.12's over virtio-fs, vm:6.12-cloud: docs/BUILDING.md); and its refusal of a kernel
# that is not x86-64 (checked against the default kernel's headers with
# CONFIG_X86_64 cleared).
#
# Builds against every installed */build tree whose release ends in
# -cloud-amd64 (scripts/setup-deps.sh installs the newest 6.1 and 6.12
# cloud headers, and 6.12's image), each in ${PMUCTX_BUILD_CACHE:-~/.cache/pmuctx}/build-<release>.
# Fails when none is installed, unless PMUCTX_KERNEL_MATRIX=0, and on any
# compiler warning.  The last line is "N passed, M failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PMUCTX_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmuctx}
pass=0 failed=0
kvers=()
for d in /lib/modules/*-cloud-amd64/build; do
	[ -f "$d/Makefile" ] || continue
	d=${d%/build}
	kvers+=("${d##*/}")
done
if [ ${#kvers[@]} -eq 0 ]; then
	if [ "${PMUCTX_KERNEL_MATRIX:-1}" = 0 ]; then
		echo "check-cloud-build: no cloud kernel headers installed (PMUCTX_KERNEL_MATRIX=0): nothing to build"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	echo "check-cloud-build: no cloud kernel headers installed (/lib/modules/*-cloud-amd64/build); scripts/setup-deps.sh installs them" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
for kver in "${kvers[@]}"; do
	build=$cache/build-$kver
	rm -rf "$build"
	mkdir -p "$build"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$build/"
	find "$build/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
		-o -name '.*.cmd' -o -name 'modules.order' \) -delete
	if ! make -j"$(nproc)" -C "/lib/modules/$kver/build" M="$build" W=1 KCFLAGS=-Werror \
		modules >"$build/build.log" 2>&1; then
		cat "$build/build.log" >&2
		echo "not ok - the module builds for $kver"
		failed=$((failed + 1))
	elif grep -iE '(^|[^[:alnum:]_])warning:' "$build/build.log" |
		grep -qv 'the compiler differs from the one used to build the kernel'; then
		grep -iE 'warning:' "$build/build.log" >&2
		echo "not ok - the module builds for $kver without warnings"
		failed=$((failed + 1))
	else
		echo "ok - the module builds for $kver (W=1 -Werror; not bootable in the VM)"
		pass=$((pass + 1))
	fi
done
# The module refuses a kernel that is neither x86-64 nor arm64 at once,
# with a message (module/arch_*.c exist for those two only): CONFIG_X86_64
# cleared on the command line of an x86-64 build.
kver=$("$top/scripts/kernels" default 2>/dev/null || true)
if [ -n "$kver" ] && [ -f "/lib/modules/$kver/build/Makefile" ]; then
	build=$cache/build-arch-$kver
	rm -rf "$build"
	mkdir -p "$build"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$build/"
	find "$build/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
		-o -name '.*.cmd' -o -name 'modules.order' \) -delete
	if make -C "/lib/modules/$kver/build" M="$build" CONFIG_X86_64= modules \
		>"$build/build.log" 2>&1; then
		echo "not ok - a kernel without CONFIG_X86_64 is refused (it built)"
		failed=$((failed + 1))
	elif grep -q 'pmuctx: only x86_64 and arm64 are supported' "$build/build.log" &&
		[ ! -e "$build/module/main.o" ]; then
		echo "ok - a kernel without CONFIG_X86_64 is refused before compiling, with a message"
		pass=$((pass + 1))
	else
		tail -n 5 "$build/build.log" >&2
		echo "not ok - a kernel without CONFIG_X86_64 is refused with pmuctx's message"
		failed=$((failed + 1))
	fi
fi
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]

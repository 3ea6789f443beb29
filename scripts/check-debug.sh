#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the whole VM suite on the pmuctx debug kernel (KASAN,
# lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, failslab).
#
# The kernel comes from ../shared/debug-kernel/*.deb when it is not
# installed yet (its README; shared/debug-kernel/build.sh rebuilds it from
# Debian's linux-source-6.1).  The module is built against that kernel in
# a build directory outside the tree, so the distribution-kernel build in
# module/ is left alone.  Any KASAN/lockdep/RCU/UBSAN report, warning, or
# kmemleak leak fails the run (tests/vm/run and tests/vm/suite).
#
# Environment: DEBUG_KVER (default 6.1.192-pmuctx-debug), DEBUG_DEBS (dir
# of the .deb files), PMUCTX_DEBUG_BUILD (build dir), PMUCTX_DEBUG_TIMEOUT
# (seconds for the VM, default 3300).  The last line is
# the suite's "N passed, M failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
kver=${DEBUG_KVER:-6.1.192-pmuctx-debug}
debs=${DEBUG_DEBS:-$top/../shared/debug-kernel}
build=${PMUCTX_DEBUG_BUILD:-${XDG_CACHE_HOME:-$HOME/.cache}/pmuctx/debug-build}

if [ ! -e "/boot/vmlinuz-$kver" ] || [ ! -d "/lib/modules/$kver/build" ]; then
	shopt -s nullglob
	pkgs=("$debs"/linux-image-"$kver"_*.deb "$debs"/linux-headers-"$kver"_*.deb)
	if [ "${#pkgs[@]}" -ne 2 ]; then
		echo "check-debug: kernel $kver is not installed and $debs has no packages for it." >&2
		echo "check-debug: build them with shared/debug-kernel/build.sh (about 10 minutes), or pass DEBUG_KVER=." >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "check-debug: installing ${pkgs[*]##*/}"
	if [ "$(id -u)" -ne 0 ]; then
		sudo dpkg -i "${pkgs[@]}"
	else
		dpkg -i "${pkgs[@]}" >/dev/null
	fi
fi

echo "check-debug: building the module against $kver in $build"
rm -rf "$build"
mkdir -p "$build"
cp -r "$top/Kbuild" "$top/module" "$top/include" "$build/"
find "$build/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
	-o -name '.*.cmd' -o -name 'modules.order' \) -delete
make -C "/lib/modules/$kver/build" M="$build" W=1 KCFLAGS=-Werror modules >"$build/build.log" 2>&1 || {
	cat "$build/build.log" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# The DKMS case (50-dkms) modprobes the DKMS-built module of the kernel
# under test: install it for this kernel too.
if [ "$(id -u)" -eq 0 ]; then
	echo "check-debug: DKMS-installing pmuctx for $kver (tests/dkms.sh)"
	"$top/tests/dkms.sh" -k "$kver" >"$build/dkms.log" 2>&1 || {
		cat "$build/dkms.log" >&2
		echo "0 passed, 1 failed"
		exit 1
	}
fi

# The debug kernel runs the suite 3-4x slower, and the fuzz, fault and
# stress cases (70-73) do their heavy versions there: ~30 min in all on a
# loaded 2-core machine.  PMUCTX_DEBUG_TIMEOUT bounds the VM.
exec "$top/tests/vm/check" --kernel "/boot/vmlinuz-$kver" --bind "$build" \
	--module "$build/module/pmuctx.ko" --timeout "${PMUCTX_DEBUG_TIMEOUT:-3300}"

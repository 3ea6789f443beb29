#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the VM suite on the pmuctx debug kernel (KASAN,
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
# of the .deb files), PMUCTX_DEBUG_TIMEOUT (seconds for the VM, default
# 3300).  The last line is
# the suite's "N passed, M failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
kver=${DEBUG_KVER:-6.1.192-pmuctx-debug}
debs=${DEBUG_DEBS:-$top/../shared/debug-kernel}

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

# Build against it (W=1 -Werror, outside the tree), DKMS-install it for this
# kernel (50-dkms), run the suite: scripts/check-kernel.sh.  The debug
# kernel runs the suite 3-4x slower, and the fuzz, fault and stress cases
# (70-73) do their heavy versions there: ~30 min in all on a loaded 2-core
# machine.  PMUCTX_DEBUG_TIMEOUT bounds the VM.
# The cases tests/vm/subsets leaves out on the debug kernel are not run
# (CHECK_FULL=1 runs the whole suite).
PMUCTX_VM_TIMEOUT=${PMUCTX_DEBUG_TIMEOUT:-3300} DEBUG_KVER=$kver CHECK_SUBSET=debug \
	exec "$top/scripts/check-kernel.sh" "$kver"

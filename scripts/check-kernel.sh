#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-kernel.sh KERNEL [CASE...] - the whole VM suite (or the
# CASEs, paths under tests/vm/cases) on one kernel of the matrix (`make
# check` runs it for each of CHECK_KERNELS, and on a core subset for each
# of CHECK_CLOUD; `make check-vm KVER=...` for one; `make check-debug` for
# the debug kernel).
#
# KERNEL is a release installed under /lib/modules or an alias that
# scripts/kernels resolves (6.1, 6.12, 6.12-rt, 6.1-cloud, 6.12-cloud,
# debug).  A kernel without 9p (the cloud flavour) is booted over virtio-fs
# (tests/vm/run --fs).
#
#  1. Builds the module against that kernel with W=1 -Werror in a build
#     directory outside the tree (the build in module/ is left alone):
#     ${PMUCTX_BUILD_CACHE:-~/.cache/pmuctx}/build-<release>; the release
#     build there, the debug build (PMUCTX_DEBUG=1) in its debug/, and
#     checks that only the debug one has test code
#     (scripts/check-module-builds.sh).
#  2. As root, DKMS-installs this tree's module for that kernel only
#     (tests/dkms.sh -k): tests/vm/cases/50-dkms.sh modprobes it.
#  3. Boots it in QEMU and runs tests/vm/check with the release module of
#     step 1 loaded; the cases that need the test hooks load the debug one
#     (--module-debug, tests/vm/lib.sh use_debug_module).
#
# The last line is the suite's "N passed, M failed" (a failed build or
# DKMS step: "0 passed, 1 failed").  Environment: PMUCTX_VM_TIMEOUT
# (seconds for the VM; default 2700, 3300 for a debug kernel),
# PMUCTX_BUILD_CACHE.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
name=${1:?usage: scripts/check-kernel.sh KERNEL [CASE...] (KERNEL: a release, or 6.1, 6.12, 6.12-rt, 6.1-cloud, 6.12-cloud, debug)}
shift

fail() {
	echo "check-kernel $name: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

kver=$("$top/scripts/kernels" resolve "$name") || fail "kernel not installed"
build=${PMUCTX_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmuctx}/build-$kver
rt=no
grep -qx 'CONFIG_PREEMPT_RT=y' "/lib/modules/$kver/build/.config" 2>/dev/null && rt=yes
echo "check-kernel $name: $kver (PREEMPT_RT: $rt); module built in $build"

rm -rf "$build"
# build_variant DIR DEBUG(0|1) NAME
build_variant() {
	local dir=$1 debug=$2 name=$3
	mkdir -p "$dir"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$dir/"
	find "$dir/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
		-o -name '.*.cmd' -o -name 'modules.order' \) -delete
	make -j"$(nproc)" -C "/lib/modules/$kver/build" M="$dir" W=1 KCFLAGS=-Werror \
		PMUCTX_DEBUG="$debug" modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		fail "the $name module does not build against $kver"
	}
	if grep -iE '(^|[^[:alnum:]_])warning:' "$dir/build.log" |
	   grep -qv 'the compiler differs from the one used to build the kernel'; then
		cat "$dir/build.log" >&2
		fail "the $name module build printed warnings against $kver"
	fi
}
build_variant "$build" 0 release
build_variant "$build/debug" 1 debug
"$top/scripts/check-module-builds.sh" "$build/module/pmuctx.ko" \
	"$build/debug/module/pmuctx.ko" >&2 ||
	fail "the release module has test code, or the debug one has not"

if [ "$(id -u)" -eq 0 ]; then
	echo "check-kernel $name: DKMS-installing pmuctx for $kver (tests/dkms.sh -k)"
	"$top/tests/dkms.sh" -k "$kver" >"$build/dkms.log" 2>&1 || {
		cat "$build/dkms.log" >&2
		fail "tests/dkms.sh -k $kver failed"
	}
fi

# make check's subset for this kernel (tests/vm/subsets; CHECK_SUBSET is
# the key, set by scripts/check.sh and scripts/check-debug.sh; CHECK_FULL
# set and not 0 runs the whole suite; make check-vm sets no key)
case ${CHECK_FULL:-} in
'' | 0) ;;
*) CHECK_SUBSET='' ;;	# the whole suite
esac
unset PMUCTX_SUITE_SKIP
if [ -n "${CHECK_SUBSET:-}" ]; then
	[ -r "$top/tests/vm/subsets" ] || fail "tests/vm/subsets is missing"
	skip=$(awk -v k="$CHECK_SUBSET" '!/^#/ && $1 == k { $1 = ""; print }' "$top/tests/vm/subsets" | xargs)
	if [ -n "$skip" ]; then
		echo "check-kernel $name: make check's subset (tests/vm/subsets, $CHECK_SUBSET): all cases but $skip"
		export PMUCTX_SUITE_SKIP=${skip// /,}
	fi
fi

case $kver in *debug*) deftimeout=3300 ;; *) deftimeout=2700 ;; esac
exec "$top/tests/vm/check" --kernel "/boot/vmlinuz-$kver" --bind "$build" \
	--module "$build/module/pmuctx.ko" \
	--module-debug "$build/debug/module/pmuctx.ko" \
	--timeout "${PMUCTX_VM_TIMEOUT:-$deftimeout}" "$@"

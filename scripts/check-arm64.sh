#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-arm64.sh [--build-only | --ci] KERNEL [CASE...] - the arm64
# tier on one kernel (make check-arm64 ARM64_KVER=..., make module-arm64;
# --ci: make check's subset, make check-arm64-ci).
#
# KERNEL is 6.1, 6.12 or a release unpacked by scripts/kernels-arm64
# (scripts/setup-deps.sh --arm64).
#
#  1. Cross-builds the module against that kernel's headers with W=1
#     -Werror, release and debug (PMUCTX_DEBUG=1), in
#     $ARM64_DIR/build-<release>/ and its debug/ (any "warning:" fails,
#     as scripts/check-kernel.sh), and checks that only the debug one has
#     test code (scripts/check-module-builds.sh).
#  2. Unless --build-only: boots it in qemu-system-aarch64 (tests/vm/check
#     --arch arm64, from the aarch64 copy of the tree, $ARM64_DIR, which
#     make userland-arm64 built) with the release module loaded, on the
#     CASEs (default: the whole VM suite but x86-64's package cases,
#     default_cases below; docs/TESTING.md "The arm64 tier").
#
# The last line is tests/vm/check's "N passed, M failed".  Environment:
# ARM64_DIR (default build-arm64 of the tree), ARM64_CROSS (default
# aarch64-linux-gnu-), PMUCTX_VM_TIMEOUT (default 4800 for the
# whole suite, 1800 for --ci or named cases), PMUCTX_VM_ICOUNT
# (a QEMU -icount shift for the VM: instructions and cycles count
# deterministically).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
build_only=0 ci=0
case ${1:-} in
--build-only) build_only=1; shift ;;
--ci) ci=1; shift ;;
esac
name=${1:?usage: scripts/check-arm64.sh [--build-only | --ci] KERNEL [CASE...]}
shift
arm64_dir=${ARM64_DIR:-$top/build-arm64}
cross=${ARM64_CROSS:-aarch64-linux-gnu-}
# The whole VM suite (the arm64 guest: busybox, bash, kmod, setpriv, and
# perf, python3 and perl from scripts/kernels-arm64 fetch-tools), but for
# the two cases of x86-64's packages: 50-dkms (DKMS builds in the guest,
# which has no compiler: make check-packages-arm64 builds the pmuctx-dkms
# source for the arm64 kernels on the host) and 81-packages (the amd64
# .debs: 96-packages-arm64 is arm64's).  The cases that need a hardware
# PMU skip elsewhere; 90-pmu-arm64, 91 and 94 count instructions only
# under PMUCTX_VM_ICOUNT (they skip that part without, saying so).
default_cases=()
for c in "$top"/tests/vm/cases/*.sh; do
	case ${c##*/} in
	50-dkms.sh|81-packages.sh) ;;
	*) default_cases+=("tests/vm/cases/${c##*/}") ;;
	esac
done

# --ci: the subset make check runs on each arm64 kernel (docs/TESTING.md,
# "CI"): on both, the module loaded and its ABI checked (10-load, 40-abi)
# and the arm64 packages (96-packages-arm64); the hardware-event cases
# are shared out, each on one kernel every run: 6.12 the event modes and
# raw events (91-modifiers: :u counts equal perf_event_open's in the same
# run) and overflow sampling with callchains (94-pmu-sample); 6.1
# cycles and instructions of a fork tree against perf_event_open beside a
# distractor (90-pmu-arm64), counters under scheduling, migration and
# hotplug (92-pmu-sched), a full PMU and its share (93-pmu-share) and
# --call-graph dwarf unwound in the guest (95-dwarf-arm64).  Under
# -icount each guest second is a billion instructions, several host
# seconds: a case costs what it executes, not how long it waits, and
# 90-pmu-arm64's distractors keep both vCPUs busy throughout (about 95 s
# of host time here).
ci_common=(
	tests/vm/cases/10-load.sh
	tests/vm/cases/40-abi.sh
)
ci_6_12=(
	tests/vm/cases/91-modifiers.sh
	tests/vm/cases/94-pmu-sample.sh
	tests/vm/cases/96-packages-arm64.sh
)
ci_6_1=(
	tests/vm/cases/90-pmu-arm64.sh
	tests/vm/cases/92-pmu-sched.sh
	tests/vm/cases/93-pmu-share.sh
	tests/vm/cases/95-dwarf-arm64.sh
	tests/vm/cases/96-packages-arm64.sh
)

fail() {
	echo "check-arm64 $name: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

kver=$("$top/scripts/kernels-arm64" resolve "$name") || fail "kernel not unpacked"
kdir=$("$top/scripts/kernels-arm64" root)/lib/modules/$kver/build
build=$arm64_dir/build-$kver
echo "check-arm64 $name: $kver; module built in $build"

rm -rf "$build"
# build_variant DIR DEBUG(0|1) NAME
build_variant() {
	local dir=$1 debug=$2 name=$3
	mkdir -p "$dir"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$dir/"
	find "$dir/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
		-o -name '.*.cmd' -o -name 'modules.order' \) -delete
	make -j"$(nproc)" -C "$kdir" M="$dir" ARCH=arm64 CROSS_COMPILE="$cross" W=1 \
		KCFLAGS=-Werror PMUCTX_DEBUG="$debug" modules >"$dir/build.log" 2>&1 || {
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
echo "check-arm64 $name: release and debug modules build with W=1 -Werror"
[ "$build_only" = 0 ] || exit 0

[ -x "$arm64_dir/tools/pmuctx" ] || fail "no aarch64 tools in $arm64_dir: make userland-arm64"
if [ "$ci" = 1 ]; then
	if [ $# -eq 0 ]; then
		case $kver in
		6.1.*) set -- "${ci_common[@]}" "${ci_6_1[@]}" ;;
		*) set -- "${ci_common[@]}" "${ci_6_12[@]}" ;;
		esac
	fi
	# exported: the guest's cases read it (tests/vm/run passes PMUCTX_*
	# of the environment); unexported, QEMU ran under -icount while the
	# cases took it for off and skipped or loosened their checks
	export PMUCTX_VM_ICOUNT="${PMUCTX_VM_ICOUNT:-0}"
fi
# the whole suite takes about 40 min in the VM (6.12, no icount, a
# loaded host): 80 min before the harness kills it; the CI subset 30
timeout=1800
[ $# -gt 0 ] || { set -- "${default_cases[@]}"; timeout=4800; }
icount=()
[ -z "${PMUCTX_VM_ICOUNT:-}" ] || icount=(--icount "$PMUCTX_VM_ICOUNT")
cd "$arm64_dir"
exec tests/vm/check --arch arm64 --kernel "$kver" "${icount[@]}" \
	--bind "$build" --module "$build/module/pmuctx.ko" \
	--module-debug "$build/debug/module/pmuctx.ko" \
	--timeout "${PMUCTX_VM_TIMEOUT:-$timeout}" "$@"

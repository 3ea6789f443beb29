#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-sid.sh [CASE...] - the newest Debian kernel (sid) in the
# matrix: make check's step vm:sid, make check-sid.
#
#  1. Makes or updates the sid chroot and the unpacked kernel
#     (scripts/setup-sid.sh: the newest linux-headers-N.M.*-amd64 sid
#     offers, resolved by name; idempotent).
#  2. Builds the module in the chroot with that kernel's own compiler,
#     W=1 -Werror, release and debug (any "warning:" fails, as
#     scripts/check-kernel.sh), into $PMUCTX_BUILD_CACHE/build-<release>/,
#     and checks that only the debug one has test code
#     (scripts/check-module-builds.sh).
#  3. DKMS-installs the module for it inside the chroot, with the chroot's
#     dkms (scripts/setup-sid.sh dkms: tests/dkms.sh there), into the
#     guest's module tree.
#  4. Boots the unpacked kernel in the test VM (tests/vm/check, the module
#     tree of the guest from the unpacked packages: PMUCTX_MODROOT) on the
#     CASEs, default the core subset below.
#
# The full suite runs on 6.12 (x86-64) and the debug kernel; this kernel
# runs a subset that boots it, loads the module, checks the ABI, DKMS's
# module (modprobe), the store (counting, inheritance, caps, close and
# release: t_store) and the lifetimes of release and unload
# (docs/TESTING.md "Kernel matrix").  Needs root (the chroot) and the
# Debian mirror for step 1.
#
# The last line is tests/vm/check's "N passed, M failed".  Environment:
# PMUCTX_SID_CHROOT, PMUCTX_SID_KERNEL, PMUCTX_SID_MIRROR (setup-sid.sh),
# PMUCTX_BUILD_CACHE, PMUCTX_VM_TIMEOUT (default 1800).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
chroot_dir=${PMUCTX_SID_CHROOT:-/var/cache/pmuctx/sid-chroot}
kdir=${PMUCTX_SID_KERNEL:-/var/cache/pmuctx/sid-kernel}
core_cases=(
	tests/vm/cases/10-load.sh
	tests/vm/cases/40-abi.sh
	tests/vm/cases/50-dkms.sh
	tests/vm/cases/60-store.sh
	tests/vm/cases/74-lifetimes.sh
)

fail() {
	echo "check-sid: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# the chroot needs root: sudo when not root, as scripts/setup-deps.sh
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo -E "$@"
	fi
}

as_root "$top/scripts/setup-sid.sh" setup || fail "scripts/setup-sid.sh setup failed"
rel=$("$top/scripts/setup-sid.sh" release) || fail "no sid kernel set up"
build=${PMUCTX_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmuctx}/build-$rel
echo "check-sid: $rel; module built in $chroot_dir, copied to $build"
rm -rf "$build"

# build_variant DIR DEBUG(0|1) NAME
build_variant() {
	local dir=$1 debug=$2 name=$3
	mkdir -p "$dir/module"
	as_root "$top/scripts/setup-sid.sh" build PMUCTX_DEBUG="$debug" \
		>"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		fail "the $name module does not build against $rel"
	}
	if grep -iE '(^|[^[:alnum:]_])warning:' "$dir/build.log" |
	   grep -qv 'the compiler differs from the one used to build the kernel'; then
		cat "$dir/build.log" >&2
		fail "the $name module build printed warnings against $rel"
	fi
	cp "$chroot_dir/build/pmuctx/module/pmuctx.ko" "$dir/module/"
}
build_variant "$build" 0 release
build_variant "$build/debug" 1 debug
"$top/scripts/check-module-builds.sh" "$build/module/pmuctx.ko" \
	"$build/debug/module/pmuctx.ko" >&2 ||
	fail "the release module has test code, or the debug one has not"
echo "check-sid: release and debug modules build with W=1 -Werror"
as_root "$top/scripts/setup-sid.sh" dkms >"$build/dkms.log" 2>&1 || {
	cat "$build/dkms.log" >&2
	fail "DKMS in $chroot_dir did not install the module for $rel"
}
echo "check-sid: $(tail -n 1 "$build/dkms.log")"

[ $# -gt 0 ] || set -- "${core_cases[@]}"
PMUCTX_MODROOT=$kdir/root exec "$top/tests/vm/check" \
	--kernel "$kdir/vmlinuz-$rel" --bind "$build" \
	--module "$build/module/pmuctx.ko" \
	--module-debug "$build/debug/module/pmuctx.ko" \
	--timeout "${PMUCTX_VM_TIMEOUT:-1800}" "$@"

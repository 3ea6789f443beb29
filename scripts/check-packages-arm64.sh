#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-packages-arm64.sh KVER... - the Debian packages for arm64,
# cross-built on this machine, and what a user of each arm64 kernel KVER
# gets from them (issue 31 item 1).
#
#  1. build: a copy of the tree (tracked and untracked files, no build
#     products) in a scratch directory; dpkg-buildpackage -aarm64 -us -uc
#     -b (debian/rules passes the cross compiler and the arm64 pkg-config
#     files); the arm64 libraries it builds against are installed by
#     scripts/setup-deps.sh --arm64
#  2. lint: lintian on the .changes; any error fails
#  3. contents: pmuctx-tools and libpmuctx0 are arm64 packages of aarch64
#     ELF files; pmuctx-dkms is architecture all
#  4. DKMS for each KVER: the module built from pmuctx-dkms's
#     /usr/src/pmuctx-VERSION as dkms.conf's MAKE line builds it (make
#     module KVER= KDIR=), cross (ARCH=arm64), against the arm64 kernel's
#     headers, and installed where dkms.conf's DEST_MODULE_LOCATION puts
#     it: ROOT/lib/modules/KVER/updates/dkms/ of the unpacked arm64
#     kernels (scripts/kernels-arm64 root), depmod -b ROOT; the guest
#     sees that tree as its /lib/modules/KVER (tests/vm/run), so 50-dkms
#     runs there as on x86-64.  (dkms itself cannot cross-build: on an
#     arm64 machine it runs this same line natively.)
#  5. the packaged CLI and library unpacked into ARM64_DIR/pkgroot, which
#     96-packages-arm64 runs in the guest.
#
# Environment: ARM64_DIR (default build-arm64 of the tree), ARM64_CROSS
# (default aarch64-linux-gnu-), PMUCTX_PKG_KEEP=1 (keep the build dir).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top"
die() { echo "check-packages-arm64: $*" >&2; exit 1; }
log() { echo "check-packages-arm64: $*"; }
errors=0
err() { echo "check-packages-arm64: FAIL: $*" >&2; errors=$((errors + 1)); }

[ $# -ge 1 ] || die "usage: scripts/check-packages-arm64.sh KVER... (arm64 releases, or 6.1, 6.12)"
kvers=()
for k in "$@"; do
	kver=$(scripts/kernels-arm64 resolve "$k") || die "no arm64 kernel $k (scripts/kernels-arm64 fetch)"
	kvers+=("$kver")
done
root=$(scripts/kernels-arm64 root)
arm64_dir=${ARM64_DIR:-$top/build-arm64}
cross=${ARM64_CROSS:-aarch64-linux-gnu-}
version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' dkms.conf | head -n 1)
t0=$SECONDS

# ---- 1. build in a copy
work=$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-packages-arm64.XXXXXX")
if [ "${PMUCTX_PKG_KEEP:-0}" = 1 ]; then
	log "keeping $work"
else
	trap 'rm -rf "$work"' EXIT
fi
src=$work/pmuctx-$version
scripts/copy-tree.sh "$src"
log "dpkg-buildpackage -aarm64 -us -uc -b in $src"
if ! (cd "$src" && dpkg-buildpackage -aarm64 -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log" >&2
	die "dpkg-buildpackage -aarm64 failed (log above; the arm64 libraries: scripts/setup-deps.sh --arm64)"
fi
log "built: $(cd "$work" && ls ./*.deb | sed 's|^\./||' | tr '\n' ' ')"

# ---- 2. lintian
lrc=0
lintian --fail-on error --display-level '>=warning' "$work"/*.changes >"$work/lintian.log" 2>&1 || lrc=$?
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/check-packages-arm64: lintian: /' || true
if [ "$lrc" -ne 0 ] || grep -q '^E: ' "$work/lintian.log"; then
	err "lintian reports errors"
else
	log "lintian: no errors"
fi

# ---- 3. contents
pkgroot=$arm64_dir/pkgroot
rm -rf "$pkgroot"
mkdir -p "$pkgroot"
for p in pmuctx-tools libpmuctx0 libpmuctx-dev pmuctx-dkms; do
	f=$(ls "$work/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || { err "no $p package"; continue; }
	a=$(dpkg-deb -f "$f" Architecture)
	case $p:$a in
	pmuctx-dkms:all | *:arm64) ;;
	*) err "$p is Architecture $a" ;;
	esac
	dpkg-deb -x "$f" "$pkgroot"
done
for f in "$pkgroot/usr/bin/pmuctx" "$pkgroot"/usr/lib/aarch64-linux-gnu/libpmuctx.so.0.*; do
	if [ -f "$f" ] && file -b "$f" | grep -q 'ARM aarch64'; then
		log "${f#"$pkgroot"}: $(file -b "$f" | cut -d, -f1-2)"
	else
		err "${f#"$pkgroot"} is not an aarch64 ELF file"
	fi
done

# ---- 4. the DKMS source, built for KVER as dkms.conf says
dsrc=$pkgroot/usr/src/pmuctx-$version
[ -f "$dsrc/dkms.conf" ] || die "pmuctx-dkms has no $dsrc/dkms.conf"
make_line=$(sed -n 's/^MAKE\[0\]="\(.*\)"$/\1/p' "$dsrc/dkms.conf")
[ "$make_line" = 'make module KVER=${kernelver} KDIR=${kernel_source_dir}' ] ||
	err "dkms.conf's MAKE[0] is '$make_line', which this script does not know"
dest=$(sed -n 's/^DEST_MODULE_LOCATION\[0\]="\(.*\)"$/\1/p' "$dsrc/dkms.conf")
for kver in "${kvers[@]}"; do
	bdir=$work/dkms-build-$kver
	cp -a "$dsrc" "$bdir"
	log "make module KVER=$kver KDIR=$root/lib/modules/$kver/build ARCH=arm64 (dkms.conf's MAKE, cross)"
	if ! make -C "$bdir" module KVER="$kver" KDIR="$root/lib/modules/$kver/build" \
		ARCH=arm64 CROSS_COMPILE="$cross" >"$work/dkms-build-$kver.log" 2>&1; then
		tail -n 40 "$work/dkms-build-$kver.log" >&2
		die "the pmuctx-dkms source does not build for $kver"
	fi
	inst=$root/lib/modules/$kver$dest
	rm -rf "$inst"
	mkdir -p "$inst"
	cp "$bdir/module/pmuctx.ko" "$inst/"
	depmod -b "$root" "$kver" || die "depmod -b $root $kver failed"
	log "installed ${inst#"$root"}/pmuctx.ko for $kver ($(modinfo -F vermagic "$inst/pmuctx.ko"))"
done

log "done in $((SECONDS - t0)) s, $errors error(s)"
[ "$errors" -eq 0 ]

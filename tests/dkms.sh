#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dkms.sh [-k KVER] - DKMS-install this tree's module for KVER on this
# host, so that "modprobe pmuctx" in the test VM (which shares the host's
# /lib/modules) loads it; tests/vm/cases/50-dkms.sh checks that.  Run as
# root by scripts/check-kernel.sh (make check, check-vm, check-debug)
# before the VM boots.
#
#  1. remove any registered pmuctx version from KVER only (dkms remove -k
#     KVER): other kernels' builds are left alone
#  2. copy the tree (no .git, no build products) to /usr/src/pmuctx-VERSION
#     (VERSION: dkms.conf's PACKAGE_VERSION)
#  3. dkms add (when VERSION is not registered yet), dkms build -k KVER,
#     dkms install -k KVER
#
# KVER: -k, else $KVER, else the release tests/vm/run would boot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top"

die() { echo "tests/dkms.sh: $*" >&2; exit 1; }

kver=${KVER:-}
while [ $# -gt 0 ]; do
	case $1 in
	-k) kver=${2:?-k wants a kernel release}; shift 2 ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -n "$kver" ] || kver=$(tests/vm/run --print-kver) || die "cannot tell the kernel release"
[ "$(id -u)" = 0 ] || die "must run as root (dkms installs into /usr/src, /var/lib/dkms, /lib/modules)"
command -v dkms >/dev/null || die "dkms missing: apt-get install dkms"
[ -d "/lib/modules/$kver/build" ] || die "/lib/modules/$kver/build missing: apt-get install linux-headers-$kver"
[ -f dkms.conf ] || die "dkms.conf missing in $top"

version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' dkms.conf | head -n 1)
name=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' dkms.conf | head -n 1)
[ -n "$version" ] || die "no PACKAGE_VERSION in dkms.conf"
[ "$name" = pmuctx ] || die "dkms.conf: PACKAGE_NAME is '$name', expected pmuctx"
echo "tests/dkms.sh: pmuctx $version for $kver"

# 1. Remove pmuctx (any version) from KVER only: the builds for other
#    kernels are not ours to touch.
for v in $(dkms status pmuctx 2>/dev/null | sed -n 's|^pmuctx[/,] *\([^,:]*\)[,:].*|\1|p' | sort -u); do
	if dkms status "pmuctx/$v" -k "$kver" 2>/dev/null | grep -q -- ", $kver,"; then
		echo "tests/dkms.sh: dkms remove pmuctx/$v -k $kver"
		dkms remove "pmuctx/$v" -k "$kver" || die "dkms remove pmuctx/$v -k $kver failed"
	fi
done
registered=$(dkms status "pmuctx/$version" 2>/dev/null | grep -c . || true)
# A source dir of a version dkms never registered (an interrupted run).
if [ "$registered" -eq 0 ] && [ -d "/var/lib/dkms/pmuctx/$version" ]; then
	rm -rf "/var/lib/dkms/pmuctx/$version"
fi
src=/usr/src/pmuctx-$version
rm -rf "$src"

# 2. Copy the tree without .git and build products (module-debug/: the
# debug build, make module-debug).
mkdir -p "$src"
tar -C "$top" -cf - \
	--exclude=.git --exclude=./module-debug \
	--exclude='*.o' --exclude='*.ko' --exclude='*.ko.*' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude='*.a' --exclude='*.so' \
	--exclude=Module.symvers --exclude=modules.order \
	--exclude=.tmp_versions --exclude='.cache.mk' . |
	tar -C "$src" -xf -

# 3. add, build, install.
log() { echo "tests/dkms.sh: $*"; }
makelog=/var/lib/dkms/pmuctx/$version/build/make.log
if [ "$registered" -eq 0 ]; then
	log "dkms add pmuctx/$version"
	dkms add "pmuctx/$version" || die "dkms add failed"
else
	log "pmuctx/$version is registered (other kernels keep their builds); source refreshed"
fi
log "dkms build pmuctx/$version -k $kver"
if ! dkms build "pmuctx/$version" -k "$kver"; then
	[ -f "$makelog" ] && { echo "---- $makelog"; tail -n 60 "$makelog"; } >&2
	die "dkms build failed"
fi
log "dkms install pmuctx/$version -k $kver"
dkms install "pmuctx/$version" -k "$kver" || die "dkms install failed"

# Without the kernel's image (a chroot with its headers only, as
# scripts/setup-sid.sh dkms) dkms runs no depmod that modinfo could use:
# then the file where dkms.conf says it goes.
if path=$(modinfo -k "$kver" -n pmuctx 2>/dev/null); then
	:
elif [ ! -s "/lib/modules/$kver/modules.dep" ] &&
     path=$(find "/lib/modules/$kver/updates/dkms" -maxdepth 1 -name 'pmuctx.ko*' 2>/dev/null | head -n 1) &&
     [ -n "$path" ]; then
	log "no modules.dep for $kver (headers without the image): the file dkms installed"
else
	die "modinfo -k $kver pmuctx finds no module after dkms install"
fi
log "installed: $path ($(modinfo -F version "$path"))"
dkms status pmuctx

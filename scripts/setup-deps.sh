#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing pmuctx needs on Debian bookworm (amd64):
# only the packages that are missing, with one `apt-get update` first when
# anything is missing, non-interactively.  A no-op when all are present.
# Runs as root, or through sudo otherwise.  Recommends are not installed
# (qemu-system-x86 would pull in a GUI): everything needed is listed here.
#
# Usage: scripts/setup-deps.sh [--demo | --arm64 | --sid] [--dry-run]
#   --demo      only what `make demo` needs (build tools, one kernel with
#               its headers, QEMU, the libraries the CLI links): no test
#               tools, no packaging tools, no kernel matrix.  `make check`
#               runs this script without it and installs the rest.
#   --arm64     only the arm64 tier (make check-arm64, docs/TESTING.md):
#               adds the dpkg architecture arm64, installs the cross
#               compiler, qemu-system-arm and the arm64 libraries the
#               library, CLI and tests link, and unpacks (never installs:
#               they cannot be) Debian's arm64 6.1 and 6.12 kernels, their
#               headers and busybox-static:arm64 under $PMUCTX_ARM64_ROOT
#               (scripts/kernels-arm64).  make check runs it after the
#               default set (its CHECK_ARM64 tier).
#   --sid       only the newest Debian kernel's build environment:
#               scripts/setup-sid.sh (a sid chroot with that kernel's
#               headers and compiler, its image unpacked for a VM; see
#               there).  Not part of the default set yet.
#   --dry-run   print what would be installed, install nothing
#               (exit 0 either way)
# Environment: PMUCTX_EXTRA_PACKAGES  more packages to ensure (space separated)
#              PMUCTX_KERNEL_MATRIX=0  do not install the 6.12 and 6.12-rt
#                                      kernels of make check's matrix
set -euo pipefail

packages=(
	build-essential		# gcc, make, libc headers (lib, tools, tests)
	linux-headers-amd64	# kernel build tree: /lib/modules/$KVER/build
	linux-image-amd64	# /boot/vmlinuz-$KVER and its modules for the VM
	qemu-system-x86		# the test VM (TCG)
	busybox-static		# the VM's userland
	dkms			# module build/install (README, tests/dkms.sh)
	kmod			# modprobe, depmod, modinfo
	libcap-dev		# tools: capabilities (diagnose.c)
	sparse			# make sparse
	cpio			# the VM's initramfs
	linux-source-6.1	# checkpatch.pl (make style)
	linux-perf		# perf, to compare counts with
	pkg-config		# libpmuctx.pc (make check-install)
	rsync			# tree copies (tests/dkms.sh)
	perl			# checkpatch.pl
	xz-utils		# unpacking linux-source-6.1.tar.xz
	file			# tests: binary checks
	util-linux		# setpriv (tests: unprivileged runs)
	debhelper		# make check-packages: dpkg-buildpackage
	dh-dkms			# make check-packages: pmuctx-dkms
	lintian			# make check-packages
	fakeroot		# make check-packages
	man-db			# make check-man: man --warnings
	groff			# make check-man: groff -ww
	python3			# tests: JSON output checks
	libdw-dev		# lib: symbols (elfutils libdwfl), as perf uses
	libelf-dev		# lib: libdw's ELF layer
	libprotobuf-c-dev	# tools: pmuctx report --format pprof
	protobuf-c-compiler	# tools: protoc-c generates the pprof encoder
	zlib1g-dev		# tools: gzip of the pprof profile
	golang-go		# tests: go tool pprof reads our pprof output
)
# What `make demo` needs of the above: build, one kernel, the VM.
# The arm64 tier (--arm64): cross compiler, the aarch64 system emulator
# (-M virt -cpu max emulates a PMUv3), the arm64 libraries (multiarch) the
# cross-built lib, CLI and tests link and the guest loads from the host's
# root; the arm64 kernels and busybox come from scripts/kernels-arm64.
arm64_packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
	libc6:arm64 libtinfo6:arm64 libzstd1:arm64 libcap-ng0:arm64
	libcap-dev:arm64 libdw-dev:arm64 libelf-dev:arm64
	zlib1g-dev:arm64 libprotobuf-c-dev:arm64 dpkg-dev cpio kmod file patchelf)
demo_packages=(build-essential linux-headers-amd64 linux-image-amd64
	qemu-system-x86 busybox-static kmod cpio file python3 pkg-config
	libcap-dev libdw-dev libelf-dev libprotobuf-c-dev protobuf-c-compiler
	zlib1g-dev)

dry_run=0
demo=0
arm64=0
sid=0
for arg in "$@"; do
	case $arg in
	--dry-run) dry_run=1 ;;
	--demo) demo=1 ;;
	--arm64) arm64=1 ;;
	--sid) sid=1 ;;
	*) echo "usage: $0 [--demo | --arm64 | --sid] [--dry-run]" >&2; exit 2 ;;
	esac
done
if [ "$sid" = 1 ]; then
	[ "$demo$arm64" = 00 ] || { echo "setup-deps: --sid excludes --demo and --arm64" >&2; exit 2; }
	if [ "$dry_run" = 1 ]; then
		echo "setup-deps: would run scripts/setup-sid.sh"
		exit 0
	fi
	exec "$(dirname "$0")/setup-sid.sh"
fi
if [ "$demo" = 1 ]; then
	packages=("${demo_packages[@]}")
	PMUCTX_KERNEL_MATRIX=0
fi
if [ "$arm64" = 1 ]; then
	[ "$demo" = 0 ] || { echo "setup-deps: --demo and --arm64 exclude each other" >&2; exit 2; }
	packages=("${arm64_packages[@]}")
	PMUCTX_KERNEL_MATRIX=0
fi
# shellcheck disable=SC2206
extra=(${PMUCTX_EXTRA_PACKAGES:-})
packages+=("${extra[@]}")

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "setup-deps: this script needs Debian (dpkg, apt-get); install by hand:" >&2
	echo "  ${packages[*]}" >&2
	exit 1
fi

here=$(cd "$(dirname "$0")" && pwd -P)
if [ "$arm64" = 1 ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "setup-deps: adding the dpkg architecture arm64"
		[ "$dry_run" = 1 ] || {
			[ "$(id -u)" -eq 0 ] || { echo "setup-deps: run as root for --arm64" >&2; exit 1; }
			dpkg --add-architecture arm64
			DEBIAN_FRONTEND=noninteractive apt-get -q update
		}
	fi
fi

# With a foreign architecture (--arm64), a name without ":arch" can have
# an instance of each: one line per instance, and the native one (or an
# "all" one) must be installed.
native=$(dpkg --print-architecture)
pkg_installed() {
	local status want
	status=$(dpkg-query -W -f='${Status} ${Architecture}\n' "$1" 2>/dev/null || true)
	case $1 in
	*:*) want="install ok installed ${1##*:}" ;;
	*) want="install ok installed ($native|all)" ;;
	esac
	printf '%s\n' "$status" | grep -qxE "$want"
}
missing=()
for p in "${packages[@]}"; do
	pkg_installed "$p" || missing+=("$p")
done

# The kernel matrix (make check boots each): Debian's 6.12 generic and
# PREEMPT_RT kernels with headers, next to 6.1 (linux-image-amd64 above).
# A flavour already installed is kept; otherwise the newest apt offers is
# installed, its package names resolved by scripts/kernels (never a fixed
# patch release).  PMUCTX_KERNEL_MATRIX=0 leaves them out.
matrix=()
cloud=()
if [ "${PMUCTX_KERNEL_MATRIX:-1}" != 0 ]; then
	for alias in 6.12 6.12-rt; do
		"$here/kernels" resolve "$alias" >/dev/null 2>&1 || matrix+=("$alias")
	done
	# cloud kernels: 6.12's image and headers, booted over virtio-fs
	# (tests/vm/run --fs; it has no 9p) on make check's core subset;
	# 6.1's headers, a build test (make check-vm KVER=6.1-cloud boots it
	# once its image is installed: scripts/kernels says how)
	compgen -G '/lib/modules/6.1.*-cloud-amd64/build' >/dev/null || cloud+=(6.1)
	"$here/kernels" resolve 6.12-cloud >/dev/null 2>&1 || cloud+=(6.12)
	[ ${#cloud[@]} -eq 0 ] || matrix+=(cloud)
fi

# arm64: the kernels, busybox and the guest's tools are unpacked after the packages, and
# only when scripts/kernels-arm64 says something is missing.
arm64_fetch() {
	[ "$arm64" = 1 ] || return 0
	if "$here/kernels-arm64" resolve 6.1 6.12 >/dev/null 2>&1 &&
	   "$here/kernels-arm64" busybox >/dev/null 2>&1; then
		"$here/kernels-arm64" tools >/dev/null 2>&1 && return 0
		echo "setup-deps: unpacking the arm64 guest's perf, python3, perl and coreutils (scripts/kernels-arm64 fetch-tools)"
		[ "$dry_run" = 1 ] || "$here/kernels-arm64" fetch-tools
		return
	fi
	echo "setup-deps: unpacking the arm64 kernels (6.1, 6.12), busybox and the guest's tools (scripts/kernels-arm64 fetch)"
	[ "$dry_run" = 1 ] || "$here/kernels-arm64" fetch 6.1 6.12
}

if [ ${#missing[@]} -eq 0 ] && [ ${#matrix[@]} -eq 0 ]; then
	echo "setup-deps: all ${#packages[@]} prerequisites and the kernel matrix are installed"
	arm64_fetch
	exit 0
fi

echo "setup-deps: installing ${#missing[@]} missing package(s): ${missing[*]}${matrix[*]:+ and the kernels of the matrix: ${matrix[*]}}"
if [ "$dry_run" = 1 ]; then
	arm64_fetch
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "setup-deps: not root and no sudo: run as root: apt-get install ${missing[*]}" >&2
	exit 1
fi

apt_opts=(-y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update
for alias in "${matrix[@]}"; do
	if [ "$alias" = cloud ]; then
		for series in "${cloud[@]}"; do
			if [ "$series" = 6.1 ]; then
				missing+=(linux-headers-cloud-amd64)
				continue
			fi
			read -r -a kp <<<"$("$here/kernels" packages "$series" cloud-amd64)"
			[ ${#kp[@]} -eq 2 ] || {
				echo "setup-deps: apt offers no Linux $series cloud kernel" >&2
				exit 1
			}
			missing+=("${kp[@]}")
		done
		echo "setup-deps: cloud kernels (6.12: image and headers; 6.1: headers): ${cloud[*]}"
		continue
	fi
	case $alias in 6.12-rt) flavour=rt-amd64 ;; *) flavour=amd64 ;; esac
	read -r -a kp <<<"$("$here/kernels" packages 6.12 "$flavour")"
	if [ ${#kp[@]} -ne 2 ]; then
		echo "setup-deps: apt offers no Linux 6.12 $flavour kernel (Debian bookworm has it in bookworm-security); PMUCTX_KERNEL_MATRIX=0 skips the matrix" >&2
		exit 1
	fi
	echo "setup-deps: kernel matrix $alias: ${kp[*]}"
	missing+=("${kp[@]}")
done
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}"

# Verify: a package that apt could not install must not pass silently.
still=()
for p in "${missing[@]}"; do
	pkg_installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
	echo "setup-deps: still missing after apt-get install: ${still[*]}" >&2
	exit 1
fi
echo "setup-deps: installed: ${missing[*]}"
arm64_fetch

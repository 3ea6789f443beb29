#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/setup-sid.sh - the newest Debian kernel (suite sid), built for in
# a sid chroot with Debian's own compiler for it.
#
# The newest kernel Debian ships lives in sid; its headers depend on the
# compiler it was built with (gcc-N-for-host), which bookworm lacks.  So
# the module is built for it inside a sid chroot (mmdebstrap, variant
# minbase) that has those headers and that compiler; the kernel itself
# (linux-image, and the linux-binary / linux-modules packages it is split
# into since 7.x) is only downloaded and unpacked, never installed on the
# host, for a later boot in the test VM.
#
#   CHROOT ($PMUCTX_SID_CHROOT, default /var/cache/pmuctx/sid-chroot)
#       the sid chroot; CHROOT/lib/modules/REL/build is the build tree
#   KDIR ($PMUCTX_SID_KERNEL, default /var/cache/pmuctx/sid-kernel)
#       KDIR/debs/*.deb                  the image packages of REL
#       KDIR/root/usr/lib/modules/REL/   unpacked (dpkg -x) from them: the
#                                        kernel (vmlinuz), config,
#                                        System.map, modules (depmod run)
#       KDIR/root/boot/vmlinuz-REL       -> ../usr/lib/modules/REL/vmlinuz
#       KDIR/root/lib                    -> usr/lib
#       KDIR/vmlinuz-REL                 -> root/boot/vmlinuz-REL
#       KDIR/release                     REL, one line
#
# usage: scripts/setup-sid.sh [setup] [SERIES]
#            Make or update the chroot and the unpacked kernel: resolve
#            the newest linux-headers-SERIES.*-amd64 (the generic
#            flavour) that sid offers, by name with apt-cache, never a
#            fixed release (SERIES: e.g. 7.2; default: the newest series
#            of all); install it (with what it depends on: -common,
#            linux-kbuild, gcc-N-for-host) and make; download its
#            linux-image, linux-binary and linux-modules packages and
#            unpack them.  Idempotent: what is already there is kept and
#            said so.  Needs root and the Debian mirror.
#        scripts/setup-sid.sh release
#            print REL (fails when setup has not run)
#        scripts/setup-sid.sh build [MAKE ARGS...]
#            build the module in the chroot against REL's headers: copies
#            Kbuild, module/ and include/ into CHROOT/build/pmuctx (a fresh
#            copy each time) and runs make -C /lib/modules/REL/build
#            M=/build/pmuctx W=1 KCFLAGS=-Werror modules MAKE ARGS (e.g.
#            PMUCTX_DEBUG=1); leaves CHROOT/build/pmuctx/module/pmuctx.ko.
#        scripts/setup-sid.sh dkms
#            DKMS-install the module for REL inside the chroot, as a user
#            of that kernel would (tests/dkms.sh: dkms add, build,
#            install, with the chroot's dkms and the kernel's compiler),
#            from a copy of what dkms needs of this tree (dkms.conf,
#            Makefile, Kbuild, module/, include/, scripts/, tests/dkms.sh)
#            in CHROOT/build/tree; then copies the installed module into
#            KDIR/root's updates/dkms/ and runs depmod there, so that
#            "modprobe pmuctx" in the booted guest loads it (50-dkms).
#        scripts/setup-sid.sh run CMD...
#            run CMD in the chroot (with /proc and /dev, in a private
#            mount namespace: nothing stays mounted)
# Environment: PMUCTX_SID_CHROOT, PMUCTX_SID_KERNEL,
#              PMUCTX_SID_MIRROR (default http://deb.debian.org/debian)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
chroot_dir=${PMUCTX_SID_CHROOT:-/var/cache/pmuctx/sid-chroot}
kdir=${PMUCTX_SID_KERNEL:-/var/cache/pmuctx/sid-kernel}
mirror=${PMUCTX_SID_MIRROR:-http://deb.debian.org/debian}

die() { echo "setup-sid: $*" >&2; exit 1; }
say() { echo "setup-sid: $*"; }

need_root() {
	[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, chroot): run it with sudo"
}

# in_chroot CMD...: CMD in the chroot, /proc and /dev mounted in a private
# mount namespace of its own, so that nothing stays mounted after it
in_chroot() {
	[ -x "$chroot_dir/usr/bin/apt-get" ] ||
		die "no chroot at $chroot_dir: run scripts/setup-sid.sh first"
	# shellcheck disable=SC2016 # expanded by that shell
	unshare --mount --propagation private -- /bin/sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" &&
		mount --rbind /dev "$root/dev" || exit 125
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$chroot_dir" "$@"
}

# the release the chroot has headers for (the newest, if several)
release() {
	local d rel=
	for d in "$chroot_dir"/lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		d=${d%/build}
		rel=$(printf '%s\n%s\n' "$rel" "${d##*/}" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$rel" ] || die "no kernel headers in $chroot_dir: run scripts/setup-sid.sh first"
	echo "$rel"
}

make_chroot() {
	if [ -x "$chroot_dir/usr/bin/apt-get" ] && [ -f "$chroot_dir/etc/pmuctx-sid" ]; then
		say "chroot $chroot_dir: present (made $(cat "$chroot_dir/etc/pmuctx-sid"))"
		return
	fi
	command -v mmdebstrap >/dev/null || {
		say "installing mmdebstrap (apt-get update, apt-get install mmdebstrap)"
		{ apt-get update -qq &&
			apt-get install -y -q --no-install-recommends mmdebstrap >/dev/null; } ||
			die "cannot install mmdebstrap with apt-get"
	}
	if [ -e "$chroot_dir" ]; then
		say "chroot $chroot_dir: incomplete (no /etc/pmuctx-sid), made again"
		rm -rf --one-file-system "$chroot_dir"
	fi
	mkdir -p "$(dirname "$chroot_dir")"
	say "chroot $chroot_dir: mmdebstrap --variant=minbase sid (a few minutes)"
	# bookworm's debian-archive-keyring has the trixie keys that sid's
	# Release is (also) signed with; apt only needs one good signature.
	# Valid-Until is not checked (the signatures are): a mirror that lags
	# or is a snapshot, as the machines here have, would otherwise be
	# refused as expired; the host's apt is configured the same way.
	# --aptopt stays in the chroot (/etc/apt/apt.conf.d/99mmdebstrap).
	mmdebstrap --variant=minbase --mode=root --include=make \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		sid "$chroot_dir" "deb $mirror sid main" ||
		die "mmdebstrap sid $chroot_dir failed (mirror $mirror reachable? keys: a sid Release signed by no key of /usr/share/keyrings/debian-archive-keyring.gpg needs a newer debian-archive-keyring)"
	date -u +%FT%TZ >"$chroot_dir/etc/pmuctx-sid"
}

# newest REL of sid's linux-headers-REL (generic amd64 flavour), of SERIES
resolve() {
	local series=$1 re
	if [ -n "$series" ]; then
		re="^linux-headers-${series//./\\.}\\.[0-9][0-9.]*\\+deb[0-9]+-amd64\$"
	else
		re='^linux-headers-[0-9]+\.[0-9]+\.[0-9][0-9.]*\+deb[0-9]+-amd64$'
	fi
	in_chroot apt-cache pkgnames linux-headers- | grep -E "$re" |
		sed 's/^linux-headers-//' | sort -V | tail -n 1
}

setup() {
	local series=${1:-} rel pkgs p deps t0=$SECONDS
	need_root
	case $series in
	''|[0-9]*.[0-9]*) ;;
	*) die "SERIES is a kernel series like 7.2, not '$series'" ;;
	esac
	make_chroot
	# mmdebstrap leaves no resolv.conf; apt in the chroot needs one
	cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
	say "apt-get update in the chroot"
	in_chroot apt-get update -qq || die "apt-get update in $chroot_dir failed (mirror $mirror)"
	rel=$(resolve "$series")
	[ -n "$rel" ] || die "sid offers no linux-headers-${series:-N.N}.*+debN-amd64 (apt-cache pkgnames in $chroot_dir)"
	say "newest kernel in sid${series:+ of series $series}: $rel"

	# shellcheck disable=SC2016 # dpkg-query's fields
	if in_chroot dpkg-query -W -f '${Status}\n' "linux-headers-$rel" 2>/dev/null |
		grep -q 'install ok installed'; then
		say "linux-headers-$rel: installed"
	else
		say "installing linux-headers-$rel and what it depends on (the kernel's compiler)"
		in_chroot apt-get install -y -q --no-install-recommends \
			"linux-headers-$rel" make >/dev/null ||
			die "apt-get install linux-headers-$rel in $chroot_dir failed"
	fi
	if [ -x "$chroot_dir/usr/sbin/dkms" ]; then
		say "dkms: installed"
	else
		say "installing dkms (scripts/setup-sid.sh dkms)"
		in_chroot apt-get install -y -q --no-install-recommends dkms >/dev/null ||
			die "apt-get install dkms in $chroot_dir failed"
	fi
	# shellcheck disable=SC2016 # dpkg-query's fields
	in_chroot dpkg-query -W -f '  ${Package} ${Version}\n' "linux-headers-$rel" \
		'linux-headers-*-common*' 'linux-kbuild-*' 'gcc-*-for-host' 'gcc-[0-9]*' make 2>/dev/null |
		grep -v ' $' || true

	# the image: linux-image-REL and the packages of REL it depends on
	# (since 7.x linux-binary-REL and linux-modules-REL)
	pkgs="linux-image-$rel"
	deps=$(in_chroot apt-cache depends --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		"linux-image-$rel" | sed -n 's/^ *[A-Za-z]*: *//p' | sed 's/[<>]//g')
	for p in $deps; do
		case $p in
		*"$rel"*) pkgs="$pkgs $p" ;;
		esac
	done
	# one level deeper (linux-binary may depend on linux-modules)
	for p in $pkgs; do
		deps=$(in_chroot apt-cache depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances "$p" |
			sed -n 's/^ *[A-Za-z]*: *//p' | sed 's/[<>]//g')
		for d in $deps; do
			case " $pkgs " in *" $d "*) continue ;; esac
			case $d in *"$rel"*) pkgs="$pkgs $d" ;; esac
		done
	done
	mkdir -p "$kdir/debs" "$kdir/root"
	local have=1
	for p in $pkgs; do
		ls "$kdir/debs/${p}_"*.deb >/dev/null 2>&1 || have=0
	done
	if [ "$have" = 1 ]; then
		say "image packages of $rel: present in $kdir/debs"
	else
		say "downloading $pkgs (apt-get download in the chroot)"
		rm -rf "$chroot_dir/tmp/pmuctx-debs"
		mkdir -p "$chroot_dir/tmp/pmuctx-debs"
		# apt downloads as _apt, which must be able to write there
		chmod 0777 "$chroot_dir/tmp/pmuctx-debs"
		# shellcheck disable=SC2086 # a list of package names
		in_chroot sh -c 'cd /tmp/pmuctx-debs && apt-get download -q "$@"' sh $pkgs ||
			die "apt-get download $pkgs failed"
		mv "$chroot_dir"/tmp/pmuctx-debs/*.deb "$kdir/debs/"
		rmdir "$chroot_dir/tmp/pmuctx-debs"
	fi
	local mods=$kdir/root/usr/lib/modules/$rel
	if [ -f "$mods/vmlinuz" ] && [ -d "$mods/kernel" ]; then
		say "$kdir/root: $rel unpacked"
	else
		for p in $pkgs; do
			for f in "$kdir/debs/${p}_"*.deb; do
				say "unpacking ${f##*/} into $kdir/root (dpkg -x)"
				dpkg -x "$f" "$kdir/root"
			done
		done
		[ -f "$mods/vmlinuz" ] ||
			die "no usr/lib/modules/$rel/vmlinuz in $pkgs (unpacked in $kdir/root)"
	fi
	# Since 7.x the packages ship the kernel, its config and System.map
	# in /usr/lib/modules/REL only; /boot/vmlinuz-REL is made by the
	# postinst, which is not run here: the same links, made by hand, and
	# the usrmerge link lib -> usr/lib, so that ROOT looks like the arm64
	# ROOT of scripts/kernels-arm64 (ROOT/boot, ROOT/lib/modules).
	mkdir -p "$kdir/root/boot"
	ln -sfn "../usr/lib/modules/$rel/vmlinuz" "$kdir/root/boot/vmlinuz-$rel"
	ln -sfn "../usr/lib/modules/$rel/config" "$kdir/root/boot/config-$rel"
	ln -sfn "../usr/lib/modules/$rel/System.map" "$kdir/root/boot/System.map-$rel"
	[ -e "$kdir/root/lib" ] || ln -s usr/lib "$kdir/root/lib"
	# nor is depmod (the packages ship no modules.dep)
	if [ ! -s "$mods/modules.dep" ]; then
		say "depmod -b $kdir/root $rel"
		depmod -b "$kdir/root" "$rel" || die "depmod -b $kdir/root $rel failed"
	fi
	ln -sfn "root/boot/vmlinuz-$rel" "$kdir/vmlinuz-$rel"
	echo "$rel" >"$kdir/release"
	say "kernel: $kdir/vmlinuz-$rel, modules: $kdir/root/lib/modules/$rel"
	say "build tree: $chroot_dir/lib/modules/$rel/build"
	say "done in $((SECONDS - t0)) s"
}

build() {
	local rel dst=$chroot_dir/build/pmuctx
	need_root
	rel=$(release)
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -a "$top/Kbuild" "$top/include" "$dst/"
	mkdir "$dst/module"
	# sources only: never the host build's products
	find "$top/module" -maxdepth 1 -type f \( -name '*.[ch]' -o -name Kbuild \) \
		-exec cp -a {} "$dst/module/" \;
	say "building in $chroot_dir for $rel: make W=1 KCFLAGS=-Werror modules $*"
	in_chroot make -j"$(nproc)" -C "/lib/modules/$rel/build" M=/build/pmuctx W=1 \
		KCFLAGS=-Werror modules "$@"
	say "built $dst/module/pmuctx.ko"
}

dkms_install() {
	local rel dst=$chroot_dir/build/tree mods f n=0
	need_root
	rel=$(release)
	[ -x "$chroot_dir/usr/sbin/dkms" ] ||
		die "no dkms in $chroot_dir: run scripts/setup-sid.sh setup"
	rm -rf "$dst"
	mkdir -p "$dst/module" "$dst/tests"
	cp -a "$top/dkms.conf" "$top/Makefile" "$top/Kbuild" "$top/include" \
		"$top/scripts" "$dst/"
	cp -a "$top/tests/dkms.sh" "$dst/tests/"
	# sources only: never the host build's products
	find "$top/module" -maxdepth 1 -type f \( -name '*.[ch]' -o -name Kbuild \) \
		-exec cp -a {} "$dst/module/" \;
	say "dkms in $chroot_dir for $rel: tests/dkms.sh -k $rel"
	in_chroot /build/tree/tests/dkms.sh -k "$rel" ||
		die "tests/dkms.sh -k $rel failed in $chroot_dir"
	mods=$kdir/root/usr/lib/modules/$rel
	[ -d "$mods" ] || die "no $mods: run scripts/setup-sid.sh setup"
	rm -rf "$mods/updates/dkms"
	mkdir -p "$mods/updates/dkms"
	for f in "$chroot_dir/lib/modules/$rel/updates/dkms/"pmuctx.ko*; do
		[ -f "$f" ] || continue
		cp "$f" "$mods/updates/dkms/"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] ||
		die "dkms installed no pmuctx.ko* in $chroot_dir/lib/modules/$rel/updates/dkms"
	depmod -b "$kdir/root" "$rel" || die "depmod -b $kdir/root $rel failed"
	say "DKMS module for $rel: $(cd "$mods" && ls updates/dkms/pmuctx.ko*) in $kdir/root"
}

cmd=${1:-setup}
case $cmd in
setup) shift || true; setup "$@" ;;
[0-9]*) setup "$@" ;;
release) release ;;
build) shift; build "$@" ;;
dkms) dkms_install ;;
run) shift; need_root; in_chroot "$@" ;;
-h|--help|help) sed -n '3,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
*) die "unknown command '$cmd' (setup, release, build, dkms, run; --help)" ;;
esac

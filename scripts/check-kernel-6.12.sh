#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-6.12 (a step of `make check`): build the module against a second
# kernel series, Linux 6.12 (Debian's linux-source-6.12, in bookworm-security),
# to catch API changes early.  It only compiles: nothing is booted.
#
#  1. Installs linux-source-6.12 with apt-get when /usr/src/linux-source-6.12.tar.xz
#     is missing (as root, or through sudo; one `apt-get update` first if apt
#     does not know the package).
#  2. Prepares the tree once (x86_64 `make defconfig`, the few options the
#     module needs switched on, `make modules_prepare`) in
#     ${XDG_CACHE_HOME:-~/.cache}/pmuctx/linux-6.12, outside the source tree.
#     A stamp file holds the package version: the tree is reused while the
#     version is the same and rebuilt when the package is upgraded.
#  3. Copies Kbuild, module/ and include/ to .../pmuctx/build-6.12 and runs
#     `make -k -C <tree> M=<copy> W=1 modules` with -Werror, like the regular
#     build.  Every compiler error and warning is printed, and every kernel
#     symbol the module uses must be exported by the 6.12 sources (a
#     prepared tree has no vmlinux, so modpost cannot check that).
#
# The last line is "1 passed, 0 failed" or "0 passed, 1 failed".
# Environment: PMUCTX_KSERIES (default 6.12), PMUCTX_KCACHE (cache dir),
# PMUCTX_KSRC_TARBALL (use this tarball instead of the package),
# PMUCTX_KWERROR (default 1; 0 drops -Werror), JOBS (default nproc).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
series=${PMUCTX_KSERIES:-6.12}
cache=${PMUCTX_KCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmuctx}
tree=$cache/linux-$series
build=$cache/build-$series
pkg=linux-source-$series
tarball=${PMUCTX_KSRC_TARBALL:-/usr/src/$pkg.tar.xz}
jobs=${JOBS:-$(nproc)}
werror=${PMUCTX_KWERROR:-1}

say() { echo "check-$series: $*"; }
fail() {
	say "$*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# 1. The source package and what preparing a tree needs (kconfig: flex,
# bison; objtool: libelf-dev; certs and bc for the headers).
need=()
[ -r "$tarball" ] || [ -n "${PMUCTX_KSRC_TARBALL:-}" ] || need+=("$pkg")
[ -r "$tarball" ] || [ -z "${PMUCTX_KSRC_TARBALL:-}" ] || fail "$tarball does not exist"
for p in flex bison libelf-dev libssl-dev bc xz-utils build-essential; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
	elif command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	else
		fail "missing packages and we are not root: apt-get install ${need[*]}"
	fi
	if ! apt-cache show "${need[@]}" >/dev/null 2>&1; then
		say "apt does not know ${need[*]} yet: apt-get update ($pkg is in bookworm-security)"
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update ||
			fail "apt-get update failed"
	fi
	say "installing ${need[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" || fail "apt-get install ${need[*]} failed"
	[ -r "$tarball" ] || fail "$pkg installed but $tarball is missing"
fi
if [ -n "${PMUCTX_KSRC_TARBALL:-}" ]; then
	version="tarball $(stat -c '%s %Y' "$tarball")"
else
	version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown)
fi

# 2. The prepared tree (reused while the package version is unchanged).
# Options the module uses, on top of x86_64 defconfig: the scheduler
# tracepoints (FTRACE/TRACEPOINTS), perf events, cgroups.
want_config=(FTRACE ENABLE_DEFAULT_TRACERS PERF_EVENTS CGROUPS MODULES
	MODULE_UNLOAD HOTPLUG_CPU)
if [ -f "$tree/.pmuctx-prepared" ] && [ "$(cat "$tree/.pmuctx-prepared")" = "$version" ]; then
	say "reusing the prepared tree $tree ($pkg $version)"
else
	say "preparing $tree from $tarball ($pkg $version); takes a few minutes"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1 ||
		fail "cannot unpack $tarball"
	log=$tree.tmp/.pmuctx-prepare.log
	config_args=()
	for c in "${want_config[@]}"; do
		config_args+=(-e "$c")
	done
	{
		make -C "$tree.tmp" -j"$jobs" defconfig &&
		(cd "$tree.tmp" && ./scripts/config "${config_args[@]}") &&
		make -C "$tree.tmp" -j"$jobs" olddefconfig &&
		make -C "$tree.tmp" -j"$jobs" modules_prepare
	} >"$log" 2>&1 || {
		tail -n 60 "$log" >&2
		fail "preparing the $series tree failed (log: $log)"
	}
	for c in TRACEPOINTS PERF_EVENTS CGROUPS MODULES; do
		grep -q "^CONFIG_$c=y" "$tree.tmp/.config" ||
			fail "CONFIG_$c is not set in the prepared $series tree"
	done
	echo "$version" >"$tree.tmp/.pmuctx-prepared"
	mv "$tree.tmp" "$tree"
fi
krel=$(make -s -C "$tree" kernelrelease 2>/dev/null || echo "$series")

# An index of the symbols the tree exports, for the unresolved-symbol check
# below (modpost cannot do it: a prepared tree has no vmlinux).
exports=$tree/.pmuctx-exports
if [ ! -s "$exports" ]; then
	grep -rhoE --include='*.c' --include='*.h' --include='*.S' \
		'EXPORT_(SYMBOL|SYMBOL_GPL|SYMBOL_NS|SYMBOL_NS_GPL|PER_CPU_SYMBOL|PER_CPU_SYMBOL_GPL|TRACEPOINT_SYMBOL|TRACEPOINT_SYMBOL_GPL)\(\s*[A-Za-z0-9_]+' "$tree" |
		sed -E 's/.*\(\s*//' >"$exports.tmp"
	grep -rhoE --include='*.c' --include='*.h' --include='*.S' \
		'EXPORT_STATIC_CALL(_GPL|_TRAMP|_TRAMP_GPL)?\(\s*[A-Za-z0-9_]+' "$tree" |
		sed -E 's/.*\(\s*//; s/^/__SCT__/' >>"$exports.tmp"
	sort -u "$exports.tmp" >"$exports"
	rm -f "$exports.tmp"
fi

# 3. The module, from a copy of the sources (the tree's module/ holds the
# build for the distribution kernel and is left alone).  make -k: every
# file that fails is reported, not only the first.  KBUILD_MODPOST_WARN:
# without vmlinux modpost would call every kernel symbol undefined; the
# exports index above does that check instead.
rm -rf "$build"
mkdir -p "$build"
cp -r "$top/Kbuild" "$top/module" "$top/include" "$build/"
find "$build/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
	-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \) -delete
kcflags=
[ "$werror" = 1 ] && kcflags=-Werror
say "building the module against $krel ($tree) in $build"
set +e
make -k -C "$tree" M="$build" W=1 ${kcflags:+KCFLAGS=$kcflags} KBUILD_MODPOST_WARN=1 \
	-j"$jobs" modules >"$build/build.log" 2>&1
rc=$?
set -e
problems=$(grep -E '(error|warning):' "$build/build.log" |
	grep -v 'the compiler differs from the one used to build the kernel' |
	grep -vE 'modpost: .*(undefined!|Symbol info of vmlinux is missing|unresolved symbol)' || true)

# Kernel symbols the module uses that 6.12 does not export.  Symbols
# exported through arch/assembler macros are known by name.
unexported=
if [ -f "$build/module/pmuctx.o" ]; then
	unexported=$(nm -u "$build/module/pmuctx.o" | awk '{ print $2 }' | sort -u |
		grep -vE '^(__this_module|__x86_indirect_thunk_[a-z0-9]+|__x86_return_thunk|__fentry__|param_(ops|get|set)_[a-z]+)$' |
		comm -23 - "$exports" || true)
fi

if [ "$rc" -ne 0 ] || [ -n "$unexported" ] ||
   { [ "$werror" = 1 ] && [ -n "$problems" ]; }; then
	cat "$build/build.log" >&2
	say "FAILED: the module does not build against $krel" >&2
	if [ -n "$problems" ]; then
		say "errors and warnings:" >&2
		printf '%s\n' "$problems" | sed "s|$build/||" | sort -u >&2
	fi
	if [ -n "$unexported" ]; then
		say "kernel symbols the module uses that $krel does not export:" >&2
		printf '%s\n' "$unexported" | sed 's/^/  /' >&2
	fi
	echo "0 passed, 1 failed"
	exit 1
fi
[ -f "$build/module/pmuctx.ko" ] || fail "no module/pmuctx.ko after a successful make"
say "ok: module/pmuctx.ko builds against $krel, $(nm -u "$build/module/pmuctx.o" | wc -l) kernel symbols, all exported"
echo "1 passed, 0 failed"

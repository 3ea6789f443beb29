#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: the whole pmuctx test suite, in order:
#
#   style               scripts/checkpatch.sh
#   sparse              scripts/sparse.sh
#   all                 make all WERROR=1 (module W=1 -Werror, lib, tools, progs)
#   module-builds       scripts/check-module-builds.sh: the debug module built
#                       (make module-debug WERROR=1); the release module has
#                       no test or benchmark symbol (nm) or parameter
#                       (modinfo), the debug one has them
#   check-unit          make -C tests/unit check        (a test suite)
#   check-install       scripts/check-install.sh
#   check-examples      scripts/check-examples.sh (examples vs the installed library)
#   check-man           scripts/check-man.sh (groff -ww on every page)
#   check-uapi-doc      scripts/check-uapi-doc.sh (the UAPI header's kernel-doc
#                       @fields are exactly the members of each struct)
#   check-packages      scripts/check-packages.sh (Debian packages, installed
#                       here for the VM; before the VM steps, whose DKMS
#                       install re-adds the same DKMS pmuctx/VERSION from the tree)
#   build:cloud         scripts/check-cloud-build.sh: the module built (W=1
#                       -Werror) for each installed Debian cloud kernel,
#                       which the VM cannot boot (a test suite)
#   vm:KERNEL           for each KERNEL of CHECK_KERNELS (default "6.1 6.12
#                       6.12-rt": Debian's 6.1, 6.12 and 6.12 PREEMPT_RT):
#                       scripts/check-kernel.sh KERNEL - the module built
#                       against it (W=1 -Werror), DKMS-installed for it, the
#                       VM suite booted on it, all but the cases
#                       tests/vm/subsets names for that kernel
#                       (CHECK_FULL=1: whole everywhere)  (a test suite each)
#   vm:KERNEL           for each KERNEL of CHECK_CLOUD (default "6.12-cloud";
#                       "6.1-cloud" works too): Debian's cloud flavour, no 9p, booted over
#                       virtio-fs): scripts/check-kernel.sh KERNEL on the core
#                       subset (10-load, 40-abi, 50-dkms, 60-store; the
#                       lifetimes case runs on generic 6.12)
#   vm:sid              scripts/check-sid.sh: the newest kernel Debian ships
#                       (sid), the module built in a sid chroot with its
#                       compiler (W=1 -Werror), booted on a core subset
#                       (10-load, 40-abi, 60-store, 74-lifetimes)
#   packages-arm64      make check-packages-arm64: the Debian packages
#                       cross-built for arm64 (dpkg-buildpackage -aarm64),
#                       lintian, the pmuctx-dkms source built as DKMS would
#                       for each arm64 kernel and installed in its tree
#   vm:arm64-KERNEL     for each KERNEL of CHECK_ARM64 (default "6.12 6.1"):
#                       make check-arm64-ci - the aarch64 user space and the
#                       module cross-built (W=1 -Werror), booted in
#                       qemu-system-aarch64 -M virt -cpu max (emulated PMUv3)
#                       under -icount on 10-load, 40-abi,
#                       96-packages-arm64 and a share of 90-95 each
#                       (scripts/check-arm64.sh --ci); these and
#                       packages-arm64 run beside the host steps (below)
#
# A failing step does not stop the run, except that the steps which need the
# build (module-builds, check-install, check-examples, the vm steps) are not run when `all`
# failed; those count as failed.  Set CHECK_FAIL_FAST=1 to stop at the first failure instead.
#
# Counting.  For the two test suites the counts come from their own output:
# the last "N passed, M failed[, K skipped]" line; failing that, a kselftest
# "# Totals: pass:N fail:M ... skip:K" line; failing that, TAP "ok"/"not ok"
# lines.  A suite that exits non-zero without reporting a failure counts one
# more failure; one that prints no count at all counts as one test.  Every
# other step counts as one test.  The very last line printed is the sum:
#
#   N passed, M failed            (", K skipped" is added when K > 0)
#
# Exit status: 0 when every step passed, 1 otherwise.
#
# Environment: MAKE, KVER, KDIR, CHECK_KERNELS, CHECK_CLOUD, CHECK_SID,
# CHECK_ARM64, CHECK_FULL (from the Makefile); CHECK_LOGDIR (keep the
# per-step logs there; default: a new directory under ${TMPDIR:-/tmp});
# CHECK_SUMMARY_FILE (also write the last line there; .ci/run uses it);
# CHECK_FAIL_FAST.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

MAKE=${MAKE:-make}
CHECK_FAIL_FAST=${CHECK_FAIL_FAST:-0}
logdir=${CHECK_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/pmuctx-check.XXXXXX")}
mkdir -p "$logdir"

steps=(style sparse all module-builds check-unit check-install check-examples check-man check-uapi-doc check-packages build:cloud)
declare -A cmd=(
	[build:cloud]="scripts/check-cloud-build.sh"
	[style]="$MAKE --no-print-directory style"
	[sparse]="$MAKE --no-print-directory sparse"
	[all]="$MAKE --no-print-directory all WERROR=1"
	[module-builds]="$MAKE --no-print-directory check-module-builds WERROR=1"
	[check-unit]="$MAKE --no-print-directory check-unit WERROR=1"
	[check-install]="$MAKE --no-print-directory check-install"
	[check-examples]="$MAKE --no-print-directory check-examples"
	[check-man]="$MAKE --no-print-directory check-man"
	[check-uapi-doc]="$MAKE --no-print-directory check-uapi-doc"
	[check-packages]="$MAKE --no-print-directory check-packages"
)
declare -A is_suite=([check-unit]=1 [build:cloud]=1)
# step -> steps that must have passed for it to make sense
declare -A needs=(
	[module-builds]="all"
	[check-install]="all"
	[check-examples]="all"
)
# The kernel matrix: one VM suite per kernel.
for k in ${CHECK_KERNELS:-6.1 6.12 6.12-rt}; do
	steps+=("vm:$k")
	# its subset, if tests/vm/subsets names one (CHECK_FULL=1: none)
	cmd[vm:$k]="env CHECK_SUBSET=$k scripts/check-kernel.sh $k"
	is_suite[vm:$k]=1
	needs[vm:$k]="all"
done
# Debian's cloud kernels (CHECK_CLOUD, default "6.12-cloud";
# empty: none): the module built and DKMS-installed as for the matrix,
# booted over virtio-fs on a core subset, with 50-dkms: the flavour's own
# config (no 9p, fewer drivers) on the module's load, ABI and store; what
# else its code paths do runs on generic 6.12 (74-lifetimes, 122 s here,
# left out for CI's time; docs/TESTING.md "CI: what each kernel runs").
core_cases="tests/vm/cases/10-load.sh tests/vm/cases/40-abi.sh tests/vm/cases/50-dkms.sh tests/vm/cases/60-store.sh"
for k in ${CHECK_CLOUD-6.12-cloud}; do
	steps+=("vm:$k")
	cmd[vm:$k]="scripts/check-kernel.sh $k $core_cases"
	is_suite[vm:$k]=1
	needs[vm:$k]="all"
done
# The newest Debian kernel (CHECK_SID=1, the default; empty: not run):
# scripts/check-sid.sh - the sid chroot, the module built there with that
# kernel's compiler, the kernel booted on a core subset.
if [ -n "${CHECK_SID-1}" ]; then
	steps+=("vm:sid")
	cmd[vm:sid]="scripts/check-sid.sh"
	is_suite[vm:sid]=1
	needs[vm:sid]="all"
fi
# The arm64 tier (CHECK_ARM64, default "6.12 6.1"; empty: none): each
# kernel booted in qemu-system-aarch64 on make check's subset
# (scripts/check-arm64.sh --ci: 10-load, 40-abi, 96-packages-arm64 and a
# share of the hardware-event cases 90-95 each, under -icount).  scripts/setup-deps.sh --arm64 installs what it needs.
# First the arm64 packages (cross-built, linted, the DKMS source built for
# each arm64 kernel: scripts/check-packages-arm64.sh), which the tier's
# 96-packages-arm64 runs.
if [ -n "${CHECK_ARM64-6.12 6.1}" ]; then
	steps+=("packages-arm64")
	cmd[packages-arm64]="scripts/check-packages-arm64.sh ${CHECK_ARM64-6.12 6.1}"
fi
for k in ${CHECK_ARM64-6.12 6.1}; do
	steps+=("vm:arm64-$k")
	cmd[vm:arm64-$k]="$MAKE --no-print-directory check-arm64-ci ARM64_KVER=$k"
	is_suite[vm:arm64-$k]=1
done

declare -A result=() counts=() secs=()
total_pass=0 total_fail=0 total_skip=0
stop=0

# parse_counts LOG -> "PASS FAIL SKIP" or nothing
parse_counts() {
	local log=$1 line p f s
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
		grep -oE '(^|[^0-9])[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?' | tail -n 1)
	if [ -n "$line" ]; then
		p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
		f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
		s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || true)
		echo "$p $f ${s:-0}"
		return
	fi
	line=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(sed -E 's/^# Totals: pass:([0-9]+) .*/\1/' <<<"$line")
		f=$(sed -E 's/^# Totals: pass:[0-9]+ fail:([0-9]+).*/\1/' <<<"$line")
		s=$(sed -nE 's/.* skip:([0-9]+).*/\1/p' <<<"$line")
		echo "$p $f ${s:-0}"
		return
	fi
	if grep -qE '^(not )?ok [0-9]+' "$log"; then
		s=$(grep -E '^ok [0-9]+' "$log" | grep -ciE '# *skip' || true)
		p=$(grep -E '^ok [0-9]+' "$log" | grep -viE '# *skip' | grep -c . || true)
		f=$(grep -E '^not ok [0-9]+' "$log" | grep -viE '# *todo' | grep -c . || true)
		echo "$p $f $s"
	fi
}

# The arm64 lane (CHECK_ARM64_BESIDE=1, the default; 0: in turn, after the
# x86-64 kernels): packages-arm64 and the arm64 kernels run in the
# background from the start, beside the host steps (style ... build:cloud),
# and every x86-64 VM step waits for the lane to end first.  Under
# -icount the arm64 guest's clock is its instruction count, so a loaded
# host makes it slower, never different (docs/TESTING.md, "CI time"); it
# is one host thread (QEMU's round robin).  The x86-64 guests' clocks are
# the host's and their timing checks want the machine to themselves: no
# two VMs of x86-64 at once, and none beside the lane.  The lane's steps
# print their logs when the table reaches them.
declare -A beside=() vm_step=()
for step in "${steps[@]}"; do
	case $step in
	packages-arm64 | vm:arm64-*) [ "${CHECK_ARM64_BESIDE:-1}" = 0 ] || beside[$step]=1 ;;
	vm:*) vm_step[$step]=1 ;;
	esac
done
lane_pid=
lane_t0=$SECONDS
if [ ${#beside[@]} -gt 0 ]; then
	lane_steps=()
	for step in "${steps[@]}"; do
		[ -z "${beside[$step]:-}" ] || lane_steps+=("$step")
	done
	echo "==> arm64 lane: ${lane_steps[*]} beside the host steps (logs in $logdir)"
	(
		for step in "${lane_steps[@]}"; do
			t0=$SECONDS
			${cmd[$step]} </dev/null >"$logdir/$step.log" 2>&1
			echo "$? $((SECONDS - t0))" >"$logdir/$step.status"
		done
	) &
	lane_pid=$!
fi
# join_lane: wait for the arm64 lane (once)
join_lane() {
	[ -n "$lane_pid" ] || return 0
	echo "==> arm64 lane: waiting for it to end ($((SECONDS - lane_t0))s since it started)"
	wait "$lane_pid"
	lane_pid=
	echo "==> arm64 lane: ended after $((SECONDS - lane_t0))s"
}

for step in "${steps[@]}"; do
	# a step of the arm64 lane ran from the start whatever failed since:
	# its result is reported, never "not run"
	if [ "$stop" = 1 ] && [ -z "${beside[$step]:-}" ]; then
		result[$step]="not run"
		total_fail=$((total_fail + 1))
		continue
	fi
	missing=""
	for dep in ${needs[$step]:-}; do
		[ "${result[$dep]:-}" = ok ] || missing="$missing $dep"
	done
	if [ -n "$missing" ]; then
		echo "==> $step: not run (failed before it:$missing)"
		result[$step]="not run"
		total_fail=$((total_fail + 1))
		continue
	fi

	log=$logdir/$step.log
	if [ -n "${beside[$step]:-}" ]; then
		# ran in the arm64 lane: its log and status are in $logdir
		join_lane
		echo "==> $step: ${cmd[$step]} (ran beside the host steps; its log follows)"
		cat "$log"
		read -r rc s <"$logdir/$step.status" 2>/dev/null || { rc=1 s=0; }
		secs[$step]=$s
	else
		[ -z "${vm_step[$step]:-}" ] || join_lane
		echo "==> $step: ${cmd[$step]}"
		t0=$SECONDS
		${cmd[$step]} 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		secs[$step]=$((SECONDS - t0))
	fi

	if [ -n "${is_suite[$step]:-}" ]; then
		c=$(parse_counts "$log")
		if [ -n "$c" ]; then
			read -r p f s <<<"$c"
			[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		else
			if [ "$rc" -eq 0 ]; then p=1 f=0; else p=0 f=1; fi
			s=0
		fi
		counts[$step]="$p passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped")"
		total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
		if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then result[$step]=ok; else result[$step]=FAILED; fi
	else
		if [ "$rc" -eq 0 ]; then
			result[$step]=ok; total_pass=$((total_pass + 1))
		else
			result[$step]=FAILED; total_fail=$((total_fail + 1))
		fi
	fi
	echo "==> $step: ${result[$step]} (${secs[$step]}s)"
	if [ "${result[$step]}" != ok ] && [ "$CHECK_FAIL_FAST" = 1 ]; then
		stop=1
	fi
done

join_lane
echo
echo "== pmuctx check summary (KVER=${KVER:-?}; kernels: ${CHECK_KERNELS:-6.1 6.12 6.12-rt}; cloud: ${CHECK_CLOUD-6.12-cloud}; sid: ${CHECK_SID-1}; arm64: ${CHECK_ARM64-6.12 6.1}; logs in $logdir) =="
echo "  (make check: $((SECONDS - lane_t0))s in all)"
status=0
for step in "${steps[@]}"; do
	[ "${result[$step]}" = ok ] || status=1
	printf '  %-20s %-8s %6s  %s%s\n' "$step" "${result[$step]}" \
		"${secs[$step]:+${secs[$step]}s}" "${counts[$step]:-}" \
		"${beside[$step]:+  (beside the host steps)}"
done
summary="$total_pass passed, $total_fail failed"
[ "$total_skip" -gt 0 ] && summary="$summary, $total_skip skipped"
[ -n "${CHECK_SUMMARY_FILE:-}" ] && echo "$summary" >"$CHECK_SUMMARY_FILE"
echo "$summary"
exit $status

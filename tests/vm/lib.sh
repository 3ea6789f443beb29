# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/lib.sh - helpers for VM test cases (POSIX sh; bash works too).
#
#   . "${0%/*}/../lib.sh"     (from tests/vm/cases/NN-name.sh)
#
# Cases run as root in the guest, cwd = top of the source tree (read-only;
# write to /tmp or $PMUCTX_CASE_TMP).  Output protocol (README.md): lines
# "ok - DESC", "not ok - DESC", "ok - DESC # SKIP why", "# diagnostics".
# None of the result helpers return non-zero, so "set -e" cases keep going
# after a failed check; branch on last_ok, $CHECK_RC or $CHECK_OUT.

# shellcheck disable=SC2034 # the variables are for the cases
PMUCTX_TOP=${PMUCTX_TOP:-$(pwd)}
# The module the harness loaded (vm/run exports PMUCTX_MODULE): the
# release build, what users install.
MODULE=${PMUCTX_MODULE:-$PMUCTX_TOP/module/pmuctx.ko}
# The debug build (make module-debug; vm/run --module-debug exports
# PMUCTX_MODULE_DEBUG): the release module plus the SELFTEST backend, the
# selftest_* test hooks and ring_bench.  Only the cases that need those
# load it (use_debug_module); every other case tests the release module.
MODULE_DEBUG=${PMUCTX_MODULE_DEBUG:-$PMUCTX_TOP/module-debug/module/pmuctx.ko}
MODNAME=pmuctx
DEV=/dev/pmuctx
CLI=$PMUCTX_TOP/tools/pmuctx
# shellcheck disable=SC2034
CASE_TMP=${PMUCTX_CASE_TMP:-/tmp}
CHECK_RC=0
CHECK_OUT=
LAST_OK=1

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# skip DESC REASON...: only for things genuinely unavailable in this VM.
skip() { _d=$1; shift; echo "ok - $_d # SKIP $*"; }
# diag TEXT...: each line of TEXT as a "# " line.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
# diag_out TEXT: like diag, at most 40 lines, indented.
diag_out() {
	[ -n "$1" ] || return 0
	printf '%s\n' "$1" | head -n 40 | sed 's/^/#   /'
}

_check_run() {
	# Runs "$@" (the command part), capturing output in CHECK_OUT.
	CHECK_RC=0
	CHECK_OUT=$("$@" 2>&1) || CHECK_RC=$?
}

# check CMD... -- DESC: ok if CMD exits 0.
# expect_fail CMD... -- DESC: ok if CMD exits non-zero.
# Both keep the output (stdout+stderr) in CHECK_OUT, the status in
# CHECK_RC, and return 0; last_ok then tells whether the result was ok.
check() { _check 0 "$@"; }
expect_fail() { _check 1 "$@"; }
_check() {
	_want=$1; shift
	_n=0 _i=0 _desc=
	for _a in "$@"; do
		_i=$((_i + 1))
		if [ "$_a" = -- ]; then _n=$_i; fi
	done
	if [ "$_n" -eq 0 ]; then
		not_ok "bad use of check/expect_fail: no -- DESC in: $*"
		LAST_OK=0
		return 0
	fi
	# The description is everything after the last "--".
	_i=0
	for _a in "$@"; do
		_i=$((_i + 1))
		if [ "$_i" -gt "$_n" ]; then _desc="${_desc:+$_desc }$_a"; fi
	done
	# Drop the description and the "--" from the positional parameters.
	_i=0
	for _a in "$@"; do
		_i=$((_i + 1))
		if [ "$_i" -lt "$_n" ]; then set -- "$@" "$_a"; fi
	done
	shift "$_i"
	_check_run "$@"
	if { [ "$_want" = 0 ] && [ "$CHECK_RC" = 0 ]; } ||
	   { [ "$_want" = 1 ] && [ "$CHECK_RC" != 0 ]; }; then
		ok "$_desc"
		LAST_OK=1
		return 0
	fi
	not_ok "$_desc"
	LAST_OK=0
	if [ "$_want" = 0 ]; then
		diag "command failed (exit $CHECK_RC): $*"
	else
		diag "command unexpectedly succeeded: $*"
	fi
	diag_out "$CHECK_OUT"
	return 0
}

# verdicts PREFIX FILE: the "PASS text" / "FAIL text" lines of FILE (a
# checker's output, such as tests/vm/profile-stats.py's) as ok/not ok
# "PREFIX: text", its other lines as diagnostics; not ok if it has none.
verdicts() {
	grep -q '^PASS\|^FAIL' "$2" || not_ok "$1: the checker gave a verdict"
	while IFS= read -r _line; do
		case $_line in
		PASS\ *) ok "$1: ${_line#PASS }" ;;
		FAIL\ *) not_ok "$1: ${_line#FAIL }" ;;
		*) diag_out "$_line" ;;
		esac
	done < "$2"
}

# last_ok: true if the last check/expect_fail/require was ok.
last_ok() { [ "$LAST_OK" = 1 ]; }

# text_has TEXT GREP_OPTS PATTERN DESC...: ok DESC if a line of TEXT
# matches PATTERN (grep -q GREP_OPTS -e PATTERN; GREP_OPTS such as -i or
# -iE, or ""), else not ok DESC with TEXT as diagnostics.  Like ok and
# not_ok it leaves LAST_OK (the last check's) alone.
text_has() {
	_t=$1 _o=$2 _p=$3; shift 3
	# shellcheck disable=SC2086 # GREP_OPTS is zero or more options
	if printf '%s\n' "$_t" | grep -q $_o -e "$_p"; then
		ok "$*"
	else
		not_ok "$*"
		diag_out "$_t"
	fi
	return 0
}

# as_user UID GID [GROUPS] CMD...: run CMD with that uid/gid and no
# capabilities.  GROUPS is a comma list of numeric supplementary groups,
# or "-" for none; without it there are none either.  HOME=/tmp.
# as_user_exec: the same in place of the shell, for a background job
# whose $! must be CMD itself: (as_user_exec 65534 65534 - CMD) &
as_user() { _as_user "" "$@"; }
as_user_exec() { _as_user exec "$@"; }
_as_user() {
	_x=$1 _uid=$2 _gid=$3; shift 3
	case ${1:-} in
	-) shift; set -- --clear-groups "$@" ;;
	*[!0-9,]* | '') set -- --clear-groups "$@" ;;
	*) _g=$1; shift; set -- "--groups=$_g" "$@" ;;
	esac
	HOME=/tmp $_x setpriv --reuid="$_uid" --regid="$_gid" --inh-caps=-all "$@"
}

# user_exec PATH: print a path of PATH that uid 65534 can execute (PATH
# itself, or a copy in /tmp when the tree is not reachable for others).
user_exec() {
	if as_user 65534 65534 - test -x "$1" 2>/dev/null; then
		echo "$1"
		return 0
	fi
	mkdir -p /tmp/pmuctx-user
	chmod 0755 /tmp/pmuctx-user
	cp "$1" "/tmp/pmuctx-user/${1##*/}"
	chmod 0755 "/tmp/pmuctx-user/${1##*/}"
	echo "/tmp/pmuctx-user/${1##*/}"
}

# need_exec PATH: ok/not_ok "PATH is built"; returns 1 when missing.
# A missing binary is a failure, never a skip.
need_exec() {
	if [ -x "$1" ] && [ -f "$1" ]; then
		return 0
	fi
	not_ok "${1#"$PMUCTX_TOP"/} exists and is executable (not built? run make)"
	return 1
}

# require CMD... -- DESC: like check, but ends the case (exit 1) on failure.
require() {
	check "$@"
	last_ok || exit 1
}

mod_loaded() { [ -d "/sys/module/$MODNAME" ]; }
mod_unload() { if mod_loaded; then rmmod "$MODNAME"; fi; }
mod_load() { mod_loaded || insmod "$MODULE"; }
mod_reload() { mod_unload && insmod "$MODULE"; }
# debug_kernel: the guest runs a debug kernel (fault injection, or "debug"
# in its release): slower, so the long cases run shorter there.
debug_kernel() { [ -e /proc/self/fail-nth ] || uname -r | grep -q debug; }
# mod_is_debug [KO]: the loaded module (or the file KO) is a debug build.
mod_is_debug() {
	if [ $# -gt 0 ]; then
		modinfo -F parm "$1" 2>/dev/null | grep -q '^selftest_inject:'
	else
		[ -e "/sys/module/$MODNAME/parameters/selftest_inject" ]
	fi
}

# use_debug_module: the rest of the case runs on the debug build of the
# module (the SELFTEST backend, a selftest_* hook): $MODULE becomes
# $MODULE_DEBUG, so mod_load, mod_reload and insmod "$MODULE" load it, and
# a loaded release module is replaced by it now.  The suite loads the
# release module again after the case.  Without a debug build the case
# fails (not_ok, exit 1): the test is not optional.
use_debug_module() {
	if ! mod_is_debug "$MODULE_DEBUG"; then
		not_ok "the debug build of the module is there ($MODULE_DEBUG; make module-debug, tests/vm/run --module-debug)"
		exit 1
	fi
	MODULE=$MODULE_DEBUG
	if mod_loaded && ! mod_is_debug; then
		rmmod "$MODNAME" || { not_ok "rmmod the release module for the debug build"; exit 1; }
	fi
	if ! mod_load; then
		not_ok "insmod the debug build $MODULE_DEBUG"
		exit 1
	fi
	diag "this case runs on the debug build of the module ($MODULE_DEBUG)"
}

# is_misc_dev [PATH]: PATH (default /dev/pmuctx) is a char device with
# the misc major (10).
is_misc_dev() {
	_p=${1:-$DEV}
	[ -c "$_p" ] && [ "$(stat -c %t "$_p")" = a ]
}

# weight FILE PATTERN: the sum of the counts (last field) of the folded
# stack lines of FILE matching PATTERN.
weight() {
	awk -v p="$2" '$0 ~ p { s += $NF } END { printf "%.0f\n", s }' "$1"
}

# SYSCALL_ENTRY_RE: an ERE of the kernel functions every syscall's kernel
# callchain passes through (x86-64: entry_SYSCALL_64 -> do_syscall_64;
# arm64: el0t_64_sync -> el0t_64_sync_handler -> el0_svc -> do_el0_svc).
SYSCALL_ENTRY_RE='do_syscall_64|entry_SYSCALL|el0t_64_sync|el0_svc|do_el0_svc'

# now_ns: wall time in ns (date +%s%N; the arm64 guest's busybox date has
# no %N: /proc/uptime then, to 10 ms)
now_ns() {
	case $(date +%N 2>/dev/null) in
	''|*N*) awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime ;;
	*) date +%s%N ;;
	esac
}

# has_hw_pmu: load the module; true when pmuctx info says hw-pmu (a
# hardware PMU perf can open events on: the arm64 tier's PMUv3).
has_hw_pmu() {
	mod_load 2>/dev/null || true
	"$CLI" info | grep -q 'features:.* hw-pmu'
}

# need_hw_pmu: load the module; skip the whole case (its plan 1..0, exit
# 0) in a guest without a hardware PMU (pmuctx info has no hw-pmu: the
# x86-64 TCG guest; the arm64 tier has one).
need_hw_pmu() {
	if ! has_hw_pmu; then
		echo "1..0 # SKIP no hardware PMU in this guest (pmuctx info has no hw-pmu; the arm64 tier has one)"
		exit 0
	fi
}

# need_icount: skip the whole case unless QEMU runs with -icount
# (PMUCTX_VM_ICOUNT): its PMUv3 counts instructions only then.
need_icount() {
	if [ -z "${PMUCTX_VM_ICOUNT:-}" ]; then
		echo "1..0 # SKIP QEMU's PMUv3 counts instructions only under -icount (PMUCTX_VM_ICOUNT=0 make check-arm64)"
		exit 0
	fi
}

# stat_field FILE EVENT: the value of EVENT (third column; "cpu-EVENT"
# too, as perf names cycles) in a pmuctx stat -x, file; empty if none.
stat_field() {
	[ -f "$1" ] || return 0
	awk -F, -v e="$2" '$3 == e || $3 == "cpu-" e { print $1; exit }' "$1"
}

# ref_field FILE EVENT: the count of EVENT in tests/progs/hwcount's output
# ("EVENT COUNT" lines); empty if none.
ref_field() {
	[ -f "$1" ] || return 0
	awk -v e="$2" '$1 == e { print $2; exit }' "$1"
}

# NOUSER: the kernel paths whose samples cannot have a user stack, by
# design: exit_group() never returns to user space, and an execve()'s
# stack belongs to the old program (its deferred cookie stays unresolved).
# On a slow kernel (KASAN) they are a good part of a short recording.
NOUSER='do_group_exit|do_exit|__x64_sys_exit_group|__x64_sys_execve|do_execveat_common|bprm_execve'

# weight_nouser FOLDED [COMM-PATTERN]: samples of those paths, or of the
# lines that match COMM-PATTERN too.
weight_nouser() {
	grep -E "$NOUSER" "$1" | awk -v p="${2:-.}" '$0 ~ p { s += $NF } END { printf "%.0f\n", s }'
}

# weight_user FOLDED PATTERN: weight() of the lines outside those paths,
# and outside the dynamic loader (ld.so's start-up, before main: slow on a
# debug kernel, and rightly without main;...).
LOADER=';_start;_dl_|;_dl_[a-z_]*( |;|$)|;_dl_start'
weight_user() {
	grep -vE "$NOUSER" "$1" | grep -vE "$LOADER" |
		awk -v p="$2" '$0 ~ p { s += $NF } END { printf "%.0f\n", s }'
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	_t=$(($1 * 10)); shift
	while [ "$_t" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

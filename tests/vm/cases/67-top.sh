#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# pmuctx top: rounds of a system-wide (or one process's) profile, as
# perf top --stdio.  While tests/progs/burn burns CPU:
#  - root: `pmuctx top -n 2 -d 1` prints two rounds, each a heading and
#    table lines, and burn is in them;
#  - `pmuctx top -p BURN -n 1 -d 1`: every line of the table is burn's;
#  - unprivileged at perf_event_paranoid 2, `-a` cannot record: exit 1
#    with record's message, no table;
#  - usage errors exit 2.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

BURN=tests/progs/burn
need_exec "$CLI" || exit 1
need_exec "$BURN" || exit 1
mod_load

"$BURN" --ms 60000 2>/dev/null &
bp=$!
trap 'kill "$bp" 2>/dev/null || true' EXIT

check "$CLI" top -n 2 -d 1 -E 10 -- "root: pmuctx top -n 2 -d 1"
last_ok || diag_out "$CHECK_OUT"
rounds=$(printf '%s\n' "$CHECK_OUT" | grep -c '^pmuctx top: round ' || true)
if [ "$rounds" = 2 ]; then
	ok "two rounds, each under its heading"
else
	not_ok "two rounds, each under its heading ($rounds)"
	diag_out "$CHECK_OUT"
fi
if printf '%s\n' "$CHECK_OUT" | grep -v '^pmuctx top: ' | grep -q '%.*burn'; then
	ok "the busy process is in the tables"
else
	not_ok "the busy process is in the tables"
	diag_out "$CHECK_OUT"
fi
# only the heading and the table's rows: no header, no per-task summary
other=$(printf '%s\n' "$CHECK_OUT" | grep -v '^pmuctx top: ' | grep -v '^$' |
	grep -vE '^ *[0-9.]+%' || true)
if [ -z "$other" ]; then
	ok "only headings and table rows"
else
	not_ok "only headings and table rows"
	diag_out "$other"
fi

check "$CLI" top -p "$bp" -n 1 -d 1 -E 10 -- "root: pmuctx top -p BURN -n 1 -d 1"
rows=$(printf '%s\n' "$CHECK_OUT" | grep '%' | grep -v '^pmuctx top: ' || true)
if [ -n "$rows" ] && ! printf '%s\n' "$rows" | grep -qv 'burn'; then
	ok "-p: every line of the table is burn's ($(printf '%s\n' "$rows" | wc -l) lines)"
else
	not_ok "-p: every line of the table is burn's"
	diag_out "$CHECK_OUT"
fi

old_par=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
chgrp 4242 "$DEV"
chmod 0660 "$DEV"
expect_fail as_user 65534 65534 4242 "$CLI" top -a -n 1 -d 1 -- \
	"unprivileged at paranoid 2: top -a cannot record"
echo "$old_par" >/proc/sys/kernel/perf_event_paranoid
if [ "$CHECK_RC" = 1 ] && printf '%s\n' "$CHECK_OUT" | grep -q '^pmuctx record: ' &&
   ! printf '%s\n' "$CHECK_OUT" | grep -q '^pmuctx top: round '; then
	ok "... exit 1, record's message, no table"
else
	not_ok "... exit 1, record's message, no table (exit $CHECK_RC)"
	diag_out "$CHECK_OUT"
fi

expect_fail "$CLI" top -n 0 -- "top -n 0 is a usage error"
if [ "$CHECK_RC" = 2 ]; then ok "... exit 2"; else not_ok "... exit 2 ($CHECK_RC)"; fi

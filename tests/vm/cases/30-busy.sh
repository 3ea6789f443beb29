#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An open /dev/pmuctx pins the module: rmmod fails while a file descriptor
# is open, the module keeps working, and rmmod succeeds once it is closed.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

need_exec "$CLI" || exit 1
mod_load 2>/dev/null || true
require is_misc_dev "$DEV" -- "$DEV exists with the module loaded"

# A holder process with fd 3 open on the device, detached from our stdout.
sleep 600 3<"$DEV" >/dev/null 2>&1 &
holder=$!
cleanup() { kill "$holder" 2>/dev/null || true; }
trap cleanup EXIT

holds() { [ "$(readlink "/proc/$holder/fd/3" 2>/dev/null)" = "$DEV" ]; }
require wait_for 10 holds -- "a process holds $DEV open (pid $holder, fd 3)"

refs=$(awk -v m="$MODNAME" '$1 == m { print $3 }' /proc/modules)
if [ "${refs:-0}" -ge 1 ]; then
	ok "the module's reference count is $refs while the device is open"
else
	not_ok "the module's reference count is >= 1 while the device is open (${refs:-none})"
fi
expect_fail rmmod "$MODNAME" -- "rmmod fails while $DEV is open"
if printf '%s\n' "$CHECK_OUT" | grep -qi 'in use'; then
	ok "rmmod says the module is in use"
else
	not_ok "rmmod says the module is in use"
	diag_out "$CHECK_OUT"
fi
check mod_loaded -- "the module is still loaded"
check is_misc_dev "$DEV" -- "$DEV still exists"
check "$CLI" info -- "pmuctx info still works while the device is held"

kill "$holder"
wait "$holder" 2>/dev/null || true
trap - EXIT
gone() { [ ! -d "/proc/$holder" ]; }
check wait_for 10 gone -- "the holder exited"
check rmmod "$MODNAME" -- "rmmod succeeds once the device is closed"
check test ! -e "$DEV" -- "$DEV is gone"
check insmod "$MODULE" -- "insmod again"
check "$CLI" info -- "pmuctx info works after the reload"

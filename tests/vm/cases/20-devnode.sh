#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Device node permissions as the udev rule sets them (group pmuctx, here
# gid 4242, mode 0660): a member of the group can use the device, anyone
# else is refused with a message naming the group and CAP_PERFMON, and
# without the module the CLI says it is not loaded and how to load it.
set -eu
# shellcheck source=SCRIPTDIR/../lib.sh
. "${0%/*}/../lib.sh"

GID=4242
NOBODY=65534
# The message must name the group: "group pmuctx", "pmuctx group",
# "group 'pmuctx'" ... ("/dev/pmuctx" and the "pmuctx:" prefix do not count).
GROUP_RE="group[[:space:]\"'\`]+pmuctx|pmuctx[[:space:]\"'\`]+group"

need_exec "$CLI" || exit 1
mod_load 2>/dev/null || true
require is_misc_dev "$DEV" -- "$DEV exists with the module loaded"

# Emulate udev/rules.d: group pmuctx, mode 0660.
check chgrp "$GID" "$DEV" -- "chgrp $GID $DEV"
check chmod 0660 "$DEV" -- "chmod 0660 $DEV"
cli=$(user_exec "$CLI")

# A member of the group.
check as_user "$NOBODY" "$NOBODY" "$GID" sh -c ": <$DEV" -- \
	"uid $NOBODY in group $GID can open $DEV"
check as_user "$NOBODY" "$NOBODY" "$GID" "$cli" info -- \
	"uid $NOBODY in group $GID: pmuctx info succeeds"
if last_ok; then
	text_has "$CHECK_OUT" -i 'ABI version' \
		"pmuctx info as a group member prints the ABI version"
fi
# the limits a group member runs into, from the module's parameters
if last_ok; then
	budget=$(cat /sys/module/pmuctx/parameters/sample_budget 2>/dev/null || echo none)
	if printf '%s\n' "$CHECK_OUT" | grep -q "^  sample_budget  *[0-9,]* samples/s" &&
	   printf '%s\n' "$CHECK_OUT" | tr -d , |
		grep -q "^  sample_budget  *$budget " &&
	   printf '%s\n' "$CHECK_OUT" | grep -q "^  max_sessions_per_user "; then
		ok "pmuctx info shows the limits (sample_budget $budget)"
	else
		not_ok "pmuctx info shows the limits (sample_budget $budget)"
		diag_out "$CHECK_OUT"
	fi
fi

# Not a member.
expect_fail as_user "$NOBODY" "$NOBODY" - sh -c ": <$DEV" -- \
	"uid $NOBODY outside group $GID cannot open $DEV"
expect_fail as_user "$NOBODY" "$NOBODY" - "$cli" info -- \
	"uid $NOBODY outside group $GID: pmuctx info fails"
msg=$CHECK_OUT
text_has "$msg" -iE "$GROUP_RE" "the refusal names the group pmuctx"
text_has "$msg" -i 'CAP_PERFMON' "the refusal mentions CAP_PERFMON"
# Another group does not help either.
expect_fail as_user "$NOBODY" "$NOBODY" 4243 sh -c ": <$DEV" -- \
	"uid $NOBODY in another group (4243) cannot open $DEV"

# Without the module.
check mod_unload -- "rmmod $MODNAME"
check test ! -e "$DEV" -- "$DEV is gone after rmmod"
expect_fail "$CLI" info -- "pmuctx info fails without the module"
msg=$CHECK_OUT
text_has "$msg" -iE 'not loaded' "the message says the module is not loaded"
text_has "$msg" "" 'modprobe pmuctx' "the message mentions 'modprobe pmuctx'"

# Reload: the node comes back with the module's defaults.
check insmod "$MODULE" -- "insmod again"
if [ "$(stat -c '%a %u %g' "$DEV" 2>/dev/null)" = "660 0 0" ]; then
	ok "$DEV is back as 0660 root:root"
else
	not_ok "$DEV is back as 0660 root:root"
	diag_out "$(ls -l "$DEV" 2>&1)"
fi
check "$CLI" info -- "pmuctx info works as root after the reload"

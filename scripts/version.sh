#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the pmuctx version.  The one source of truth is PACKAGE_VERSION in
# dkms.conf (a DKMS build directory has no .git, so nothing may depend on git).
#
# Usage: scripts/version.sh          0.1.0
#        scripts/version.sh --long   0.1.0, plus "+g<commit>" in a git work
#                                    tree and ".dirty" with local changes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
v=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top/dkms.conf")
[ -n "$v" ] || { echo "version.sh: no PACKAGE_VERSION in $top/dkms.conf" >&2; exit 1; }
if [ "${1:-}" = --long ] && command -v git >/dev/null 2>&1 &&
   git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	c=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || true)
	[ -n "$c" ] && v="$v+g$c"
	if [ -n "$c" ] && ! git -C "$top" diff --quiet HEAD -- 2>/dev/null; then
		v="$v.dirty"
	fi
fi
echo "$v"

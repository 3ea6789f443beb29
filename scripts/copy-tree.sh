#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/copy-tree.sh DEST - copy the source tree into DEST (made if
# needed) for a package build: the tracked and untracked files git does
# not ignore, no build products, no .git; outside git, the tree without
# build products (tar excludes).  Used by scripts/check-packages.sh and
# scripts/check-packages-arm64.sh.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: scripts/copy-tree.sh DEST" >&2; exit 2; }
dest=$1
cd "$(dirname "$0")/.."
mkdir -p "$dest"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		(while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
		tar --null -T - -cf - | tar -C "$dest" -xf -
else
	tar -cf - --exclude=.git --exclude=./module-debug \
		--exclude='*.o' --exclude='*.ko' --exclude='*.a' \
		--exclude='*.so' --exclude='*.so.*' --exclude=.stage --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='.*.d' --exclude='*.d' \
		--exclude=Module.symvers --exclude=modules.order . | tar -C "$dest" -xf -
fi

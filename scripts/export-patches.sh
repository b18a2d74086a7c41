#!/bin/bash
# Write the commits pristine..series of build/linux back to patches/ and
# rewrite patches/series.  The cover letter (0000-cover-letter.patch) is
# kept as it is: it is edited by hand in patches/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${BUILD:-$top/build}/linux
tmp=$(mktemp -d)
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$tmp" pristine..series
find "$top/patches" -maxdepth 1 -name '0*.patch' ! -name '0000-*' -delete
cp "$tmp"/*.patch "$top/patches/"
{
	echo "# Patch series against linux-source-6.12, applied in order by scripts/prepare-tree.sh"
	(cd "$top/patches" && ls 0*.patch | grep -v '^0000-')
} > "$top/patches/series"
rm -rf "$tmp"
git -C "$tree" config ple.applied-head "$(git -C "$tree" rev-parse series)"
echo "[export] $(grep -c '^0' "$top/patches/series") patches written to patches/"

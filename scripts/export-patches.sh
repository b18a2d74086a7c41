#!/bin/bash
# Write the commits pristine..series of build/linux back to patches/ and
# rewrite patches/series.  The cover letter (0000-cover-letter.patch) is
# kept as it is: it is edited by hand in patches/.
#
# Two series: patches/ is what would be mailed; patches/bench/ is what only
# the benchmark needs (measurement switches, extra counters, benchmark
# programs), applied on top by scripts/prepare-tree.sh.  The bench commits
# come last on the branch: the first commit whose patch name (without its
# number) is listed in patches/bench/series starts them, and every commit
# after it goes to patches/bench/ too.  So a new bench patch is a commit at
# the end of the branch, a new mailed one a commit before the first bench one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${BUILD:-$top/build}/linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip_number() { sed 's/^[0-9]*-//'; }

bench_names=$(awk '!/^#/ && NF { print $1 }' "$top/patches/bench/series" 2>/dev/null | strip_number)
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$tmp/all" pristine..series
n=0 split=
for f in $(cd "$tmp/all" && ls); do
	n=$((n + 1))
	if [ -z "$split" ] && echo "$bench_names" | grep -qxF "$(echo "$f" | strip_number)"; then
		split=$n
	fi
done
total=$n
[ -n "$split" ] || split=$((total + 1))
mail_end=$(git -C "$tree" rev-parse "series~$((total - split + 1))")

write() {  # write(range, folder, series header)
	local range=$1 dir=$2 header=$3
	rm -rf "$tmp/out"
	git -C "$tree" format-patch -q --no-signature --zero-commit -o "$tmp/out" "$range"
	find "$dir" -maxdepth 1 -name '0*.patch' ! -name '0000-*' -delete
	find "$tmp/out" -name '0*.patch' -exec cp {} "$dir/" \; 2>/dev/null || true
	{
		echo "$header"
		(cd "$dir" && ls 0*.patch 2>/dev/null | grep -v '^0000-' || true)
	} > "$dir/series"
}
mkdir -p "$top/patches/bench"
write "pristine..$mail_end" "$top/patches" \
	"# Patch series against linux-source-6.12, applied in order by scripts/prepare-tree.sh"
write "$mail_end..series" "$top/patches/bench" \
	"# Measurement only, applied by scripts/prepare-tree.sh on top of patches/series: not for mailing"
git -C "$tree" config ple.applied-head "$(git -C "$tree" rev-parse series)"
echo "[export] $((split - 1)) patches written to patches/, $((total - split + 1)) to patches/bench/"

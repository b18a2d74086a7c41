#!/bin/bash
# Write the commits pristine..series of build/linux back to patches/ and
# rewrite the series files.  The cover letter (0000-cover-letter.patch) is
# kept as it is: it is edited by hand in patches/.
#
# Three series, in this order on the branch:
#  - patches/stable/: fixes of 6.12 itself that go to stable on their own,
#    before the RFC (today the avg_vruntime() backport);
#  - patches/: the RFC, what would be mailed;
#  - patches/bench/: what only the benchmark needs (measurement switches,
#    extra counters, benchmark programs), never mailed.
# scripts/prepare-tree.sh applies them in that order.  A commit belongs to
# stable/ or bench/ when its patch name (without its number) is listed in
# that folder's series file; the stable ones must come first and the bench
# ones last, so a new bench patch is a commit at the end of the branch and
# a new mailed one a commit before the first bench one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${BUILD:-$top/build}/linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip_number() { sed 's/^[0-9]*-//'; }
names_in() { awk '!/^#/ && NF { print $1 }' "$top/patches/$1/series" 2>/dev/null | strip_number; }

stable_names=$(names_in stable)
bench_names=$(names_in bench)
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$tmp/all" pristine..series
# Where each commit goes, in branch order: s(table), m(ail) or b(ench).
kinds=
for f in $(cd "$tmp/all" && ls); do
	name=$(echo "$f" | strip_number)
	if echo "$stable_names" | grep -qxF "$name"; then kinds+=s
	elif echo "$bench_names" | grep -qxF "$name"; then kinds+=b
	else kinds+=m
	fi
done
if ! [[ $kinds =~ ^s*m*b*$ ]]; then
	echo "[export] stable patches must come first and bench patches last on the branch ($kinds)" >&2
	exit 1
fi
total=${#kinds}
n_stable=$(echo "$kinds" | tr -cd s | wc -c)
n_bench=$(echo "$kinds" | tr -cd b | wc -c)
n_mail=$((total - n_stable - n_bench))
stable_end=$(git -C "$tree" rev-parse "series~$((total - n_stable))")
mail_end=$(git -C "$tree" rev-parse "series~$n_bench")

write() {  # write(range, folder, series header)
	local range=$1 dir=$2 header=$3
	rm -rf "$tmp/out"
	mkdir -p "$dir"
	git -C "$tree" format-patch -q --no-signature --zero-commit -o "$tmp/out" "$range"
	find "$dir" -maxdepth 1 -name '0*.patch' ! -name '0000-*' -delete
	find "$tmp/out" -name '0*.patch' -exec cp {} "$dir/" \; 2>/dev/null || true
	{
		echo "$header"
		(cd "$dir" && ls 0*.patch 2>/dev/null | grep -v '^0000-' || true)
	} > "$dir/series"
}
write "pristine..$stable_end" "$top/patches/stable" \
	"# Fixes of 6.12 for stable, applied by scripts/prepare-tree.sh before patches/series"
write "$stable_end..$mail_end" "$top/patches" \
	"# Patch series against linux-source-6.12, applied in order by scripts/prepare-tree.sh"
write "$mail_end..series" "$top/patches/bench" \
	"# Measurement only, applied by scripts/prepare-tree.sh on top of patches/series: not for mailing"
git -C "$tree" config ple.applied-head "$(git -C "$tree" rev-parse series)"
echo "[export] $n_stable patches written to patches/stable/, $n_mail to patches/, $n_bench to patches/bench/"

#!/bin/bash
# Extract Debian's linux-source-6.12 into build/linux as a git repository
# whose first commit is the pristine tree (tag "pristine"), then make its
# checkout match pristine + patches/series.
#
# MAILED=1 applies only what would be mailed (patches/stable/ and patches/,
# without the measurement series patches/bench/): make check-mailed uses it
# in its own build folder.
#
# The series is applied with git am in a scratch worktree (build/series) and
# the main tree is then moved to the result with git checkout, so only the
# files whose content changed get a new mtime: a second run after editing
# one patch rebuilds only what that patch touches.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tree=$build/linux
scratch=$build/series
tarball=$(dpkg -L linux-source-6.12 | grep -m1 '/linux-source-6.12\.tar\.xz$')
git_id=(-c user.name="ple-harness" -c user.email="ple-harness@localhost")

say() { echo "[prepare] $*"; }

mkdir -p "$build"
if [ ! -e "$tree/.git/refs/tags/pristine" ]; then
	rm -rf "$tree" "$scratch" "$build/linux.tmp"
	say "extracting $(basename "$tarball") (about 15 s)"
	mkdir -p "$build/linux.tmp"
	tar -C "$build/linux.tmp" --strip-components=1 -xf "$tarball"
	say "making pristine git repository"
	git -C "$build/linux.tmp" init -q -b pristine-branch
	git -C "$build/linux.tmp" add -A -f .
	git -C "$build/linux.tmp" "${git_id[@]}" commit -q -m \
		"pristine $(make -s -C "$build/linux.tmp" kernelversion) from $(basename "$tarball")"
	git -C "$build/linux.tmp" tag pristine
	mv "$build/linux.tmp" "$tree"
fi

# What the series should produce; skip all work when it is already applied.
patch_list() { "$top/scripts/patch-list.sh" $([ "${MAILED:-0}" = 1 ] && echo --mailed); }
series_id=$(patch_list | while read -r p; do cat "$top/patches/$p"; done | sha1sum | cut -c1-40)
if [ "$(git -C "$tree" config --get ple.series-id || true)" = "$series_id" ] &&
   [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
	say "series already applied ($(git -C "$tree" rev-list --count pristine..HEAD) patches)"
	exit 0
fi

applied=$(git -C "$tree" config --get ple.applied-head || echo none)
if [ "$applied" != none ] && [ "$(git -C "$tree" rev-parse HEAD)" != "$applied" ] && [ "${FORCE:-0}" != 1 ]; then
	echo "[prepare] $tree has commits that are not in patches/; run" >&2
	echo "[prepare] 'make export-patches' first, or rerun with FORCE=1 to drop them" >&2
	exit 1
fi
if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ] && [ "${FORCE:-0}" != 1 ]; then
	echo "[prepare] $tree has uncommitted changes; commit them and run" >&2
	echo "[prepare] 'make export-patches', or rerun with FORCE=1 to drop them" >&2
	exit 1
fi

if [ ! -e "$scratch/.git" ]; then
	say "creating scratch worktree for git am"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$scratch" pristine
fi
git -C "$scratch" am --abort >/dev/null 2>&1 || true
git -C "$scratch" checkout -q -f --detach pristine
n=0
for p in $(patch_list); do
	if ! git -C "$scratch" "${git_id[@]}" am -q --keep-cr "$top/patches/$p"; then
		echo "[prepare] patch $p does not apply" >&2
		git -C "$scratch" am --abort || true
		exit 1
	fi
	n=$((n + 1))
done
head=$(git -C "$scratch" rev-parse HEAD)
git -C "$scratch" checkout -q --detach pristine
git -C "$tree" checkout -q -f -B series "$head"
git -C "$tree" config ple.series-id "$series_id"
git -C "$tree" config ple.applied-head "$head"
say "applied $n patches onto pristine"

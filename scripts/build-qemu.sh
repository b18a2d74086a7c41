#!/bin/bash
# Build the QEMU that the tests boot: Debian's qemu source package (the
# version of the installed qemu-system-x86) plus qemu/patches/series, x86_64
# system emulator with TCG only, in build/qemu.  The source is a git
# repository whose tag "pristine" is Debian's tree with Debian's own patches
# applied; our patches are applied on top with git am, so only the files they
# touch change and ninja rebuilds only those.  Nothing is done when the
# binary is up to date with the patches.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
dir=$build/qemu
src=$dir/src
obj=$dir/obj
git_id=(-c user.name="ple-harness" -c user.email="ple-harness@localhost")
configure_flags=(--target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-slirp --enable-fdt=system --disable-docs
	--disable-tools --disable-user --disable-install-blobs
	--with-git-submodules=ignore --disable-werror)

say() { echo "[qemu] $*"; }

patch_list() { awk '!/^#/ && NF { print $1 }' "$top/qemu/patches/series"; }
version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
series_id=$( (echo "$version ${configure_flags[*]}"; patch_list |
	while read -r p; do cat "$top/qemu/patches/$p"; done) | sha1sum | cut -c1-40)
if [ -x "$obj/qemu-system-x86_64" ] && [ "$(cat "$dir/built-id" 2>/dev/null)" = "$series_id" ]; then
	say "up to date ($version + $(patch_list | wc -l) patches)"
	exit 0
fi

# Debian's source package needs deb-src entries; derive them from the
# configured deb822 sources when there are none.
srcinfo=$(apt-cache showsrc qemu 2>/dev/null || true)
if ! grep -q '^Version:' <<<"$srcinfo"; then
	say "adding deb-src entries for the configured suites"
	list=$(mktemp)
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] && grep -Eq '^Types:(.* )?deb( |$)' "$f" || continue
		sed -e 's/^Types:.*/Types: deb-src/' "$f"
		echo
	done > "$list"
	mv "$list" /etc/apt/sources.list.d/ple-harness-deb-src.sources
	chmod 644 /etc/apt/sources.list.d/ple-harness-deb-src.sources
	if [ -e /etc/apt/sources.list ]; then
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
			> /etc/apt/sources.list.d/ple-harness-deb-src.list
	fi
	apt-get update -q >/dev/null
fi

if [ "$(cat "$dir/source-version" 2>/dev/null)" != "$version" ] ||
   [ ! -e "$src/.git/refs/tags/pristine" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/download"
	say "fetching and unpacking qemu $version (Debian source package)"
	(cd "$dir/download" && apt-get source -q --download-only "qemu=${version#*:}" >/dev/null 2>&1 ||
	 apt-get source -q --download-only "qemu=$version" >/dev/null)
	dpkg-source -x "$dir"/download/qemu_*.dsc "$dir/src.tmp" >/dev/null
	git -C "$dir/src.tmp" init -q -b patched
	git -C "$dir/src.tmp" add -A -f .
	git -C "$dir/src.tmp" "${git_id[@]}" commit -q -m "qemu $version (Debian source package)"
	git -C "$dir/src.tmp" tag pristine
	mv "$dir/src.tmp" "$src"
	echo "$version" > "$dir/source-version"
fi

# Move the tree to pristine + our patches.  Files the old and new series
# leave alone keep their mtime.
git -C "$src" am --abort >/dev/null 2>&1 || true
git -C "$src" checkout -q -f -B patched pristine
for p in $(patch_list); do
	if ! git -C "$src" "${git_id[@]}" am -q "$top/qemu/patches/$p"; then
		echo "[qemu] patch $p does not apply" >&2
		git -C "$src" am --abort || true
		exit 1
	fi
done

if [ "$(cat "$dir/configured" 2>/dev/null)" != "${configure_flags[*]}" ]; then
	say "configuring"
	rm -rf "$obj" && mkdir -p "$obj"
	(cd "$obj" && "$src/configure" "${configure_flags[@]}" >"$dir/configure.log" 2>&1) || {
		tail -20 "$dir/configure.log" >&2
		exit 1
	}
	echo "${configure_flags[*]}" > "$dir/configured"
fi

say "building qemu-system-x86_64 (log: $dir/build.log; about 15 minutes from scratch on 2 CPUs)"
start=$(date +%s)
if ! ninja -C "$obj" qemu-system-x86_64 >"$dir/build.log" 2>&1; then
	grep -E 'error|Error' "$dir/build.log" | head -20 >&2
	exit 1
fi
echo "$series_id" > "$dir/built-id"
say "qemu-system-x86_64 ready in $(($(date +%s) - start)) s"

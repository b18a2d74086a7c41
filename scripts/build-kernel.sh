#!/bin/bash
# Build bzImage for one configuration (fast or debug) out of tree:
# build/kernel-$variant.  The .config is regenerated from tinyconfig plus the
# fragments in config/, and replaced only when its content changes, so an
# unchanged configuration never triggers a full rebuild.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
variant=${1:-fast}
tree=$build/linux
out=$build/kernel-$variant
frags=("$top/config/base.config")
[ "$variant" = debug ] && frags+=("$top/config/debug.config")
[ "$variant" = gdb ] && frags+=("$top/config/gdb.config")

mkdir -p "$out"
cfg=$out/config.new
rm -rf "$out/cfg" && mkdir -p "$out/cfg"
make -s -C "$tree" O="$out/cfg" tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$out/cfg" "$out/cfg/.config" "${frags[@]}" >"$out/merge.log"
make -s -C "$tree" O="$out/cfg" olddefconfig >/dev/null
cp "$out/cfg/.config" "$cfg"
# Every fragment line must survive olddefconfig: a silently dropped option
# would make the tests pass on a kernel that lacks the feature they test.
missing=0
for f in "${frags[@]}"; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qx "$line" "$cfg" || { echo "[kernel] not set: $line" >&2; missing=1; } ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
			! grep -q "^$sym=" "$cfg" || { echo "[kernel] should be off: $sym" >&2; missing=1; } ;;
		esac
	done < "$f"
done
[ $missing = 0 ] || exit 1
if ! cmp -s "$cfg" "$out/.config"; then
	echo "[kernel] configuration ($variant) changed"
	mv "$cfg" "$out/.config"
else
	rm -f "$cfg"
fi
rm -rf "$out/cfg"

echo "[kernel] building $variant bzImage in $out (log: $out/build.log)"
start=$(date +%s)
if ! make -C "$tree" O="$out" -j"$(nproc)" bzImage >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2
	echo "[kernel] build failed, see $out/build.log" >&2
	exit 1
fi
echo "[kernel] $variant bzImage ready in $(($(date +%s) - start)) s"

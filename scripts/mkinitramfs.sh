#!/bin/bash
# Pack build/initramfs-<variant>.cpio.gz: busybox-static, l1/init, the
# static test binaries in build/tests-bin and the test lists from tests/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
root=$build/initramfs-root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,tests,usr/bin,usr/sbin}
cp /bin/busybox "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
install -m 0755 "$top/l1/init" "$root/init"
cp -a "$build/tests-bin/." "$root/tests/"
# The nested guest of nested_boot runs the fast kernel (the debug one when
# only that is built).
for v in fast debug; do
	kernel=$build/kernel-$v/arch/x86/boot/bzImage
	[ -e "$kernel" ] && { cp "$kernel" "$root/tests/bzImage"; break; }
done
cp "$top"/tests/*.list "$root/"
"$top/scripts/bench-list.sh" > "$root/bench.list"
(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$build/initramfs.cpio.gz.new"
mv "$build/initramfs.cpio.gz.new" "$build/initramfs.cpio.gz"
echo "[initramfs] $(du -h "$build/initramfs.cpio.gz" | cut -f1) with $(ls "$build/tests-bin" | wc -l) test binaries"

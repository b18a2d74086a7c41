#!/bin/bash
# Build the static test binaries that go into the initramfs, from the
# patched tree's tools/testing/selftests, into build/tests-bin.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tree=$build/linux
hdr=$build/uapi-headers
out=$build/selftests
bin=$build/tests-bin
jobs=-j$(nproc)

# KVM selftests that run in the guest: stock ones that check what the series
# touches, and the series' own.
kvm_tests="kvm_binary_stats_test x86_64/ple_spin_test x86_64/svm_pause_filter_test x86_64/ple_lock_bench"
# sched selftests (the series' own; skipped on a tree without them).
sched_tests=""
for t in sched_yield_to_test yield_to_lock_bench; do
	[ -e "$tree/tools/testing/selftests/sched/$t.c" ] && sched_tests+=" $t"
done

echo "[tests] installing uapi headers"
make -s -C "$tree" O="$build/kernel-fast" INSTALL_HDR_PATH="$hdr" headers_install >/dev/null

mkdir -p "$bin"
kvm_targets=""
for t in $kvm_tests; do
	[ -e "$tree/tools/testing/selftests/kvm/$t.c" ] && kvm_targets+=" $out/kvm/$t"
done
echo "[tests] building KVM selftests:$kvm_targets"
make -s -C "$tree/tools/testing/selftests/kvm" $jobs OUTPUT="$out/kvm" \
	KHDR_INCLUDES="-isystem $hdr/include" EXTRA_CFLAGS=-static $kvm_targets \
	>"$out.log" 2>&1 || { tail -30 "$out.log" >&2; exit 1; }
for t in $kvm_targets; do cp "$t" "$bin/"; done

if [ -n "$sched_tests" ]; then
	echo "[tests] building sched selftests:$sched_tests"
	mkdir -p "$out/sched"
	make -s -C "$tree/tools/testing/selftests/sched" $jobs OUTPUT="$out/sched" \
		KHDR_INCLUDES="-isystem $hdr/include" CFLAGS="-O2 -Wall -static -isystem $hdr/include" \
		$(for t in $sched_tests; do echo "$out/sched/$t"; done) \
		>>"$out.log" 2>&1 || { tail -30 "$out.log" >&2; exit 1; }
	for t in $sched_tests; do cp "$out/sched/$t" "$bin/"; done
fi
# The macro benchmark: a minimal VMM that boots the fast bzImage nested, and
# the init of that nested guest, packed into its own initramfs.
echo "[tests] building nested_boot"
gcc -O2 -Wall -static -isystem "$hdr/include" -o "$bin/nested_boot" \
	"$top/l1/nested_boot.c" -lpthread
# IGNNE# held by a user-space loop, for scripts/migrate-test.sh reset.
gcc -O2 -Wall -static -o "$bin/ignne_hold" "$top/l1/ignne_hold.c"
nested=$build/nested-root
rm -rf "$nested" && mkdir -p "$nested"/{dev,sys}
gcc -O2 -Wall -static -o "$nested/init" "$top/l2/nested_init.c"
(cd "$nested" && find . | sort | cpio -o -H newc --quiet -R 0:0) > "$bin/nested-initramfs.cpio"
# The same with Debian's dbench (and its 25 MB loadfile) and hackbench
# (rt-tests), for nested_boot -w dbench and -w hackbench, with the shared
# libraries and the dynamic loader they use, at their paths on the host; a
# second initramfs, so that the other nested rows do not unpack them.
for f in /usr/bin/dbench /usr/bin/hackbench /usr/share/dbench/client.txt \
	$(ldd /usr/bin/dbench /usr/bin/hackbench | awk '$1 ~ /^\// && NF == 2 { print $1 } $3 ~ /^\// { print $3 }' | sort -u); do
	mkdir -p "$nested$(dirname "$f")"
	cp -L "$f" "$nested$f"
done
(cd "$nested" && find . | sort | cpio -o -H newc --quiet -R 0:0) > "$bin/nested-bench-initramfs.cpio"
echo "[tests] $(ls "$bin" | wc -l) files in $bin"

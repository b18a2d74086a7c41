#!/bin/bash
# Boot build/kernel-<variant> with the initramfs under QEMU TCG, 2 vCPUs,
# with the QEMU that scripts/build-qemu.sh builds: its emulated AMD SVM has
# the pause filter (qemu/patches), so the nested guests' PAUSE loops exit
# to kvm_vcpu_on_spin() after a window of PAUSEs, as on hardware.  The
# serial console goes to LOG; BEGIN/END markers are echoed as progress lines.
# QEMU=system boots Debian's unpatched QEMU instead, which can only be made
# to intercept PAUSE with x-force-features, and then exits on every PAUSE;
# QEMU=PATH boots another build of it (to reproduce a fixed emulator bug).
# QEMU_ARGS="..." adds options to QEMU's command line (split at blanks: a
# monitor on a pipe, -incoming; scripts/migrate-test.sh).
# usage: boot.sh VARIANT MODE LOG TIMEOUT_SECONDS [extra kernel args]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
variant=$1 mode=$2 log=$3 tmo=$4
shift 4
mem=2G
[ "$variant" = debug ] && mem=4G
if [ "${QEMU:-}" = system ]; then
	qemu=(qemu-system-x86_64 -cpu max,+pause-filter,+pfthreshold,x-force-features=on)
elif [ -n "${QEMU:-}" ]; then
	qemu=("$QEMU" -cpu max)
else
	qemu=("$build/qemu/obj/qemu-system-x86_64" -cpu max)
fi
# L1's pause filter, scaled to the emulator (qemu/README.md, "The pause
# filter"): a PAUSE of a nested guest takes about 40 ns here, so a window
# of 420 PAUSEs (17 us, growing 22-fold to 9240) is about the same fraction
# of L1's 1.4 ms base slice as hardware's 3000 (growing to 65535) is of
# its slice; PAUSEs more than 1200 TSC cycles apart (14 PAUSE latencies
# here, hardware's 128 is 1 to 13, and 4 times the 99th percentile of a
# PAUSE loop's gaps) start a new loop.
ple="kvm_amd.pause_filter_count=420 kvm_amd.pause_filter_thresh=1200 kvm_amd.pause_filter_count_max=9240"
echo "[boot] $variant kernel, mode=$mode, console log: $log"
start=$(date +%s)
timeout --kill-after=10 "$tmo" "${qemu[@]}" \
	-L /usr/share/seabios -L /usr/share/qemu -L /usr/lib/ipxe/qemu \
	-accel tcg,thread=multi -smp 2 -m "$mem" \
	-kernel "$build/kernel-$variant/arch/x86/boot/bzImage" \
	-initrd "$build/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=0 schedstats=enable $ple ple.mode=$mode $*" \
	-display none -monitor none -serial stdio -no-reboot ${QEMU_ARGS:-} </dev/null 2>&1 |
	tee "$log" | while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in
		"### BEGIN "*|"### DONE"*|"### GUEST"*|"# BENCH"*)
			echo "[boot] +$(($(date +%s) - start))s ${line#\#\#\# }" ;;
		esac
	done
rc=${PIPESTATUS[0]}
[ "$rc" = 124 ] && echo "[boot] TIMEOUT after $tmo s" | tee -a "$log"
echo "[boot] qemu exited ($rc) after $(($(date +%s) - start)) s"
exit 0

#!/bin/bash
# Boot build/kernel-<variant> with the initramfs under QEMU TCG, 2 vCPUs, an
# AMD CPU model whose SVM has the pause filter (so the nested guests' PAUSE is
# intercepted and reaches kvm_vcpu_on_spin()).  The serial console goes to
# LOG; BEGIN/END markers are echoed as progress lines.
# QEMU_TCG_THREAD=single runs both CPUs on one host thread: QEMU 7.2's
# multi-threaded TCG has delivered timer interrupts to this kernel with
# RFLAGS.IF=0 under the interrupt rate of the 100 us sleep policy, which
# deadlocks the guest on its own runqueue lock (results/sleep-hang-irq-with-if0.txt).
# usage: boot.sh VARIANT MODE LOG TIMEOUT_SECONDS [extra kernel args]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
variant=$1 mode=$2 log=$3 tmo=$4
shift 4
mem=2G
[ "$variant" = debug ] && mem=4G
thread=${QEMU_TCG_THREAD:-multi}
echo "[boot] $variant kernel, mode=$mode, TCG thread=$thread, console log: $log"
start=$(date +%s)
timeout --kill-after=10 "$tmo" qemu-system-x86_64 \
	-accel tcg,thread=$thread -smp 2 -m "$mem" \
	-cpu max,+pause-filter,+pfthreshold,x-force-features=on \
	-kernel "$build/kernel-$variant/arch/x86/boot/bzImage" \
	-initrd "$build/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=0 schedstats=enable kvm_amd.npt=0 ple.mode=$mode $*" \
	-display none -monitor none -serial stdio -no-reboot </dev/null 2>&1 |
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

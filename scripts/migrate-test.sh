#!/bin/bash
# Issue 31: the emulator's SVM state across a migration and a reset, read in
# the saved stream with QEMU's own scripts/analyze-migration.py.  L1 boots
# with a monitor on a pipe; the host stops it, saves it to a file (HMP
# "migrate" to exec:cat) and looks inside.
#
# migrate-test.sh [resume] (tests/migrate.list): after the first window,
# while two 4-vCPU nested VMs spin on their ticket locks, save L1, quit, and
# resume it in a new QEMU (-incoming).
#  - the stream has the cpu/svm_pause_filter subsection (qemu/patches/0001):
#    the stop caught a CPU inside a nested guest with its filter loaded (a
#    stop that caught both CPUs in L1 has nothing to send: then it resumes
#    for 0.3 s and stops again, at most 5 times);
#  - the resumed L1 finishes the list: both VMs stop with exact lock counts,
#    no splat, TSC kept (scripts/collect-results.sh over the two console
#    logs, which continue each other).
# migrate-test.sh reset (tests/ignne-reset.list): while L1 holds IGNNE#
# asserted (l1/ignne_hold.c), save it, reset it (system_reset), save it
# again (qemu/patches/0002: IGNNE# is CPU 0's env->ignne, migrated as
# hflags2 bit 7, cleared by a reset):
#  - the first stream has bit 7 of CPU 0's hflags2 set (the test sees IGNNE#);
#  - the second has it clear.
# usage: migrate-test.sh [resume|reset] [DIR]  (default DIR build/migrate-KIND;
# QEMU=PATH as boot.sh, VARIANT=debug boots the debug kernel).  Writes
# DIR/host.tap (its own checks) and, for resume, DIR/console.log, for
# scripts/collect-results.sh, and ends with "N passed, N failed" over both.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
kind=${1:-resume}
variant=${VARIANT:-fast}
dir=${2:-$build/migrate-$kind}
analyze=$build/qemu/src/scripts/analyze-migration.py
case "$kind" in
resume) list=migrate ;;
reset) list=ignne-reset ;;
*) echo "usage: $0 [resume|reset] [DIR]" >&2; exit 2 ;;
esac
rm -rf "$dir" && mkdir -p "$dir"
tap=$dir/host.tap n=0 failed=0
printf '### HOST migrate-%s\n### BEGIN migrate-%s\n' "$kind" "$kind" > "$tap"
check() {	# check NAME COMMAND...: one TAP result
	local name=$1; shift
	local result=ok
	n=$((n + 1))
	"$@" || { result="not ok"; failed=1; }
	echo "$result $n $name" | tee -a "$tap"
}
# One monitor per QEMU, on a pair of FIFOs (QEMU's pipe chardev: DIR/NAME.in
# and DIR/NAME.out); what QEMU answers is appended to DIR/monitor.log.
boot() {	# boot NAME LOG [QEMU options]: scripts/boot.sh in the background
	local name=$1 log=$2
	shift 2
	mkfifo "$dir/$name.in" "$dir/$name.out"
	QEMU_ARGS="-monitor pipe:$dir/$name $*" \
		"$top/scripts/boot.sh" "$variant" "$list" "$log" 600 &
	booted=$!
	cat "$dir/$name.out" >> "$dir/monitor.log" &
	exec 3> "$dir/$name.in"
}
hmp() { echo "$*" >&3; }
wait_for() {	# wait_for FILE PATTERN SECONDS
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -aq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
migration() {	# migration HMP-COMMAND: run it, wait for the end; 0 if completed
	: > "$dir/monitor.log"
	hmp "$1"
	for i in $(seq 600); do
		hmp "info migrate"
		sleep 0.5
		grep -aq 'Migration status: \(completed\|failed\)' "$dir/monitor.log" && break
	done
	grep -aq 'Migration status: completed' "$dir/monitor.log"
}
save() {	# save FILE: migrate the stopped machine to FILE; 0 if completed
	migration "migrate \"exec:cat > $1\""
}
has_filter_state() {	# the description of stream $1 has the subsection
	python3 "$analyze" -d desc -f "$1" > "$1.desc.json" 2>> "$dir/analyze.err" &&
		grep -q '"cpu/svm_pause_filter"' "$1.desc.json"
}
ignne_of() {	# print bit 7 (IGNNE#) of the first CPU's hflags2 in stream $1
	python3 "$analyze" -d state -f "$1" > "$1.state.json" 2>> "$dir/analyze.err" &&
	python3 -c '
import json, sys
state = json.load(open(sys.argv[1]))
cpus = [v for k, v in state.items() if k.startswith("cpu (")]
print((int(cpus[0]["env.hflags2"], 16) >> 7) & 1)' "$1.state.json"
}

case "$kind" in
resume)
	boot mon1 "$dir/console-1.log"
	saved=0
	if wait_for "$dir/console-1.log" '^# BENCH row=' 300; then
		for try in 1 2 3 4 5; do
			hmp stop
			save "$dir/l1.mig" || break
			if has_filter_state "$dir/l1.mig"; then saved=1; break; fi
			echo "[migrate] stop $try caught no CPU in a nested guest; resuming for 0.3 s"
			hmp cont
			sleep 0.3
		done
	fi
	check "L1 saved with a nested vCPU's pause filter state (cpu/svm_pause_filter in the stream)" \
		[ "$saved" = 1 ]
	hmp quit
	exec 3>&-
	wait "$booted"
	if [ "$saved" = 1 ]; then
		python3 "$analyze" -d state -f "$dir/l1.mig" > "$dir/l1.mig.state.json" 2>> "$dir/analyze.err"
		grep -A4 '"cpu/svm_pause_filter"' "$dir/l1.mig.state.json" | head -20
		boot mon2 "$dir/console-2.log" -incoming defer
		# The stream records that L1 was stopped: continue it once loaded.
		migration "migrate_incoming \"exec:cat $dir/l1.mig\""
		hmp cont
		wait "$booted"
		exec 3>&-
	fi
	cat "$dir"/console-*.log > "$dir/console.log"
	;;
reset)
	# -no-reboot (boot.sh) would turn system_reset into a shutdown.
	boot mon1 "$dir/console-1.log" -action reboot=reset
	before=none after=none
	if wait_for "$dir/console-1.log" 'ignne_hold: IGNNE asserted' 120; then
		sleep 1
		hmp stop
		save "$dir/before-reset.mig" && before=$(ignne_of "$dir/before-reset.mig")
		hmp system_reset
		sleep 1
		save "$dir/after-reset.mig" && after=$(ignne_of "$dir/after-reset.mig")
	fi
	echo "# IGNNE# in CPU 0's hflags2: $before before the reset, $after after it"
	check "IGNNE# asserted by L1 is in the saved state (hflags2 bit 7 of CPU 0)" [ "$before" = 1 ]
	check "a reset deasserts IGNNE# (hflags2 bit 7 of CPU 0 clear in the state saved after it)" \
		[ "$after" = 0 ]
	hmp quit
	exec 3>&-
	wait "$booted"
	;;
esac
echo "### END migrate-$kind rc=$failed" >> "$tap"
"$top/scripts/collect-results.sh" "$tap" $([ "$kind" = resume ] && echo "$dir/console.log")

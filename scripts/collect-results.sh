#!/bin/bash
# Read one or more serial console logs (one per boot) and count results:
#  - KUnit test cases (KTAP printed by the kernel, outside any section),
#  - kselftest TAP results between "### BEGIN name" and "### END name rc=N",
#  - a section that exits non-zero without a failed result, has no result,
#    or never ends, counts as one failure,
#  - "guest finished" and "kept the TSC clocksource" (per log) and "kernel
#    log has no splat" are results too (L1 marking its TSC unstable means
#    the emulated TSC ran ahead of the HPET, and L1's clock reads then all
#    go through QEMU's global lock: results/qemu-tsc-clamp.txt);
#  - a log that starts with "### HOST" (scripts/crossbuild.sh) has sections
#    and TAP results only: no guest, no kernel log.
# Prints one line per result and ends with "N passed, N failed[, N skipped]".
# Exit status 1 when anything failed.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 console.log..." >&2; exit 2; }
awk '
function result(kind, name) {
	if (kind == "PASS") pass++; else if (kind == "FAIL") fail++; else skip++
	printf "%s %s\n", kind, name
}
# The end of one boot: its last section, its timeout, its DONE line.
function end_of_log(file) {
	sub(/.*\//, "", file)
	if (sec != "") result("FAIL", sec ": never finished (guest crashed or hung)")
	if (host) { sec = ""; host = 0; return }
	if (timeout) result("FAIL", file ": QEMU timed out (guest hung or did not power off)")
	if (done) result("PASS", file ": guest finished the test list")
	else result("FAIL", file ": guest did not finish the test list")
	if (!tsc_unstable) result("PASS", file ": L1 kept the TSC clocksource")
	else result("FAIL", file ": L1 marked its TSC unstable: " tsc_unstable)
	sec = ""; timeout = 0; done = 0; tsc_unstable = ""
}
FNR == 1 && NR > 1 { end_of_log(prev) }
{
	prev = FILENAME
	sub(/\r$/, "")
	kernel = sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
}
FNR == 1 && /^### HOST/ { host = 1; next }
/^### BEGIN / { sec = $3; sec_fail = 0; sec_n = 0; next }
/^### END / {
	rc = $4; sub(/^rc=/, "", rc)
	if (rc == 124) result("FAIL", sec ": timed out")
	else if (rc == 4 && !sec_fail) { if (sec_n == 0) result("SKIP", sec ": exited with KSFT_SKIP (4)") }
	else if (rc != 0 && !sec_fail) result("FAIL", sec ": exited with status " rc)
	else if (sec_n == 0) result("FAIL", sec ": printed no TAP result")
	sec = ""; next
}
/^### DONE/ { done = 1; next }
/^\[boot\] TIMEOUT/ { timeout = 1; next }
kernel && /clocksource: +Clocksource .tsc. skewed/ && !tsc_unstable { tsc_unstable = $0; sub(/^clocksource: +/, "", tsc_unstable) }
kernel && /tsc: Marking TSC unstable/ && !tsc_unstable { tsc_unstable = $0 }
# Kernel splats, wherever they appear.
/BUG: |WARNING: |Oops|general protection fault|Kernel panic|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|soft lockup|hard LOCKUP|blocked for more than|Call Trace:/ {
	if (kernel && nsplat++ < 5) splat[nsplat] = $0
}
sec != "" && !kernel && /^(not )?ok [0-9]+/ {
	line = $0
	ok = (line !~ /^not ok/)
	sub(/^(not )?ok [0-9]+ ?(- )?/, "", line)
	name = sec ": " line
	sec_n++
	if (line ~ /# *(SKIP|skip)/) result("SKIP", name)
	else if (ok) result("PASS", name)
	else { result("FAIL", name); sec_fail++ }
	next
}
sec == "" && /^    # Subtest: / { suite = $3; suite_fail = 0; next }
sec == "" && /^    (not )?ok [0-9]+ / {
	line = $0; sub(/^    /, "", line)
	ok = (line !~ /^not ok/)
	sub(/^(not )?ok [0-9]+ /, "", line)
	name = "kunit " suite "." line
	if (line ~ /# SKIP/) result("SKIP", name)
	else if (ok) result("PASS", name)
	else { result("FAIL", name); suite_fail++ }
	next
}
sec == "" && /^not ok [0-9]+ / && !suite_fail { result("FAIL", "kunit suite " $4 " failed") }
END {
	end_of_log(prev)
	if (nsplat == 0) result("PASS", "kernel log has no splat")
	else {
		result("FAIL", "kernel log has " nsplat " splat line(s), first:")
		for (i = 1; i <= nsplat && i <= 5; i++) print "    " splat[i]
	}
	printf "%d passed, %d failed", pass, fail
	if (skip) printf ", %d skipped", skip
	printf "\n"
	exit fail > 0
}' "$@"

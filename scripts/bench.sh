#!/bin/bash
# The benchmark report: boot the fast kernel once per entry of tests/bench.list,
# then turn the "# BENCH" lines of the console log into Markdown tables
# (median, min, max over the repetitions) and a plot of throughput against
# overcommit, in build/report.md and build/report-ticket.png.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
report=$build/report.md
# REPORT_FROM=log makes the report from an earlier run's console log.
log=${REPORT_FROM:-$build/console-bench.log}
# One boot per entry of tests/bench.list, each with its own timeout: the
# emulated machine has been seen to hang outright (no lockup report) under
# the heaviest runs, and a hang must cost one entry, not the report.  A hung
# or incomplete entry is booted once more; the logs are concatenated.
if [ -z "${REPORT_FROM:-}" ]; then
	: > "$log"
	while read -r name tmo _; do
		case "$name" in ''|'#'*) continue ;; esac
		for attempt in 1 2; do
			"$top/scripts/boot.sh" fast bench \
				"$build/console-bench-$name.log" $((tmo + 120)) "ple.only=$name"
			grep -q "^### END $name rc=0" "$build/console-bench-$name.log" && break
			echo "[bench] $name did not finish (attempt $attempt)"
		done
		cat "$build/console-bench-$name.log" >> "$log"
	done < "$top/tests/bench.list"
fi
tr -d '\r' < "$log" | grep '^# BENCH ' | sed 's/^# BENCH //' > "$build/bench.data" || true
tr -d '\r' < "$log" | grep '^# BOOT ' | sed 's/^# BOOT //' > "$build/boot.data" || true
# Entries whose END line (rc=0) is missing from the log: hung or failed.
missing=""
for e in $(awk '!/^#/ && NF { print $1 }' "$top/tests/bench.list"); do
	grep -aq "^### END $e rc=0" "$log" || missing+=" $e"
done
[ -s "$build/bench.data" ] || { echo "[bench] no results in $log" >&2; exit 1; }

# For the awk scripts below: val(KEY), the value of KEY=value on a "# BENCH"
# or "# BOOT" line; sortk(ARR, KEY, N) sorts ARR[KEY, 1..N] into v[1..N].
awk_val='function val(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } }'
awk_sortk='
function sortk(arr, key, cnt,   i, j, t) {
	for (i = 1; i <= cnt; i++) v[i] = arr[key, i] + 0
	for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
}'

# table LOCKS BASELINE UNIT: one row per policy, lock and size, in log order.
# "of 1x" is the median over the median at vCPUs == CPUs, same policy and lock;
# "vs BASELINE" the median over BASELINE's median at the same lock and size.
table() {
	awk -v locks="$1" -v basepol="$2" -v unit="$3" "$awk_val$awk_sortk"'
	index(" " locks " ", " " val("lock") " ") {
		key = val("policy") " " val("lock") " " val("vcpus"); cpus[key] = val("cpus")
		n[key]++; a[key, n[key]] = val("acq_per_s"); s[key, n[key]] = val("seconds")
		ok[key] += val("spin_yield_successful"); att[key] += val("spin_yield_attempted")
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	}
	END {
		printf "| policy | lock | %s | overcommit | runs | acq/s median [min-max] | seconds median | of 1x rate | vs %s |%s\n", unit, basepol, (unit == "vCPUs" ? " yields ok/attempted |" : "")
		printf "|---|---|---|---|---|---|---|---|---|%s\n", (unit == "vCPUs" ? "---|" : "")
		for (k = 1; k <= nk; k++) { key = order[k]; sortk(a, key, n[key]); med[key] = v[int((n[key] + 1) / 2)] }
		for (k = 1; k <= nk; k++) {
			key = order[k]; split(key, p, " ")
			sortk(a, key, n[key]); lo = v[1]; hi = v[n[key]]; m = med[key]
			sortk(s, key, n[key]); ms = v[int((n[key] + 1) / 2)]
			# a "single-" row (one TCG thread) compares with its own boot
			pre = (p[1] ~ /^single-/) ? "single-" : ""
			base = p[1] " " p[2] " " cpus[key]; ref = pre basepol " " p[2] " " p[3]
			frac = (base in med) ? sprintf("%.3f", m / med[base]) : "-"
			vs = (ref in med) ? sprintf("%.2fx", m / med[ref]) : "-"
			printf "| %s | %s | %s | %.0fx | %d | %.0f [%.0f-%.0f] | %.3f | %s | %s |", p[1], p[2], p[3], p[3] / cpus[key], n[key], m, lo, hi, ms, frac, vs
			if (unit == "vCPUs") printf " %d/%d |", ok[key], att[key]
			printf "\n"
		}
	}' "$build/bench.data"
}

# boot_table: the macro benchmark, one row per policy and size: boot seconds
# median [min-max], and the stock-directed median over this one (speed-up).
boot_table() {
	awk "$awk_val$awk_sortk"'
	{
		key = val("policy") " " val("vcpus"); cpus[key] = val("cpus")
		n[key]++; s[key, n[key]] = val("seconds"); e[key, n[key]] = val("spin_loop_exits")
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	}
	END {
		print "| policy | vCPUs | overcommit | boots | seconds median [min-max] | vs stock-directed | PAUSE exits median |"
		print "|---|---|---|---|---|---|---|"
		for (k = 1; k <= nk; k++) { key = order[k]; sortk(s, key, n[key]); med[key] = v[int((n[key] + 1) / 2)] }
		for (k = 1; k <= nk; k++) {
			key = order[k]; split(key, p, " ")
			sortk(s, key, n[key]); lo = v[1]; hi = v[n[key]]
			sortk(e, key, n[key]); me = v[int((n[key] + 1) / 2)]
			ref = "stock-directed " p[2]
			vs = (ref in med) ? sprintf("%.2fx", med[ref] / med[key]) : "-"
			printf "| %s | %s | %.0fx | %d | %.2f [%.2f-%.2f] | %s | %d |\n", p[1], p[2], p[2] / cpus[key], n[key], med[key], lo, hi, vs, me
		}
	}' "$build/boot.data"
}

# Ticket lock medians per policy and size, for the plot.
awk "$awk_val"'
val("lock") == "ticket" && val("policy") !~ /^single-/ { print val("policy"), val("vcpus") / val("cpus"), val("acq_per_s") }' \
	"$build/bench.data" | sort -k1,1 -k2,2n -k3,3n | awk '
{ k = $1 " " $2; n[k]++; v[k, n[k]] = $3; if (!(k in seen)) { seen[k] = 1; o[++nk] = k } }
END { for (i = 1; i <= nk; i++) { k = o[i]; print k, v[k, int((n[k] + 1) / 2)] } }' > "$build/bench-ticket.dat"
plot=""
if command -v gnuplot >/dev/null; then
	policies=$(cut -d' ' -f1 "$build/bench-ticket.dat" | uniq | tr '\n' ' ')
	cmd="set terminal png size 800,500; set output '$build/report-ticket.png';"
	cmd+="set title 'Ticket lock in a nested KVM guest, 2 CPUs (median of runs)';"
	cmd+="set xlabel 'overcommit (vCPUs per CPU)'; set ylabel 'lock acquisitions per second';"
	cmd+="set logscale y; set key outside right; set xtics 1; set grid;"
	cmd+="plot"
	sep=""
	for p in $policies; do
		cmd+="$sep '< grep \"^$p \" $build/bench-ticket.dat' using 2:3 with linespoints title '$p'"
		sep=","
	done
	gnuplot -e "$cmd" && plot=$build/report-ticket.png
fi

{
	echo "# PLE directed-yield benchmark ($(date -u +%Y-%m-%d), $(grep -m1 '^### GUEST' "$log" | cut -d' ' -f3))"
	echo
	echo "## Kernel: PAUSE-loop exits of a nested KVM guest"
	echo
	echo "ple_spin_test in a nested KVM guest (L1 booted with kvm_amd.npt=0), QEMU TCG, 2 CPUs;"
	echo "3000 acquisitions per vCPU, 200 work iterations inside and outside the lock, 200 spins"
	echo "before each PAUSE; vCPU threads pinned round-robin.  Throughput in lock acquisitions per"
	echo "second, median [min-max] over the runs; runs with a SHUTDOWN exit are discarded and rerun"
	echo "($(tr -d '\r' < "$log" | awk '/run\(s\) discarded after a SHUTDOWN/ { n += $2 } END { print n + 0 }') discarded in this boot)."
	echo "Policies: sleep (100 us, pre-2011), yield (plain yield()), stock-directed (6.12 directed yield,"
	echo "NO_YIELD_TO_DONATE), directed (the same with lag donation), local (local-first target, donation;"
	echo "the series' default)."
	echo
	table "ticket tas" stock-directed vCPUs
	echo
	echo "Rows named single-*: the same workload at 8 vCPUs in a boot with one TCG thread, the only"
	echo "setup in which the sleep policy runs at 8 vCPUs (see the README); compare them with each other."
	echo
	[ -n "$plot" ] && echo "Plot: $(basename "$plot") (ticket lock, median acq/s against overcommit)." && echo
	echo "## Macro: booting an SMP guest"
	echo
	echo "nested_boot (a minimal KVM VMM: 32-bit boot protocol, MP table, in-kernel irqchip and PIT, an"
	echo "8250) boots the same bzImage nested with N vCPUs, nopvspin (its spinlocks PAUSE-loop), until its"
	echo "init has seen all N CPUs and reboots; seconds from the first KVM_RUN.  One TCG thread (see the"
	echo "sleep-policy note in the README).  PAUSE exits: spin_loop_exits of the booting VM."
	echo
	[ -s "$build/boot.data" ] && boot_table
	echo
	echo "## User space: a spinlock that yields to its owner"
	echo
	echo "yield_to_lock_bench: T threads pinned round-robin on 2 CPUs, 200 work iterations inside and"
	echo "outside the lock.  Test-and-set lock whose word is the owner's tid, 200000 acquisitions per"
	echo "thread: waiters spin 100 PAUSEs, then sched_yield_to(owner) / sched_yield(); against"
	echo "pthread_mutex.  FIFO ticket lock, 5000 acquisitions per thread: waiters spin 100 PAUSEs, then"
	echo "sched_yield_to(the thread whose turn it is) / sched_yield()."
	echo
	table "user" mutex threads
	echo
	table "user-ticket" ticket-sched_yield threads
	echo
	for e in $missing; do
		echo "**$e did not finish (the guest hung or failed twice); its rows are missing or partial.**"
	done
	echo
	echo "Reproduce: \`make bench\` (console log: build/console-bench.log; \`REPORT_FROM=that-log make bench\`"
	echo "rebuilds this report from it)."
} > "$report"
cat "$report"
echo "[bench] report written to $report${plot:+, plot $plot}"
# A run that faulted or hung reports no number (ple_spin_test drops it);
# a boot that did not reach the end of the list makes the report partial.
if [ -n "$missing" ]; then
	echo "[bench] INCOMPLETE: did not finish:$missing; see $log" >&2
	exit 1
fi
if grep -q '^not ok' "$log"; then
	echo "[bench] INCOMPLETE: a benchmark failed or the guest did not finish; see $log" >&2
	exit 1
fi

#!/bin/bash
# The benchmark report: boot the fast kernel once in bench mode (tests/bench.list),
# then turn the "# BENCH" lines of the console log into a Markdown table of
# lock acquisitions per second (median, min, max over the repetitions) and
# the fraction of the 2-vCPU (1x, no overcommit) rate, per policy and lock.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
report=$build/report.md
# REPORT_FROM=log makes the report from an earlier run's console log.
log=${REPORT_FROM:-$build/console-bench.log}
[ -n "${REPORT_FROM:-}" ] || "$top/scripts/boot.sh" fast bench "$log" 1800
tr -d '\r' < "$log" | grep '^# BENCH ' | sed 's/^# BENCH //' > "$build/bench.data" || true
[ -s "$build/bench.data" ] || { echo "[bench] no results in $log" >&2; exit 1; }
{
	echo "# PLE directed-yield benchmark ($(date -u +%Y-%m-%d), $(grep -m1 '^### GUEST' "$log" | cut -d' ' -f3))"
	echo
	echo "ple_spin_test in a nested KVM guest, QEMU TCG, 2 host CPUs; 3000 acquisitions per vCPU,"
	echo "200 work iterations inside and outside the lock, 200 spins before each PAUSE."
	echo "Throughput in lock acquisitions per second: median [min-max] over the runs."
	echo
	echo "| policy | lock | vCPUs | overcommit | runs | acq/s median [min-max] | seconds median | of 1x rate | yields ok/attempted |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk '
	function val(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } }
	{ key = val("policy") " " val("lock") " " val("vcpus"); cpus[key] = val("cpus")
	  n[key]++; a[key, n[key]] = val("acq_per_s"); s[key, n[key]] = val("seconds")
	  ok[key] += val("spin_yield_successful"); att[key] += val("spin_yield_attempted")
	  if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
	function sortk(arr, key, cnt,   i, j, t) {
		for (i = 1; i <= cnt; i++) v[i] = arr[key, i] + 0
		for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	}
	END {
		for (k = 1; k <= nk; k++) { key = order[k]; sortk(a, key, n[key]); med[key] = v[int((n[key] + 1) / 2)] }
		for (k = 1; k <= nk; k++) {
			key = order[k]; split(key, p, " ")
			sortk(a, key, n[key]); lo = v[1]; hi = v[n[key]]; m = v[int((n[key] + 1) / 2)]
			sortk(s, key, n[key]); ms = v[int((n[key] + 1) / 2)]
			base = p[1] " " p[2] " " cpus[key]
			frac = (base in med) ? sprintf("%.3f", m / med[base]) : "-"
			printf "| %s | %s | %s | %.0fx | %d | %.0f [%.0f-%.0f] | %.3f | %s | %d/%d |\n", p[1], p[2], p[3], p[3] / cpus[key], n[key], m, lo, hi, ms, frac, ok[key], att[key]
		}
	}' "$build/bench.data"
	echo
	echo "Reproduce: \`make bench\` (console log: build/console-bench.log)."
} > "$report"
cat "$report"
echo "[bench] report written to $report"
# A run that faulted or hung reports no number (ple_spin_test drops it);
# a boot that did not reach the end of the list makes the report partial.
if ! grep -q '^### DONE' "$log" || grep -q '^not ok' "$log"; then
	echo "[bench] INCOMPLETE: a benchmark failed or the guest did not finish; see $log" >&2
	exit 1
fi
